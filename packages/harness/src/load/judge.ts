// The judgement of one trial: is it valid, and what qualifies its numbers. Pure: it sees only
// what was measured, so every threshold (thresholds.ts) is tested on crafted measurements at
// both sides.

import type { Trial } from "../results/schema.ts";
import type { LoadResult, ToolName } from "./parse.ts";
import {
  AUTOCANNON_MIN_MEAN_MS,
  CEILING_CORE_IDLE,
  CEILING_IN_FLIGHT,
  CONTENDED_POINTS,
  CPU_SLACK,
  ERROR_THRESHOLD,
  GENERATOR_CEILING,
  LINK_FULL,
  LITTLE_IDLE,
  LITTLE_TOLERANCE,
  LOAD_BUSY,
  MACHINE_FULL,
  MIN_WINDOW_SHARE,
  OPEN_LOAD_BUSY,
  RTT_SHARE,
  SERVER_BUSY,
  SERVER_CORE_IDLE,
  STEAL_HIGH,
} from "./thresholds.ts";

export interface Measurement {
  readonly tool: ToolName;
  readonly result: LoadResult | null;
  /** The tool failed (hung, unreadable output). */
  readonly problem?: string;
  /** The app exited during the trial. */
  readonly appDied?: string;
  readonly requestedSec: number;
  readonly connections: number;
  /** Over the load window, % of one core. */
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  /** Load threads the tool runs. */
  readonly threads: number;
  /** Pinned: the tool's CPU set and the server's are separate. */
  readonly pinned: boolean;
  /** Cores of the tool's CPU set (pinned) or of the machine (unpinned). */
  readonly loadCores: number;
  /** Cores of the server's CPU set (pinned) or of the machine (unpinned). */
  readonly serverCores: number;
  /** Processes serving the port (--workers); 1 when absent. */
  readonly workers?: number;
  readonly stealPercent: number;
  /** Idle share of the server's own CPU set (pinned runs); undefined when it has none. */
  readonly serverCoreIdlePercent?: number;
  /** The window the CPU figures cover; 0 when it held too few samples to measure. */
  readonly cpuWindowSec: number;
  /** A run across two hosts: the round trip between them and the link's speed (where known). */
  readonly network?: { readonly rttMs: number; readonly linkMbps?: number };
  /**
   * --db postgres: the database server's CPU over the window, % of a core. It runs on the
   * server's CPUs (as SQLite runs inside the app): its share of them is not contention.
   */
  readonly databaseCpuPercent?: number;
}

/**
 * Across two hosts the network is a bound of its own: bytes/s near the link's speed, or (at
 * low concurrency) the round trip most of each request's time. Undefined: not network-bound.
 */
export function networkNote(m: Measurement): string | undefined {
  const r = m.result;
  if (!m.network || !r) return undefined;
  const { rttMs, linkMbps } = m.network;
  const mbps = (r.bytesPerSec * 8) / 1e6;
  if (linkMbps !== undefined && mbps >= LINK_FULL * linkMbps) {
    return `network-bound: ${mbps.toFixed(0)} Mbit/s of the ${linkMbps} Mbit/s link`;
  }
  const mean = r.latencyMs.mean;
  if (mean > 0 && rttMs >= RTT_SHARE * mean) {
    const share = ((rttMs / mean) * 100).toFixed(0);
    return (
      `network-bound: the ${rttMs.toFixed(3)} ms round trip between the hosts is ${share}% ` +
      `of the mean latency (${mean.toFixed(3)} ms): more connections would hide it`
    );
  }
  return undefined;
}

/**
 * The cores the load generator could keep busy: no more than its threads, nor its CPU set;
 * unpinned it shares the machine, so no more than what the server left.
 */
export function generatorCapacity(m: Measurement): number {
  const cores = m.pinned ? m.loadCores : Math.max(0.05, m.loadCores - m.serverCpuPercent / 100);
  return Math.min(m.threads, cores);
}

