// One side-by-side sample, judged: the CPU figures over the time both generators ran, and
// whether the sample is valid and what qualifies it. The figure itself, each server's CPU
// time per request, needs both servers saturated on their shared core; what it does not need
// is the generators' headroom, since it is a cost and not a capacity. Pure: pair-load.ts takes
// the samples, and these functions are tested on crafted ones.

import { failures, littlesLaw } from "../load/judge.ts";
import { span, type Window } from "../load/measure.ts";
import type { LoadResult, ToolName } from "../load/parse.ts";
import { CLK_TCK } from "../load/procstats.ts";
import {
  CONTENDED_POINTS,
  CPU_SLACK,
  GENERATOR_CEILING,
  LITTLE_TOLERANCE,
  SERVER_CORE_IDLE,
  STEAL_HIGH,
} from "../load/thresholds.ts";

/** One look at /proc while a pair's generators run. */
export interface PairSample {
  /** ms, performance.now() */
  readonly t: number;
  /** Each server tree's CPU time so far, ns (schedstat), in slot order. */
  readonly serverNs: readonly [number, number];
  /** Each generator's CPU ticks so far (0 once it is gone), in slot order. */
  readonly toolTicks: readonly [number, number];
  /** Idle ticks of the servers' CPU set, and of the generators'. */
  readonly serverIdleTicks: number;
  readonly loadIdleTicks: number;
  /** Steal, summed over every CPU. */
  readonly stealTicks: number;
  /** Steal on the servers' CPU set. */
  readonly serverStealTicks?: number;
}

export interface PairRates {
  /** Each server's CPU over the window, % of one core, in slot order. */
  readonly serverCpuPercent: readonly [number, number];
  readonly loadCpuPercent: readonly [number, number];
  /** Idle share of the servers' CPU set and of the generators' (pinned only). */
  readonly serverCoreIdlePercent?: number;
  readonly loadCoreIdlePercent?: number;
  /** % of all the machine's cores. */
  readonly stealPercent: number;
  /** Steal on the servers' CPU set, % of it (pinned only). */
  readonly serverStealPercent?: number;
  readonly windowSec: number;
}

/** The time both generators loaded their servers: the overlap of their two load windows. */
export function overlap(a: Window, b: Window): Window {
  return { startMs: Math.max(a.startMs, b.startMs), endMs: Math.min(a.endMs, b.endMs) };
}

/** CPU figures over the samples inside the window; undefined when fewer than two fall in it. */
export function pairRates(
  samples: readonly PairSample[],
  window: Window,
  cores: { readonly machine: number; readonly server: number; readonly load: number },
): PairRates | undefined {
  const within = span(samples, window);
  if (!within) return undefined;
  const { first, last, sec } = within;
  const ticks = (n: number) => Math.max(0, (n / CLK_TCK / sec) * 100);
  const ns = (i: 0 | 1) => Math.max(0, ((last.serverNs[i] - first.serverNs[i]) / 1e9 / sec) * 100);
  const tool = (i: 0 | 1) => ticks(last.toolTicks[i] - first.toolTicks[i]);
  const idle = (n: number, of: number) => (of > 0 ? { value: ticks(n) / of } : undefined);
  const serverIdle = idle(last.serverIdleTicks - first.serverIdleTicks, cores.server);
  const loadIdle = idle(last.loadIdleTicks - first.loadIdleTicks, cores.load);
  const stolen =
    first.serverStealTicks === undefined || last.serverStealTicks === undefined
      ? undefined
      : idle(last.serverStealTicks - first.serverStealTicks, cores.server);
  return {
    serverCpuPercent: [ns(0), ns(1)],
    loadCpuPercent: [tool(0), tool(1)],
    ...(serverIdle ? { serverCoreIdlePercent: serverIdle.value } : {}),
    ...(loadIdle ? { loadCoreIdlePercent: loadIdle.value } : {}),
    stealPercent: ticks(last.stealTicks - first.stealTicks) / cores.machine,
    ...(stolen ? { serverStealPercent: stolen.value } : {}),
    windowSec: sec,
  };
}

/** One side of a sample: an app, its generator's result and its server's CPU time. */
export interface SideMeasurement {
  readonly app: string;
  readonly result: LoadResult | null;
  /** The generator failed (hung, unreadable output). */
  readonly problem?: string;
  /** The app exited during the sample. */
  readonly appDied?: string;
  readonly connections: number;
  /** The server's CPU time from just before its generator started to just after it ended, ns. */
  readonly cpuNs: number;
  /** Threads of its server that exited meanwhile (their time in the sample is not counted). */
  readonly threadsExited?: number;
}

export interface PairMeasurement {
  readonly tool: ToolName;
  readonly requestedSec: number;
  /** In slot order. */
  readonly sides: readonly [SideMeasurement, SideMeasurement];
  /** undefined: the window held too few /proc looks to measure CPU. */
  readonly rates?: PairRates;
  /** Cores of the servers' CPU set, and of the generators' (pinned: 1 and 1 on two cores). */
  readonly serverCores: number;
  readonly loadCores: number;
}

