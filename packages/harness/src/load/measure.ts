// One measurement's arithmetic: where the load window lies inside the load generator's life,
// the CPU figures over it, and req/s over the time the load was applied. CPU figures are taken
// over the load window proper: the tool's own measured time, located at the end of its life (it
// exits right after its load), trimmed at both ends, so neither the tool's start-up nor its exit
// dilutes them. Pure: load.ts runs the tool and samples /proc, and hands the samples here.

import type { WorkerUse } from "../results/schema.ts";
import type { LoadResult } from "./parse.ts";
import { CLK_TCK } from "./procstats.ts";
import type { ToolInfo } from "./tools.ts";

export interface Sample {
  /** ms, performance.now() */
  readonly t: number;
  readonly serverTicks: number;
  /** The server tree's CPU time, ns (schedstat); absent from a host that does not read it. */
  readonly serverNs?: number;
  readonly toolTicks: number;
  readonly stealTicks: number;
  /** Steal ticks of the server's CPU set (0 when it has none of its own). */
  readonly serverStealTicks?: number;
  /** Idle ticks of the server's CPU set (0 when it has none of its own). */
  readonly serverIdleTicks: number;
  /** Per worker (--workers), in the order of Sampled.workers. */
  readonly workerTicks?: readonly number[];
  /**
   * --db postgres: the database server's processes' CPU time, ns (schedstat: ticks, truncated
   * per process, would be off by up to a tick for each of its dozen processes).
   */
  readonly databaseNs?: number;
}

export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The load window inside [spawned, exited]: it ends `durationSec` after it starts and the
 * tool exits right after it (oha -w waits for stragglers past `requestedSec`: only the
 * requested part carries the load). Trimmed by a tenth (at most 250 ms) at each end.
 */
export function loadWindow(
  spawnedMs: number,
  exitedMs: number,
  durationSec: number,
  requestedSec: number,
): Window {
  const loadMs = Math.min(durationSec, requestedSec) * 1000;
  const start = Math.max(spawnedMs, exitedMs - durationSec * 1000);
  const end = Math.min(exitedMs, start + loadMs);
  const trim = Math.min(250, (end - start) / 10);
  return { startMs: start + trim, endMs: end - trim };
}

export interface WindowRates {
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  readonly stealPercent: number;
  /**
   * Steal on the server's own CPU set, % of it: what the hypervisor took from the server
   * itself. undefined when the server has no set of its own (unpinned).
   */
  readonly serverStealPercent?: number;
  /** Idle share of the server's CPU set; undefined when it has none of its own (unpinned). */
  readonly serverCoreIdlePercent?: number;
  /** The server tree's CPU time over the window, ns (schedstat); undefined where not read. */
  readonly serverNs?: number;
  /** --db postgres: the database server's CPU over the window, % of a core. */
  readonly databaseCpuPercent?: number;
  readonly windowSec: number;
}

/**
 * The first and last of the samples inside the window and the seconds between them; undefined
 * when fewer than two fall in it (or they span no time).
 */
export function span<T extends { readonly t: number }>(
  samples: readonly T[],
  window: Window,
): { first: T; last: T; sec: number } | undefined {
  const inside = samples.filter((s) => s.t >= window.startMs && s.t <= window.endMs);
  const first = inside[0];
  const last = inside[inside.length - 1];
  if (!first || !last || last.t - first.t <= 0) return undefined;
  return { first, last, sec: (last.t - first.t) / 1000 };
}

/** CPU over the samples inside the window; undefined when fewer than two fall in it. */
export function ratesOver(
  samples: readonly Sample[],
  window: Window,
  cores: number,
  serverCpus = 0,
): WindowRates | undefined {
  const within = span(samples, window);
  if (!within) return undefined;
  const { first, last, sec } = within;
  const percent = (ticks: number) => (ticks / CLK_TCK / sec) * 100;
  return {
    serverCpuPercent: Math.max(0, percent(last.serverTicks - first.serverTicks)),
    loadCpuPercent: Math.max(0, percent(last.toolTicks - first.toolTicks)),
    stealPercent: Math.max(0, percent(last.stealTicks - first.stealTicks) / cores),
    ...(serverCpus > 0
      ? {
          serverCoreIdlePercent: Math.max(
            0,
            percent(last.serverIdleTicks - first.serverIdleTicks) / serverCpus,
          ),
        }
      : {}),
    ...(serverCpus > 0 &&
    first.serverStealTicks !== undefined &&
    last.serverStealTicks !== undefined
      ? {
          serverStealPercent: Math.max(
            0,
            percent(last.serverStealTicks - first.serverStealTicks) / serverCpus,
          ),
        }
      : {}),
    ...(first.serverNs !== undefined && last.serverNs !== undefined
      ? { serverNs: Math.max(0, last.serverNs - first.serverNs) }
      : {}),
    ...(first.databaseNs !== undefined && last.databaseNs !== undefined
      ? { databaseCpuPercent: Math.max(0, (last.databaseNs - first.databaseNs) / 1e7 / sec) }
      : {}),
    windowSec: sec,
  };
}

/**
 * The server's CPU time per request answered, ns: its CPU over the window divided by the
 * requests answered in it (req/s × the window); undefined without both.
 */
export function nsPerRequest(rates: WindowRates, rps: number | undefined): number | undefined {
  if (rates.serverNs === undefined || !(rps && rps > 0) || !(rates.windowSec > 0)) return undefined;
  return rates.serverNs / (rps * rates.windowSec);
}

export interface LoadRun {
  readonly command: string[];
  readonly result: LoadResult | null;
  readonly problem?: string;
  readonly rates: WindowRates;
  readonly peakRssBytes: number;
  /** With workers: each one's CPU over the window, connections held halfway, and whether alive. */
  readonly workers?: WorkerUse[];
  /** With workers: the primary's RSS at the end. */
  readonly primaryRssBytes?: number;
}

/** Each worker's CPU % over the window; the connections it held come from one mid-trial look. */
export function workerUse(
  samples: readonly Sample[],
  window: Window,
  workers: readonly number[],
  connections: ReadonlyMap<number, number>,
  alive: (pid: number) => boolean,
): WorkerUse[] {
  const within = span(samples, window);
  return workers.map((pid, i) => {
    const ticks = (within?.last.workerTicks?.[i] ?? 0) - (within?.first.workerTicks?.[i] ?? 0);
    const cpuPercent = within ? Math.max(0, (ticks / CLK_TCK / within.sec) * 100) : 0;
    return { pid, cpuPercent, connections: connections.get(pid) ?? 0, alive: alive(pid) };
  });
}

/**
 * req/s over the time the load was applied. oha with -w keeps its clock running while it
 * waits (up to the request timeout) for the last in-flight requests: dividing by that total
 * would deflate req/s, so it is capped at the requested time. wrk and autocannon stop at the
 * deadline and their own time is the right denominator; so is ws-load's, which ends at the
 * last message it counts (an echo still in flight at the deadline, one round trip later).
 */
export function windowed(tool: ToolInfo, r: LoadResult, requestedSec: number): LoadResult {
  const windowSec = tool.name === "oha" ? Math.min(r.durationSec, requestedSec) : r.durationSec;
  if (windowSec <= 0) return r;
  const bytes = r.bytesPerSec * r.durationSec;
  return { ...r, windowSec, rps: r.requests / windowSec, bytesPerSec: bytes / windowSec };
}
