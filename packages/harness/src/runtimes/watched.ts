// A long child command (npm install) that the harness never loses track of: it says it is still
// working while it runs, is stopped with its whole process tree after a time limit or on Ctrl-C,
// and dies with the harness even when the harness is killed outright (SIGKILL), so no npm
// install is left running behind a run that is gone.

import { spawn } from "node:child_process";

/**
 * Runs "$@" in its own process group and watches its stdin, a pipe from the harness: the pipe
 * closes when the harness exits in any way, and the watcher then ends the whole group. A
 * background command's stdin is /dev/null unless redirected, hence fd 3.
 */
const WATCHDOG = `exec 3<&0
"$@" </dev/null &
child=$!
{ while read -r _; do :; done; kill -TERM -- -$$; } <&3 &
watcher=$!
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"`;

export interface WatchedOptions {
  /** Stopped (the whole tree) after this long, and the promise rejects with WatchedTimeout. */
  readonly timeoutMs: number;
  /** How often `progress` is called while the command runs. */
  readonly progressEveryMs: number;
  readonly progress: (elapsedSec: number) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Where it runs (default: here). */
  readonly cwd?: string;
}

export interface WatchedResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

export class WatchedTimeout extends Error {}

/** The running command's process group, so a signal handler can stop it (see stopAll). */
const running = new Set<number>();

/** Ends every watched command's whole tree (on the harness's Ctrl-C or TERM). */
export function stopAll(): void {
  for (const pgid of running) killGroup(pgid);
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    // gone already
  }
}

export function runWatched(
  command: string,
  args: readonly string[],
  options: WatchedOptions,
): Promise<WatchedResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", WATCHDOG, "watched", command, ...args], {
      detached: true,
      stdio: ["pipe", "ignore", "pipe"],
      env: options.env ?? process.env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const pgid = child.pid as number;
    running.add(pgid);
    let stderr = "";
    child.stderr?.on("data", (data: Buffer) => {
      stderr = (stderr + data.toString("utf8")).slice(-8192);
    });
    const started = Date.now();
    const ticker = setInterval(
      () => options.progress(Math.round((Date.now() - started) / 1000)),
      options.progressEveryMs,
    );
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      killGroup(pgid);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearInterval(ticker);
      clearTimeout(limit);
      running.delete(pgid);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearInterval(ticker);
      clearTimeout(limit);
      running.delete(pgid);
      child.stdin?.destroy();
      if (timedOut) reject(new WatchedTimeout(`no result within ${options.timeoutMs / 1000} s`));
      else resolve({ code, signal, stderr });
    });
  });
}
