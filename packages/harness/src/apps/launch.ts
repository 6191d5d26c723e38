// Starting and stopping an app the way a user does (`bun run start` in its folder), with the
// guarantees a benchmark needs: its port is free first, readiness is polled with a bound, and
// stopping leaves no process of its tree behind.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AppSpec } from "@bench/contract";
import { descendantsOf } from "@bench/contract/check";
import { allListening, LISTEN_ENV, WORKERS_ENV } from "@bench/contract/workers";
import { REPO_ROOT } from "../common/root.ts";
import { type Release, tether, tetherFolder } from "../runtimes/lifeline.ts";
import { type AppRun, buildEnv, registryName } from "../runtimes/runtime-versions.ts";
import { type AppDatabase, makeAppDatabase } from "./app-db.ts";
import { execAt, portHolder, waitForReady } from "./readiness.ts";

export class LaunchError extends Error {}

/** Whether the process group of `pid` is gone within `ms` (polled every 20 ms). */
async function groupGone(pid: number, ms = 2000): Promise<boolean> {
  for (let waited = 0; groupAlive(pid); waited += 20) {
    if (waited >= ms) return false;
    await sleep(20);
  }
  return true;
}

export interface StartOptions {
  /** CPU list for taskset (e.g. "0"); undefined: no pinning. */
  readonly cpus?: string;
  readonly readyTimeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly root?: string;
  /** Processes serving the port (BENCH_WORKERS); ready only once every one listens. */
  readonly workers?: number;
  /** The address to listen on (BENCH_LISTEN) when not 127.0.0.1: a run across two hosts. */
  readonly listen?: string;
  /**
   * Give the process its own seeded database, removed when it stops: true, a SQLite file
   * (BENCH_DB); or one from this maker (a PostgreSQL server's copy, BENCH_PG).
   */
  readonly database?: boolean | (() => Promise<AppDatabase>);
}

export interface StopReport {
  /** The signal that finally ended the tree: TERM when it obeyed within the grace period. */
  readonly signal: "SIGTERM" | "SIGKILL" | "none";
  /** PIDs of the tree still alive after everything (should always be empty). */
  readonly survivors: number[];
}

export interface RunningApp {
  readonly app: AppSpec;
  /** The `bun run start` process, leader of the app's own process group. */
  readonly pid: number;
  /**
   * ms from the runtime's exec (stamped by scripts/start-app.sh; from spawning `bun run start`
   * when the start script stamps nothing) to the first correct answer (200, the greeting) to
   * GET /, polled every READY_POLL_MS; undefined when its first answer was not correct.
   */
  readonly readyMs: number | undefined;
  /** Its database (StartOptions.database: a file or a URL), removed once the process has exited. */
  readonly database?: string;
  /** Resolves with the exit code (or signal name) when the leader exits. */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** The last few KB of what the app printed, for error messages. */
  output(): string;
  stop(graceMs?: number): Promise<StopReport>;
}

/** Running, not merely a zombie waiting for its parent to collect its exit status. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    if (existsSync("/proc/self")) return false; // no /proc entry: gone
    // Not Linux: signal 0 is the best test there is.
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(25);
  }
  return condition();
}

function signalOne(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Whether any process of the group is left (a zombie counts until it is collected). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

function runtimeCommand(): string {
  // Under Bun, run the very Bun that runs us (the project's pinned one when started through
  // the scripts); otherwise whatever `bun` is on the PATH.
  return process.versions.bun ? process.execPath : "bun";
}

/** The process's own database, if it is to have one; a LaunchError when it cannot be made. */
async function databaseFor(
  app: AppRun,
  wanted: StartOptions["database"],
): Promise<AppDatabase | undefined> {
  if (!wanted) return undefined;
  try {
    return wanted === true ? makeAppDatabase() : await wanted();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new LaunchError(`${app.name}: could not make its database: ${why}`);
  }
}

export async function startApp(app: AppRun, options: StartOptions = {}): Promise<RunningApp> {
  // A row of another commit (--against) runs from that commit's checkout.
  const root = app.checkout?.root ?? options.root ?? REPO_ROOT;
  // A row of a version matrix ("node-hono@22.23.3") runs its app's folder on that version.
  const cwd = join(root, "apps", registryName(app.name));
  if (!existsSync(join(cwd, "package.json"))) {
    throw new LaunchError(`${app.name}: no app at ${cwd}`);
  }
  const host = options.listen ?? "127.0.0.1";
  const holder = await portHolder(app.port, undefined, host);
  if (holder) {
    throw new LaunchError(`${app.name}: port ${app.port} is already in use by ${holder}`);
  }

  const workers = options.workers ?? 1;
  const database = await databaseFor(app, options.database);
  const env = { ...options.env, ...database?.env };
  const { child, command, stamp, spawned } = spawnApp(app, cwd, { ...options, env }, workers);
  const { exited, output, exitedWith } = watch(child);
  const pid = child.pid;
  // Stopped with the harness however it ends, SIGKILL too (runtimes/lifeline.ts).
  const release: Release = pid === undefined ? () => {} : tether(pid, true);
  // The file goes when the process does, however it ends (stop, a crash, a failed start).
  void exited.then(() => {
    database?.remove();
    if (pid !== undefined && !groupAlive(pid)) release();
  });
  if (pid === undefined) {
    await exited;
    removeStamp(stamp);
    throw new LaunchError(`${app.name}: could not start ${command.join(" ")}: ${output().trim()}`);
  }

  let knownTree: number[] = [];
  let readyMs: number | undefined;
  const running: RunningApp = {
    app,
    pid,
    ...(database ? { database: database.path } : {}),
    get readyMs() {
      return readyMs;
    },
    exited,
    hasExited: () => exitedWith() !== undefined,
    output,
    stop: async (graceMs = 3000) => {
      const report = await stopTree(pid, knownTree, exited, graceMs, database);
      // With workers the group outlives its leader by the moment the orphans take to be
      // reaped: wait for it (bounded), so the tether is released and the watcher dismissed.
      if (await groupGone(pid)) release();
      return report;
    },
  };

  const timeoutMs = options.readyTimeoutMs ?? 15_000;
  // With workers, the first answer may come from the first worker up: wait for them all.
  const allUp = () => workers === 1 || output().includes(allListening(workers));
  const exitedNow = () => running.hasExited();
  const ready = await waitForReady(app.port, exitedNow, timeoutMs, allUp, undefined, host);
  knownTree = descendantsOf(pid);
  const exec = startedAt(stamp, spawned, ready?.at);
  if (ready?.correct) readyMs = ready.at - exec;
  if (!ready) {
    const why = running.hasExited()
      ? `exited (${exitedWith()}) before serving`
      : `did not answer on port ${app.port} ${workers > 1 ? `from all ${workers} workers ` : ""}within ${timeoutMs} ms`;
    await running.stop();
    throw new LaunchError(`${app.name}: ${why}. Its output:\n${output().trim()}`);
  }
  return running;
}

