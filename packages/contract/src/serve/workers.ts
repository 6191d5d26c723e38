// One port served by several processes (BENCH_WORKERS=N; ./benchmark.sh --workers N): node:cluster
// on Node and Bun, as both document it, and processes started by the primary on Deno (below). The
// framework code is the same as with one process.
//
// - Node (node:http servers): the primary holds the listening socket, accepts every connection
//   and hands each to a worker in turn (round robin, Node's default everywhere but Windows). A
//   worker's listen callback runs once the primary has registered it.
// - Bun: node:cluster cannot pass sockets between processes, so every worker opens its own
//   socket with SO_REUSEPORT (`reusePort: true`) and the kernel spreads new connections over
//   them by a hash of the client's address and port. @elysiajs/node listens with reusePort by
//   default, so node-elysia's workers do the same on Node.
// - Deno: node:cluster is stubs. `deno serve --parallel` runs its workers as threads of one
//   process, with one `export default { fetch }` for every app; the harness measures workers as
//   processes, and the apps serve through Deno.serve as Deno's docs write it. So the primary
//   starts N `deno run` processes, each listening with reusePort like Bun's.
//
// The primary serves nothing. It prints allListening(N) once every worker has said it listens (the
// harness waits for that line), never replaces a worker that dies (a benchmark must see the
// loss, not hide it), and exits when the last worker is gone; the workers exit with it.

import { type ChildProcess, spawn } from "node:child_process";
import cluster from "node:cluster";
import { isIP } from "node:net";
import { fileURLToPath } from "node:url";
import { DB_ENV, PG_ENV } from "../spec/db.ts";
import { isDeno } from "../spec/runtime.ts";
import { TLS_ENV } from "../spec/tls.ts";

export const WORKERS_ENV = "BENCH_WORKERS";

/** The line the primary prints when all `count` workers listen. */
export function allListening(count: number): string {
  return `all ${count} workers listening`;
}

/** BENCH_WORKERS as a count of processes; 1 (no cluster) when unset. */
export function workerCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[WORKERS_ENV];
  if (raw === undefined || raw === "") return 1;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`${WORKERS_ENV} must be a whole number >= 1, got "${raw}"`);
  }
  return count;
}

/**
 * The address the apps listen on: 127.0.0.1, unless the harness names another for a run across
 * two hosts (./benchmark.sh --server-host), and only then.
 */
export const LISTEN_ENV = "BENCH_LISTEN";

/** BENCH_LISTEN as an address to listen on; 127.0.0.1 when unset. Not an IP address: an error. */
export function listenHost(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env[LISTEN_ENV];
  if (raw === undefined || raw === "") return "127.0.0.1";
  if (isIP(raw) === 0) throw new Error(`${LISTEN_ENV} must be an IP address, got "${raw}"`);
  return raw;
}

/** Set in the processes a Deno primary starts: they serve, the primary does not. */
export const DENO_WORKER_ENV = "BENCH_DENO_WORKER";
/** The `deno run` flags (one per line) of those processes: start-app.sh knows the permissions. */
export const DENO_FLAGS_ENV = "BENCH_DENO_FLAGS";

type Serve = (options: { reusePort: boolean; host: string }, listening: () => void) => void;

/**
 * Calls `serve` in this process (one worker) or in each of BENCH_WORKERS worker processes.
 * `serve` starts the server on `host` (listenHost()), with `reusePort` set when the runtime needs it, and calls
 * `listening` once its socket is open.
 */
export function serveWorkers(name: string, serve: Serve): void {
  const count = workerCount();
  const host = listenHost();
  const reportListening = () => process.send?.({ listening: process.pid });
  if (count === 1) serve({ reusePort: false, host }, () => {});
  else if (isDeno()) {
    if (process.env[DENO_WORKER_ENV]) denoWorker(serve, reportListening);
    else primary(name, count, () => forkDeno(count));
  } else if (cluster.isPrimary) primary(name, count, forkCluster);
  else serve({ reusePort: process.versions.bun !== undefined, host }, reportListening);
}

/** The worker's process: node:cluster's Worker re-emits its messages and exit. */
const forkCluster = (): ChildProcess => cluster.fork().process;

/**
 * Deno's node:cluster is stubs, and its child_process.fork gives the child every permission
 * (`-A`): the primary starts `deno run` itself, with the flags start-app.sh chose, and an IPC
 * channel for the "listening" message. Every worker listens with reusePort (--unstable-net).
 */
function forkDeno(count: number): ChildProcess {
  const flags = (process.env[DENO_FLAGS_ENV] ?? "").split("\n").filter((flag) => flag !== "");
  const script = fileURLToPath(Deno.mainModule);
  return spawn(Deno.execPath(), ["run", ...flags, script], {
    env: {
      [WORKERS_ENV]: String(count),
      [DENO_WORKER_ENV]: "1",
      ...(process.env[LISTEN_ENV] ? { [LISTEN_ENV]: process.env[LISTEN_ENV] } : {}),
      ...(process.env[DB_ENV] ? { [DB_ENV]: process.env[DB_ENV] } : {}),
      ...(process.env[PG_ENV] ? { [PG_ENV]: process.env[PG_ENV] } : {}),
      ...Object.fromEntries(
        Object.values(TLS_ENV).flatMap((v) => (process.env[v] ? [[v, process.env[v]]] : [])),
      ),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/**
 * A Deno worker exits with its primary, as node:cluster's workers do: when the primary is gone
 * (even by SIGKILL, which it cannot pass on) the IPC channel closes. Without this the workers
 * kept serving the port, and the next run failed with "port in use".
 */
function denoWorker(serve: Serve, listening: () => void): void {
  process.on("disconnect", () => process.exit(0));
  serve({ reusePort: true, host: listenHost() }, listening);
}

function primary(name: string, count: number, fork: () => ChildProcess): void {
  const workers = new Set<ChildProcess>();
  const listening = new Set<number>();
  const start = () => {
    const worker = fork();
    workers.add(worker);
    worker.on("message", (message: { listening?: number }) => {
      if (typeof message?.listening !== "number") return;
      listening.add(message.listening);
      if (listening.size === count) console.log(`${name}: ${allListening(count)}`);
    });
    worker.on("exit", (code, signal) => {
      console.error(`${name}: worker ${worker.pid} exited (${signal ?? code}), not replaced`);
      workers.delete(worker);
      if (workers.size === 0) process.exit(1);
    });
  };
  // The harness and a terminal's Ctrl-C signal the whole process group; a TERM sent to the
  // primary alone must not leave its workers behind.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      for (const worker of workers) worker.kill(signal);
      process.exit(0);
    });
  }
  for (let i = 0; i < count; i++) start();
}