/** What makes a load run's figures unusable, whoever the server shared its core with. */
export function failures(
  m: Pick<Measurement, "problem" | "appDied" | "result" | "requestedSec" | "tool">,
): string[] {
  const reasons: string[] = [];
  const r = m.result;
  if (m.problem) reasons.push(m.problem);
  if (m.appDied) reasons.push(m.appDied);
  if (!r) return reasons;
  const failed = r.non2xx + r.socketErrors + r.timeouts;
  // Nothing answered is said once, with what failed: not also as "N failed requests = 100%".
  if (r.requests === 0) {
    const what = `${r.socketErrors} socket errors, ${r.timeouts} timeouts`;
    reasons.push(failed > 0 ? `no responses (${what})` : "no responses");
  }
  const errorRate = errorRateOf(r);
  if (r.requests > 0 && errorRate > ERROR_THRESHOLD) {
    reasons.push(
      `${failed} failed requests (${r.non2xx} ${r.expectedStatus ? `not ${r.expectedStatus}` : "non-2xx"}, ${r.socketErrors} socket errors, ` +
        `${r.timeouts} timeouts) = ${(errorRate * 100).toFixed(3)}% > ${ERROR_THRESHOLD * 100}%`,
    );
  }
  if (r.durationSec < MIN_WINDOW_SHARE * m.requestedSec) {
    reasons.push(
      `${m.tool} measured ${r.durationSec.toFixed(2)} s of the ${m.requestedSec} s asked for`,
    );
  }
  // No request can take longer than the tool ran (oha -w runs past the requested time, and
  // the stragglers it waits for are measured): a longer p99 is a unit or parsing error.
  const ranSec = Math.max(r.durationSec, m.requestedSec);
  if (r.latencyMs.p99 > ranSec * 1000) {
    reasons.push(
      `p99 ${r.latencyMs.p99.toFixed(0)} ms is longer than the ${ranSec.toFixed(2)} s the tool ran: not a measured latency`,
    );
  }
  return reasons;
}

/** (non-2xx + socket errors + timeouts) / requests; 1 when nothing was answered. */
function errorRateOf(r: LoadResult): number {
  return r.requests > 0 ? (r.non2xx + r.socketErrors + r.timeouts) / r.requests : 1;
}

function cpuInconsistencies(m: Measurement): string[] {
  const out: string[] = [];
  if (m.serverCpuPercent > m.serverCores * 100 * CPU_SLACK)
    out.push(`server CPU ${m.serverCpuPercent.toFixed(0)}% exceeds its ${m.serverCores} core(s)`);
  if (m.loadCpuPercent > m.loadCores * 100 * CPU_SLACK)
    out.push(`${m.tool} CPU ${m.loadCpuPercent.toFixed(0)}% exceeds its ${m.loadCores} core(s)`);
  const both = m.serverCpuPercent + (m.databaseCpuPercent ?? 0);
  if (m.pinned && m.databaseCpuPercent !== undefined && both > m.serverCores * 100 * CPU_SLACK) {
    out.push(
      `server and database CPU ${both.toFixed(0)}% exceed the server's ${m.serverCores} core(s)`,
    );
  }
  return out;
}

export function littlesLaw(
  m: Pick<Measurement, "result" | "connections" | "tool">,
): Trial["checks"]["littlesLaw"] {
  const r = m.result;
  // Every answered request's latency lies within the time the tool ran (oha -w included, whose
  // stragglers finish after the requested time): over that time the average in flight cannot
  // exceed the connections. req/s over the requested time would count the stragglers' waits
  // against a shorter window.
  const inFlight =
    r && r.durationSec > 0 ? (r.requests * r.latencyMs.mean) / 1000 / r.durationSec : 0;
  const ratio = inFlight / m.connections;
  const checked =
    r !== null &&
    r.requests > 0 &&
    !(m.tool === "autocannon" && r.latencyMs.mean < AUTOCANNON_MIN_MEAN_MS);
  const ok = !checked || (ratio <= 1 + LITTLE_TOLERANCE && ratio >= LITTLE_IDLE);
  return { inFlight, ratio, checked, ok };
}

/**
 * Connections without a counted request in flight: either the load generator did not send
 * (it was saturated), or requests waited for an answer that came late or not at all within
 * the trial; those still open at the end are in no latency figure. Node's HTTP server leaves
 * many of 400 new connections unserved for seconds when it is saturated (docs/findings.md, "What we
 * learned"): the slowest answered request then approaches the trial's length.
 */
