// Nothing a run starts outlives it, however the harness ends: an app's process group, a load
// generator, a scratch folder. Ctrl-C and TERM are the harness's own to handle (it stops the app,
// keeps the finished samples); a SIGKILL lets it do nothing, and an app left serving on its port
// made the next run fail "port already in use". So every process the harness starts is tethered
// here: one small watcher per harness, in a session of its own, holds a pipe from the harness
// that the kernel closes however the harness ends, and then stops whatever is still tethered.
//
// The tethers are lines in a file, written synchronously (a write into the pipe could still sit
// in the harness's buffers when it is killed); the pipe carries nothing, its end is the signal.
// A released tether is never signalled: its pid may belong to someone else by then.

import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The scratch folder's prefix; its name carries the harness's pid (see sweepLifelines). */
export const LIFELINE_PREFIX = "bench-lifeline-";

/** How long a tethered process is given to obey SIGTERM before SIGKILL, as launch.ts's stop. */
export const LIFELINE_GRACE_SEC = 3;

/**
 * Blocks on the harness's pipe; at its end replays the tethers ("+ p ID", "- p ID", "+ d PATH",
 * "- d PATH"; a negative ID is a process group), TERMs what is left, KILLs what outlives the
 * grace period, removes the folders and itself. $1: the tethers' file.
 */
const WATCHER = `file=$1 dir=\${1%/*}
while read -r _; do :; done
declare -A procs=() dirs=()
while read -r op kind target; do
  if [ "$kind" = p ]; then
    if [ "$op" = + ]; then procs[$target]=1; else unset "procs[$target]"; fi
  elif [ "$op" = + ]; then dirs[$target]=1; else unset "dirs[$target]"; fi
done < "$file"
ids=("\${!procs[@]}")
if [ \${#ids[@]} -gt 0 ]; then
  kill -TERM -- "\${ids[@]}" 2>/dev/null
  for _ in $(seq $((${LIFELINE_GRACE_SEC} * 10))); do
    left=0
    for id in "\${ids[@]}"; do kill -0 -- "$id" 2>/dev/null && left=1; done
    [ "$left" = 1 ] || break
    sleep 0.1
  done
  kill -KILL -- "\${ids[@]}" 2>/dev/null
fi
for d in "\${!dirs[@]}"; do rm -rf -- "$d"; done
rm -rf -- "$dir"`;

interface Watcher {
  readonly child: ChildProcess;
  readonly file: string;
  readonly dir: string;
}

let watcher: Watcher | undefined;

/** The tethers not yet released: at a normal exit with none, the watcher has nothing to do. */
const live = new Set<string>();

/**
 * A harness that ends with nothing tethered stops its watcher itself, so that nothing of the
 * run is left even for the moment the watcher would take to notice (a test listing the
 * processes right after a run once saw it).
 */
function dismiss(): void {
  if (!watcher || live.size > 0) return;
  try {
    watcher.child.kill("SIGKILL");
  } catch {
    // gone already
  }
  rmSync(watcher.dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the scratch folders of lifelines whose harness and watcher are both gone (a watcher
 * killed outright leaves one); returns how many.
 */
export function sweepLifelines(parent = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(parent)) {
    const pid = Number(new RegExp(`^${LIFELINE_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** The harness's watcher, started the first time something is tethered. */
function started(): Watcher {
  if (watcher && watcher.child.exitCode === null && watcher.child.signalCode === null) {
    return watcher;
  }
  sweepLifelines();
  const dir = mkdtempSync(join(tmpdir(), `${LIFELINE_PREFIX}${process.pid}-`));
  const file = join(dir, "tethers");
  appendFileSync(file, "");
  // A script file rather than `bash -c`: `ps` then shows its name, not its text.
  const script = join(dir, "lifeline.sh");
  writeFileSync(script, WATCHER);
  const child = spawn("bash", [script, file], {
    // A session of its own: the terminal's Ctrl-C and a kill of the harness's group miss it.
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  // The harness exits when its work is done, not when its watcher does.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  if (!watcher) process.once("exit", dismiss);
  watcher = { child, file, dir };
  return watcher;
}

/** What tether() returns: call it once the thing is gone or no longer the harness's to stop. */
export type Release = () => void;

function tie(kind: "p" | "d", target: string): Release {
  const { file } = started();
  const line = `${kind} ${target}`;
  appendFileSync(file, `+ ${line}\n`);
  live.add(line);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    live.delete(line);
    appendFileSync(file, `- ${line}\n`);
  };
}

/**
 * Stops `pid` (with `group`, its whole process group, whose leader it is) if the harness ends
 * before release() is called.
 */
export function tether(pid: number, group: boolean): Release {
  return tie("p", String(group ? -pid : pid));
}

/** Removes `dir` if the harness ends before release() is called. */
export function tetherFolder(dir: string): Release {
  return tie("d", dir);
}

/** The watcher's pid, once one has started (for tests). */
export function lifelinePid(): number | undefined {
  return watcher?.child.pid;
}