export interface PairChecks {
  readonly valid: boolean;
  readonly invalidReasons: string[];
  /** The servers' core had idle time: neither server was saturated while they shared it. */
  readonly unsaturated: boolean;
  /** ...because the generators had used all they can (GENERATOR_CEILING of their cores). */
  readonly generatorCeiling: boolean;
  /** Something else had the servers' core, or the hypervisor withheld it (steal). */
  readonly contended: boolean;
  readonly notes: string[];
}

const sum = (pair: readonly [number, number]) => pair[0] + pair[1];

/** What makes a side's figure unusable: the load run's own failures, an impossible in-flight. */
function sideFailures(m: PairMeasurement, side: SideMeasurement): string[] {
  const out = failures({ ...side, tool: m.tool, requestedSec: m.requestedSec });
  const little = littlesLaw({ ...side, tool: m.tool });
  if (little.checked && little.ratio > 1 + LITTLE_TOLERANCE) {
    out.push(
      `in-flight requests ${little.inFlight.toFixed(1)} exceed the ${side.connections} ` +
        `connections (×${little.ratio.toFixed(2)}): req/s and latency contradict each other`,
    );
  }
  if ((side.result?.requests ?? 0) > 0 && !(side.cpuNs > 0)) {
    out.push("no CPU time measured for its server");
  }
  return out.map((reason) => `${side.app}: ${reason}`);
}

function cpuInconsistencies(m: PairMeasurement, r: PairRates): string[] {
  const out: string[] = [];
  if (sum(r.serverCpuPercent) > m.serverCores * 100 * CPU_SLACK) {
    out.push(
      `the servers' CPU ${sum(r.serverCpuPercent).toFixed(0)}% exceeds their ${m.serverCores} core(s)`,
    );
  }
  if (sum(r.loadCpuPercent) > m.loadCores * 100 * CPU_SLACK) {
    out.push(
      `the generators' CPU ${sum(r.loadCpuPercent).toFixed(0)}% exceeds their ${m.loadCores} core(s)`,
    );
  }
  return out;
}

/** Why the servers' core was not theirs alone, or undefined. */
function contention(m: PairMeasurement, r: PairRates): string | undefined {
  const reasons: string[] = [];
  if (r.serverCoreIdlePercent !== undefined) {
    const busy = 100 - r.serverCoreIdlePercent;
    const own = sum(r.serverCpuPercent) / Math.max(1, m.serverCores);
    if (busy - own > CONTENDED_POINTS) {
      reasons.push(
        `the servers' core was ${busy.toFixed(0)}% busy while they used ${own.toFixed(0)}% of it`,
      );
    }
  }
  if (r.stealPercent > STEAL_HIGH) reasons.push(`CPU steal ${r.stealPercent.toFixed(1)}%`);
  return reasons.length === 0 ? undefined : `contended: ${reasons.join(", ")}`;
}

/** The judgement of one sample of a pair. */
export function judgePair(m: PairMeasurement): PairChecks {
  const reasons = [...sideFailures(m, m.sides[0]), ...sideFailures(m, m.sides[1])];
  const notes: string[] = m.sides.flatMap((s) =>
    s.threadsExited
      ? [
          `${s.app}: ${s.threadsExited} server thread(s) exited during the sample; their CPU time in it is not counted`,
        ]
      : [],
  );
  const r = m.rates;
  if (!r) {
    notes.push("CPU not measured over the window: too short to sample");
    return {
      valid: reasons.length === 0,
      invalidReasons: reasons,
      unsaturated: false,
      generatorCeiling: false,
      contended: false,
      notes,
    };
  }
  reasons.push(...cpuInconsistencies(m, r));
  const idle = r.serverCoreIdlePercent;
  const loadShare = sum(r.loadCpuPercent) / (100 * m.loadCores);
  const loadFull =
    loadShare >= GENERATOR_CEILING ||
    (r.loadCoreIdlePercent !== undefined && r.loadCoreIdlePercent <= (1 - GENERATOR_CEILING) * 100);
  const room = idle !== undefined && idle >= SERVER_CORE_IDLE * 100;
  const generatorCeiling = room && loadFull;
  const cpu =
    `servers ${r.serverCpuPercent.map((c) => c.toFixed(0)).join("% + ")}% of their core` +
    (idle === undefined ? "" : ` (${idle.toFixed(0)}% idle)`) +
    `, generators ${r.loadCpuPercent.map((c) => c.toFixed(0)).join("% + ")}%` +
    (r.loadCoreIdlePercent === undefined
      ? ""
      : ` (their core ${r.loadCoreIdlePercent.toFixed(0)}% idle)`);
  if (generatorCeiling)
    notes.push(
      `generator ceiling: the generators used all they can while the servers' core had room (${cpu})`,
    );
  else if (room) notes.push(`unsaturated: the servers did not fill their core (${cpu})`);
  const contended = contention(m, r);
  if (contended) notes.push(contended);
  return {
    valid: reasons.length === 0,
    invalidReasons: reasons,
    unsaturated: room && !generatorCeiling,
    generatorCeiling,
    contended: contended !== undefined,
    notes,
  };
}