function idleNote(m: Measurement, inFlight: number, loadBusy: boolean): string {
  const head = `${inFlight.toFixed(1)} requests in flight on ${m.connections} connections`;
  if (loadBusy) return `${head}: the saturated load generator paced the run`;
  const max = m.result ? `; slowest answered ${m.result.latencyMs.max.toFixed(0)} ms` : "";
  return (
    `${head}, ${m.tool} not saturated: connections waited for answers that came late or not ` +
    `within the trial (requests unanswered at its end are in no latency figure, so the tail is understated)${max}`
  );
}

/** Unpinned, server and generator together used MACHINE_FULL of the machine's cores. */
export function machineFull(m: Measurement): boolean {
  return (
    !m.pinned &&
    m.cpuWindowSec > 0 &&
    m.serverCpuPercent + m.loadCpuPercent >= MACHINE_FULL * 100 * m.loadCores
  );
}

function machineFullNote(m: Measurement): string {
  return (
    `machine full: the server (${m.serverCpuPercent.toFixed(0)}%) and ${m.tool} ` +
    `(${m.loadCpuPercent.toFixed(0)}%) shared ${m.loadCores} cores and kept them busy: ` +
    "neither the server's best nor a load-generator limit"
  );
}

/**
 * Why the server's core was not the server's alone, or undefined. Pinned only: the busy share
 * of the server's own CPU set beyond its own CPU (per core of the set), and steal anywhere.
 */
export function contentionNote(m: Measurement): string | undefined {
  const reasons: string[] = [];
  if (m.serverCoreIdlePercent !== undefined) {
    const busy = 100 - m.serverCoreIdlePercent;
    const own = m.serverCpuPercent / Math.max(1, m.serverCores);
    const database = (m.databaseCpuPercent ?? 0) / Math.max(1, m.serverCores);
    if (busy - own - database > CONTENDED_POINTS)
      reasons.push(
        `the server's core was ${busy.toFixed(0)}% busy while the server used ${own.toFixed(0)}% of it` +
          (m.databaseCpuPercent === undefined ? "" : ` and its database ${database.toFixed(0)}%`),
      );
  }
  if (m.stealPercent > STEAL_HIGH) reasons.push(`CPU steal ${m.stealPercent.toFixed(1)}%`);
  return reasons.length === 0
    ? undefined
    : `contended: ${reasons.join(", ")}: something else had the CPU (not the server's best)`;
}

/**
 * Why the sample may show the generator's ceiling rather than the server's capacity, or
 * undefined: the generator near all it can use, or connections idle while the server's core
 * had room.
 */
export function generatorCeilingNote(
  m: Measurement,
  little: Trial["checks"]["littlesLaw"],
  capacity: number,
): string | undefined {
  if (m.cpuWindowSec <= 0) return undefined;
  const share = m.loadCpuPercent / (100 * capacity);
  if (share >= GENERATOR_CEILING) {
    return (
      `generator ceiling: ${m.tool} used ${(share * 100).toFixed(0)}% of what it can ` +
      `(${capacity.toFixed(2)} cores): a lower bound of the server's capacity`
    );
  }
  const idle = m.serverCoreIdlePercent;
  if (
    little.checked &&
    little.ratio < CEILING_IN_FLIGHT &&
    idle !== undefined &&
    idle >= CEILING_CORE_IDLE
  ) {
    return (
      `generator ceiling: ${little.inFlight.toFixed(1)} requests in flight on ${m.connections} ` +
      `connections (${(little.ratio * 100).toFixed(0)}%) while the server's core was ` +
      `${idle.toFixed(0)}% idle: a lower bound of the server's capacity`
    );
  }
  return undefined;
}

/**
 * --db postgres: the database server used more of the server's CPUs than the app did, so the
 * figure measures the database as much as the app. Undefined: not so, or no such server.
 */
export function databaseNote(m: Measurement): string | undefined {
  const database = m.databaseCpuPercent;
  if (database === undefined || m.cpuWindowSec <= 0 || database <= m.serverCpuPercent) {
    return undefined;
  }
  return (
    `database-bound: the database server used ${database.toFixed(0)}% of a core, the app ` +
    `${m.serverCpuPercent.toFixed(0)}%: the figure measures the database as much as the app`
  );
}

export interface Judgement {
  readonly checks: Trial["checks"];
  readonly capacityCores: number;
}

