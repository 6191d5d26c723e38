// One port served by several processes (BENCH_WORKERS=N; ./benchmark.sh --workers N), the way
// both runtimes document it: node:cluster. The framework code is the same as with one process.
//
// - Node (node:http servers): the primary holds the listening socket, accepts every connection
//   and hands each to a worker in turn (round robin, Node's default everywhere but Windows). A
//   worker's listen callback runs once the primary has registered it.
// - Bun: node:cluster cannot pass sockets between processes, so every worker opens its own
//   socket with SO_REUSEPORT (`reusePort: true`) and the kernel spreads new connections over
//   them by a hash of the client's address and port. @elysiajs/node listens with reusePort by
//   default, so node-elysia's workers do the same on Node.
//
// The primary serves nothing. It prints ALL_LISTENING once every worker has said it listens (the
// harness waits for that line), never replaces a worker that dies (a benchmark must see the
// loss, not hide it), and exits when the last worker is gone.

import cluster from "node:cluster";

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
 * Calls `serve` in this process (one worker) or in each of BENCH_WORKERS cluster workers.
 * `serve` starts the server, with `reusePort` set when the runtime needs it, and calls
 * `listening` once its socket is open.
 */
export function serveWorkers(
  name: string,
  serve: (options: { reusePort: boolean }, listening: () => void) => void,
): void {
  const count = workerCount();
  if (count === 1) {
    serve({ reusePort: false }, () => {});
  } else if (cluster.isPrimary) {
    primary(name, count);
  } else {
    serve({ reusePort: process.versions.bun !== undefined }, () => {
      process.send?.({ listening: process.pid });
    });
  }
}

function primary(name: string, count: number): void {
  const listening = new Set<number>();
  cluster.on("message", (_worker, message: { listening?: number }) => {
    if (typeof message?.listening !== "number") return;
    listening.add(message.listening);
    if (listening.size === count) console.log(`${name}: ${allListening(count)}`);
  });
  cluster.on("exit", (worker, code, signal) => {
    console.error(`${name}: worker ${worker.process.pid} exited (${signal ?? code}), not replaced`);
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
  });
  // The harness and a terminal's Ctrl-C signal the whole process group; a TERM sent to the
  // primary alone must not leave its workers behind.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      process.exit(0);
    });
  }
  for (let i = 0; i < count; i++) cluster.fork();
}