/** What a child prints (its last 8 KB) and how it ends, watched from its spawn. */
function watch(child: ChildProcess): {
  exited: Promise<string>;
  output: () => string;
  exitedWith: () => string | undefined;
} {
  let log = "";
  const collect = (data: Buffer) => {
    log = (log + data.toString("utf8")).slice(-8192);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let exitedWith: string | undefined;
  const exited = new Promise<string>((done) => {
    child.once("exit", (code, signal) => {
      exitedWith = signal ?? String(code);
      done(exitedWith);
    });
    child.once("error", (error) => {
      log += `\n${error.message}`;
      exitedWith = "spawn-error";
      done(exitedWith);
    });
  });
  return { exited, output: () => log, exitedWith: () => exitedWith };
}

/**
 * Stops an app's process tree: SIGTERM to its servers, then to the `bun run` leading them and
 * every group, SIGKILL to whatever outlives the grace period; its database goes with it.
 */
async function stopTree(
  pid: number,
  knownTree: readonly number[],
  exited: Promise<string>,
  graceMs: number,
  database: AppDatabase | undefined,
): Promise<StopReport> {
  // Snapshot the tree while the leader lives: orphans are re-parented and lost to the walk.
  const tree = new Set([pid, ...knownTree, ...descendantsOf(pid)]);
  const alive = () => [...tree].filter(isRunning);
  if (alive().length === 0) return { signal: "none", survivors: [] };
  // The server before the `bun run` leading it: when that leader dies first, its children
  // can be taken down at once, and a server writing its CPU profile at exit (--profile)
  // then wrote none (seen in about one stop in three for bun-elysia).
  const deadline = Date.now() + graceMs;
  const servers = [...tree].filter((member) => member !== pid);
  for (const member of servers) signalOne(member, "SIGTERM");
  await waitUntil(() => !servers.some(isRunning), graceMs);
  signalGroup(pid, "SIGTERM");
  for (const member of alive()) signalGroup(member, "SIGTERM");
  if (await waitUntil(() => alive().length === 0, Math.max(0, deadline - Date.now()))) {
    await exited;
    return { signal: "SIGTERM", survivors: [] };
  }
  signalGroup(pid, "SIGKILL");
  for (const member of alive()) signalOne(member, "SIGKILL");
  await Promise.race([exited, sleep(2000)]);
  await waitUntil(() => alive().length === 0, 2000);
  database?.remove();
  return { signal: "SIGKILL", survivors: alive() };
}

/** `bun run start` in the app's folder, in a process group of its own, told where to stamp its exec. */
function spawnApp(app: AppRun, cwd: string, options: StartOptions, workers: number) {
  const command = [runtimeCommand(), "run", "--silent", "start"];
  if (options.cpus !== undefined) command.unshift("taskset", "-c", options.cpus);
  const [file, ...args] = command as [string, ...string[]];
  const stampDir = mkdtempSync(join(tmpdir(), "bench-exec-"));
  const stamp = { dir: stampDir, release: tetherFolder(stampDir) };
  const spawned = { at: performance.now(), wall: Date.now() };
  const child: ChildProcess = spawn(file, args, {
    cwd,
    detached: true, // its own process group, so the whole tree can be signalled at once
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...buildEnv(app),
      ...options.env,
      [WORKERS_ENV]: String(workers),
      ...(options.listen ? { [LISTEN_ENV]: options.listen } : {}),
      BENCH_EXEC_STAMP: join(stampDir, "stamp"),
    },
  });
  return { child, command, stamp, spawned };
}

/** When the runtime was exec'd (readiness.ts's execAt), from the stamp the start script wrote. */
function startedAt(
  stamp: Stamp,
  spawned: { at: number; wall: number },
  readyAt: number | undefined,
): number {
  let written: string | undefined;
  try {
    written = readFileSync(join(stamp.dir, "stamp"), "utf8");
  } catch {
    // no stamp: the start script is not start-app.sh
  } finally {
    removeStamp(stamp);
  }
  return execAt(written, spawned, readyAt);
}

/** The folder the start script stamps its exec in, removed with the harness if not before. */
interface Stamp {
  readonly dir: string;
  readonly release: Release;
}

function removeStamp(stamp: Stamp): void {
  rmSync(stamp.dir, { recursive: true, force: true });
  stamp.release();
}