export function judge(m: Measurement): Judgement {
  const reasons = [...failures(m), ...cpuInconsistencies(m)];
  const little = littlesLaw(m);
  if (little.checked && little.ratio > 1 + LITTLE_TOLERANCE) {
    reasons.push(
      `in-flight requests ${little.inFlight.toFixed(1)} exceed the ${m.connections} connections ` +
        `(×${little.ratio.toFixed(2)}): req/s and latency contradict each other`,
    );
  }
  const capacity = generatorCapacity(m);
  const measured = m.cpuWindowSec > 0;
  const loadBusy = measured && m.loadCpuPercent >= LOAD_BUSY * 100 * capacity;
  // Unmeasured CPU raises no flag of its own: the note below says it is missing.
  const coreFull =
    m.serverCoreIdlePercent !== undefined && m.serverCoreIdlePercent < SERVER_CORE_IDLE * 100;
  // N workers are saturated only when they keep N cores busy (or all the cores they have).
  const serverFull = SERVER_BUSY * 100 * Math.min(m.workers ?? 1, m.serverCores);
  const serverBusy = !measured || m.serverCpuPercent >= serverFull || coreFull;
  const notes: string[] = [];
  if (!measured) notes.push("CPU not measured: the load window was too short to sample");
  const cpu =
    `server ${m.serverCpuPercent.toFixed(0)}% of a core, ${m.tool} ${m.loadCpuPercent.toFixed(0)}% ` +
    `of its ${capacity.toFixed(2)}-core capacity, steal ${m.stealPercent.toFixed(1)}%` +
    (m.serverCoreIdlePercent === undefined
      ? ""
      : `, server's core ${m.serverCoreIdlePercent.toFixed(0)}% idle`);
  // Sharing the cores, a busy generator is a full machine rather than a generator limit.
  const full = machineFull(m) && !serverBusy;
  if (full) notes.push(machineFullNote(m));
  else if (loadBusy && !serverBusy) notes.push(`load generator saturated (${cpu})`);
  if (!loadBusy && !serverBusy && !full) notes.push(`neither side saturated (${cpu})`);
  if (little.checked && little.ratio < LITTLE_IDLE)
    notes.push(idleNote(m, little.inFlight, loadBusy));
  const contention = measured ? contentionNote(m) : undefined;
  if (contention) notes.push(contention);
  const network = networkNote(m);
  if (network) notes.push(network);
  const ceiling = generatorCeilingNote(m, little, capacity);
  if (ceiling) notes.push(ceiling);
  const database = databaseNote(m);
  if (database) notes.push(database);
  return {
    capacityCores: capacity,
    checks: {
      errorRate: m.result ? errorRateOf(m.result) : 0,
      valid: reasons.length === 0,
      invalidReasons: reasons,
      loadGeneratorBound: loadBusy && !serverBusy && !full,
      unsaturated: !loadBusy && !serverBusy && !full,
      contended: contention !== undefined,
      machineFull: full,
      generatorCeiling: ceiling !== undefined,
      ...(m.network ? { networkBound: network !== undefined } : {}),
      ...(m.databaseCpuPercent !== undefined ? { databaseBound: database !== undefined } : {}),
      littlesLaw: little,
      notes,
    },
  };
}

export interface OpenLoopJudgement {
  readonly valid: boolean;
  readonly invalidReasons: string[];
  readonly errorRate: number;
  /** The load generator was saturated: it may not have sent the offered rate. */
  readonly loadGeneratorBound: boolean;
  /** Server and generator shared the cores and filled them (see machineFull). */
  readonly machineFull: boolean;
  readonly capacityCores: number;
}

/**
 * A fixed-rate (open-loop) trial. Its latencies count from when each request was due, so they
 * include waiting at the client for a free connection: in-flight may exceed the connections
 * and Little's law bounds nothing here. A saturated server is expected above capacity, so only
 * the generator's saturation is a qualifier. Failures and impossible CPU figures still count.
 */
export function judgeOpenLoop(m: Measurement): OpenLoopJudgement {
  const reasons = [...failures(m), ...cpuInconsistencies(m)];
  const capacity = generatorCapacity(m);
  const full = machineFull(m);
  return {
    valid: reasons.length === 0,
    invalidReasons: reasons,
    errorRate: m.result ? errorRateOf(m.result) : 0,
    loadGeneratorBound:
      !full && m.cpuWindowSec > 0 && m.loadCpuPercent >= OPEN_LOAD_BUSY * 100 * capacity,
    machineFull: full,
    capacityCores: capacity,
  };
}
