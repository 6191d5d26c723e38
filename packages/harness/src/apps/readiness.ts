// Telling whether an app is up and which processes serve it: who holds a port, the process
// listening on it, the server's processes (with workers), the first answer to GET /, and when
// the runtime was exec'd. This module looks (through /proc and the network) and starts nothing:
// launch.ts starts and stops the apps.

import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type AppSpec, GREETING, ROUTES } from "@bench/contract";
import { commandLineOf, descendantsOf, parentOf, pidsListeningOn } from "@bench/contract/check";

/** The /proc look-ups made here: the real ones by default, a made-up table in the unit tests. */
export interface ProcessTable {
  listeners(port: number, address?: string): number[];
  descendants(pid: number): number[];
  parent(pid: number): number | undefined;
  commandLine(pid: number): string | undefined;
}

/** This machine's processes, as Linux's /proc tells them. */
export const PROC: ProcessTable = {
  listeners: pidsListeningOn,
  descendants: descendantsOf,
  parent: parentOf,
  commandLine: commandLineOf,
};

/** Whether something accepts TCP connections on host:port (the connection is closed at once). */
function accepts(port: number, host: string): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** Who holds the port, as precisely as can be told; undefined when it is free. */
export async function portHolder(
  port: number,
  proc: ProcessTable = PROC,
  host = "127.0.0.1",
): Promise<string | undefined> {
  const pids = proc.listeners(port, host);
  if (pids.length > 0) {
    return pids
      .map((pid) => `pid ${pid} (${proc.commandLine(pid) ?? "unknown command"})`)
      .join(", ");
  }
  // A listener /proc does not show (another user's process, another network namespace).
  return (await accepts(port, host)) ? "an unknown process" : undefined;
}

/**
 * The process listening on the app's port: the one the harness launched (or one of its
 * descendants) when there is one, since a side-by-side pair can run the same app twice on
 * one port; else the first listener; else the one launched.
 */
export function listenerOf(app: AppSpec, launched: number, proc: ProcessTable = PROC): number {
  const listeners = proc.listeners(app.port);
  const ours = new Set([launched, ...proc.descendants(launched)]);
  return listeners.find((pid) => ours.has(pid)) ?? listeners[0] ?? launched;
}

/**
 * The server's processes: the one listening on the port, or with workers, the cluster's
 * primary and its workers. Node's primary holds the listening socket itself; on Bun every
 * worker listens (reusePort) and the primary is their parent. A string: why it is not right.
 */
export function serverProcesses(
  app: AppSpec,
  launched: number,
  count: number,
  proc: ProcessTable = PROC,
): { root: number; workers: number[] } | string {
  const listener = listenerOf(app, launched, proc);
  if (count === 1) return { root: listener, workers: [] };
  const root =
    proc.descendants(listener).length > 0 ? listener : (proc.parent(listener) ?? listener);
  const workers = proc.descendants(root);
  return workers.length === count
    ? { root, workers }
    : `asked for ${count} workers, found ${workers.length} under pid ${root}`;
}

/** Often enough to resolve a few ms of start-up; a refused connection costs next to nothing. */
export const READY_POLL_MS = 2;
/** How long one GET / may take before it counts as no answer and is asked again. */
export const ANSWER_TIMEOUT_MS = 1000;

/** The first answer to GET /: when it came (performance.now()), and whether it was the right one. */
export interface FirstAnswer {
  readonly at: number;
  readonly correct: boolean;
}

/**
 * Polls GET / on host:port (127.0.0.1 unless a run across two hosts names another) until the
 * first answer of any kind, the app's exit, or the timeout (undefined for both). While allUp()
 * is false (workers still starting) nothing is asked: the first answer could come from the
 * first worker up.
 */
export async function waitForReady(
  port: number,
  hasExited: () => boolean,
  timeoutMs: number,
  allUp: () => boolean,
  answerTimeoutMs = ANSWER_TIMEOUT_MS,
  host = "127.0.0.1",
): Promise<FirstAnswer | undefined> {
  const deadline = Date.now() + timeoutMs;
  const url = `http://${host}:${port}${ROUTES.root}`;
  while (Date.now() < deadline && !hasExited()) {
    if (!allUp()) {
      await sleep(READY_POLL_MS);
      continue;
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(answerTimeoutMs) });
      const body = await response.text();
      const at = performance.now();
      return { at, correct: response.status === 200 && body === GREETING };
    } catch {
      await sleep(READY_POLL_MS);
    }
  }
  return undefined;
}

/**
 * When the runtime was exec'd, on performance.now()'s clock: the wall-clock stamp (seconds)
 * the start script wrote just before its exec (so neither `bun run`, the wrapper nor its
 * version check counts), taken relative to the wall clock read at spawn (a clock step during a
 * long run then moves nothing), within [spawn, ready]; the spawn when there is no stamp (a
 * start script of its own, a bash without $EPOCHREALTIME). Bash prints it with the locale's
 * decimal point.
 */
export function execAt(
  stamp: string | undefined,
  spawned: { readonly at: number; readonly wall: number },
  readyAt: number | undefined,
): number {
  if (stamp === undefined) return spawned.at;
  const text = stamp.trim().replace(",", ".");
  const at = spawned.at + (Number(text) * 1000 - spawned.wall);
  if (!Number.isFinite(at) || text === "") return spawned.at;
  return Math.min(Math.max(at, spawned.at), readyAt ?? at);
}
