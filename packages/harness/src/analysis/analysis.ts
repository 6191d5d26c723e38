// From results.json to one typed analysis that every view renders (terminal summary,
// report.md, report.html, Mermaid, the README section, the curve, workers and versions
// tables): per group (a scenario, or a scenario at one connection or worker count) the apps
// sorted by mean req/s, each with its estimate over processes, its flags, its rank, and its
// comparisons with the fastest app and with its runtime's bare baseline. Every comparison
// of a group belongs to one family, held to ALPHA by Holm (verdicts.ts), so a rank, a tie,
// "of fastest" and "of bare" all come from the same tests. The production tax (each middleware
// stage against the same app's api scenario) is one more family. Computed once per results.

import { baselineOf, findApp } from "@bench/contract";
import type { Results, Trial } from "../results/schema.ts";
import { registryName, versionedName, versionOfName } from "../runtimes/runtime-versions.ts";
import { type CalibrationView, calibrationViews } from "./calibration.ts";
import { type Estimate, estimate, type ProcessSamples, roundComponent } from "./estimate.ts";
import { type Group, groupsOf, inGroup } from "./groups.ts";
import { productionTax, type StageCost } from "./production.ts";
import { rateAnalysis, type ScenarioRates } from "./rate-analysis.ts";
import { analyzeSide, type SideAnalysis } from "./ratios.ts";
import { type ScalingFamily, scalingFamilies, type WorkersRow, workersRows } from "./scaling.ts";
import { type StartupRow, startupRows } from "./startup.ts";
import { type Interval, median, type Quality, qualityOf, type Spread } from "./stats.ts";
import {
  counted,
  type Exclusion,
  exclusionOf,
  type StealSummary,
  stealFlag,
  stealSummary,
} from "./steal.ts";
import { type FlagCounts, flagCounts, TRIAL_FLAGS, type ValidTrial } from "./trial-flags.ts";
import { ALPHA, pairFamily, type Verdict, verdictOf } from "./verdicts.ts";

export { ALPHA };

/** A comparison with another row: the test, Holm's verdict and the detectable change. */
export type Difference = Verdict & {
  /** Two-sided p of the test; undefined when a side has fewer than two processes. */
  readonly p?: number;
};

const asDifference = (v: Verdict): Difference =>
  v.test ? { ...v, p: v.test.p } : { significant: false };

/** A qualifier of a row: `tag` fits in a table cell, `text` explains it. */
export interface Flag {
  readonly tag: string;
  readonly text: string;
}

export interface Rank {
  /** Competition ranking: tied apps share the position of the app that opened their group. */
  readonly position: number;
  /** Not significantly slower than the group's first app (or not testable): shown "≈n". */
  readonly tie: boolean;
  /** For a tie: the smallest difference from the opener this run could have detected. */
  readonly mdd?: number;
}

type Percentiles<T> = { readonly p50: T; readonly p90: T; readonly p99: T; readonly p999: T };
const PERCENTILES = ["p50", "p90", "p99", "p999"] as const;

/** Medians over valid samples of each sample's first-byte p50 and p99, each with its range. */
export interface FirstByteSummary {
  readonly p50: number;
  readonly p50Range: Interval;
  readonly p99: number;
  readonly p99Range: Interval;
  readonly samples: number;
}

/** One app on one scenario (or count): its figures, its flags' counts (FlagCounts), its rank. */
export interface SummaryRow extends FlagCounts {
  readonly app: string;
  readonly scenario: string;
  /** failed: never measured (or stopped being measured); see `failure`. */
  readonly status: "ok" | "failed";
  readonly failure?: string;
  /** Valid samples (one trial record each). */
  readonly validTrials: number;
  /** Every sample taken, valid or not. */
  readonly trials: number;
  /** The processes' mean req/s, in round order: what every test is run on. */
  readonly rpsValues: readonly number[];
  /** The spread of the process means (n: processes). */
  readonly rps: Spread;
  readonly estimate: Estimate;
  /** 95% CI of the mean req/s; only from MIN_CI_PROCESSES processes on. */
  readonly ci?: Interval;
  readonly quality?: Quality;
  /**
   * Medians over the valid samples of each sample's percentile: a percentile of one bad
   * sample must not dominate (a mean of p99s 17.99, 437.65 and 9.93 ms read 155 ms).
   */
  readonly latencyMs: Percentiles<number>;
  /** Lowest and highest of each percentile over the valid samples (NaN when none). */
  readonly latencyRangeMs: Percentiles<Interval>;
  readonly peakRssMiB: number;
  /**
   * The server's CPU time per request (schedstat, ns) over processes, each the mean of its
   * samples; undefined for a run whose trials do not carry it (before it was recorded).
   */
  readonly cpuNsPerRequest?: Estimate;
  /** The time to the answer's first body byte, where the samples' tool reported it (oha). */
  readonly firstByteMs?: FirstByteSummary;
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  readonly rank?: Rank;
  /** mean req/s as a percentage of the fastest app in this group */
  readonly pctOfFastest?: number;
  /** Against the fastest app; undefined for the fastest itself. */
  readonly vsFastest?: Difference;
  /** mean req/s as a percentage of the same runtime's bare app (framework apps only) */
  readonly pctOfBaseline?: number;
  readonly vsBaseline?: Difference;
  /** Everything that qualifies these numbers: failed, invalid samples, load-generator bound... */
  readonly flags: readonly Flag[];
  /** The distinct explanations the valid samples carry (checks.notes), in first-seen order. */
  readonly notes: readonly string[];
}

export interface GroupAnalysis {
  readonly rows: SummaryRow[];
  /** Between-round noise (CoV) shared by every app of a round; undefined: not estimable. */
  readonly roundCov?: number;
  /** Testable pairs in the group's family (the m of Holm's alpha / m). */
  readonly comparisons: number;
  /** The verdict of row `a` against row `b` (b's change relative to a), by app name. */
  readonly between: (a: string, b: string) => Difference;
  /** The same for their CPU time per request (a family of its own); a tie without the figure. */
  readonly cpuBetween: (a: string, b: string) => Difference;
}

export interface Analysis {
  readonly results: Results;
  /** Per group key ("api", "api (c=10)"), in the run's order; none in a side-by-side run. */
  readonly groups: Map<string, GroupAnalysis>;
  /** What each middleware stage costs each app against its api scenario (production.ts). */
  readonly production: readonly StageCost[];
  /** --side-by-side: each row's CPU time per request against its reference (analysis/ratios.ts). */
  readonly side?: SideAnalysis;
  /** The run's CPU steal and the samples --max-steal excluded (analysis/steal.ts). */
  readonly steal: StealSummary;
  readonly exclusion: Exclusion;
  /** --rates: per scenario and app, the listed rates' levels and the search (rate-analysis.ts). */
  readonly rates: readonly ScenarioRates[];
  /** Each app's start-up figures, the quickest to be ready first (startup.ts). */
  readonly startup: readonly StartupRow[];
  /** --workers: each worker's share per app and count, and each app's req/s by count (scaling.ts). */
  readonly workers: readonly WorkersRow[];
  readonly scaling: readonly ScalingFamily[];
  /** --calibrate: the known answer, per table (calibration.ts); none for another run. */
  readonly calibration: readonly CalibrationView[];
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

const range = (values: readonly number[]): Interval =>
  values.length === 0
    ? { low: Number.NaN, high: Number.NaN }
    : { low: Math.min(...values), high: Math.max(...values) };

/**
 * The valid samples of each process (a round of one app), rounds in order: their req/s, or
 * another figure of theirs.
 */
export function processSamples(
  valid: readonly ValidTrial[],
  value: (t: ValidTrial) => number = (t) => t.result.rps,
): ProcessSamples[] {
  const byRound = new Map<number, number[]>();
  for (const t of valid) byRound.set(t.round, [...(byRound.get(t.round) ?? []), value(t)]);
  return [...byRound.entries()]
    .sort(([a], [b]) => a - b)
    .map(([round, values]) => ({ round, values }));
}

/** The CPU time per request over processes, when every valid sample carries it. */
function cpuCostOf(valid: readonly ValidTrial[]): { cpuNsPerRequest?: Estimate } {
  if (valid.length === 0 || valid.some((t) => t.server.cpuNsPerRequest === undefined)) return {};
  return {
    cpuNsPerRequest: estimate(processSamples(valid, (t) => t.server.cpuNsPerRequest as number)),
  };
}

/**
 * The time to the first byte of an answer's body (oha's), as the latency percentiles are read:
 * medians over the valid samples of each sample's p50 and p99, each with its lowest–highest;
 * only where every valid sample carries it (a tool that reports none gives no figure).
 */
function firstByteOf(valid: readonly ValidTrial[]): { firstByteMs?: FirstByteSummary } {
  const figures = valid.flatMap((t) => (t.result.firstByteMs ? [t.result.firstByteMs] : []));
  if (figures.length === 0 || figures.length < valid.length) return {};
  const p50s = figures.map((f) => f.p50);
  const p99s = figures.map((f) => f.p99);
  return {
    firstByteMs: {
      p50: median(p50s),
      p50Range: range(p50s),
      p99: median(p99s),
      p99Range: range(p99s),
      samples: figures.length,
    },
  };
}

function flagsFor(
  trials: readonly Trial[],
  valid: readonly ValidTrial[],
  counts: FlagCounts,
  processes: number,
  exclusion: Exclusion,
  failure?: string,
  unsupported?: string,
): Flag[] {
  const flags: Flag[] = [];
  // The first line says what happened; results.json keeps the app's whole output.
  if (failure !== undefined)
    flags.push({ tag: "FAILED", text: `FAILED: ${failure.split("\n")[0]}` });
  const invalid = trials.filter((t) => !t.checks.valid || t.result === null).length;
  if (invalid > 0) {
    const reasons = [...new Set(trials.flatMap((t) => t.checks.invalidReasons))];
    const tag = `INVALID ${invalid}/${trials.length}`;
    flags.push({ tag, text: `${tag} (${reasons.join("; ")}): excluded` });
  }
  const steal = stealFlag(trials, exclusion);
  if (steal) flags.push(steal);
  for (const { count, tag, why } of TRIAL_FLAGS) {
    const n = counts[count];
    if (n > 0)
      flags.push({
        tag: `${tag} ${n}/${valid.length}`,
        text: `${tag} ${n}/${valid.length}: ${why}`,
      });
  }
  if (processes > 0 && processes < 3)
    flags.push({
      tag: `${processes} PROCESS${processes === 1 ? "" : "ES"}`,
      text:
        `${processes} process${processes === 1 ? "" : "es"} with valid samples: too few samples for a CI` +
        (processes === 1 ? ", and every comparison is a tie (≈)" : ""),
    });
  if (failure === undefined && trials.length === 0) {
    // An app the contract says cannot serve the scenario (the reason is the run's record).
    flags.push(
      unsupported === undefined
        ? { tag: "NOT MEASURED", text: "not measured" }
        : { tag: "NOT SUPPORTED", text: `not supported: ${unsupported}` },
    );
  }
  return flags;
}

type BaseRow = Omit<
  SummaryRow,
  "rank" | "pctOfFastest" | "vsFastest" | "pctOfBaseline" | "vsBaseline"
>;

function rowFor(results: Results, app: string, group: Group, exclusion: Exclusion): BaseRow {
  const record = results.apps.find((a) => a.name === app);
  const trials = results.trials.filter((t) => t.app === app && inGroup(t, group));
  const keep = counted(exclusion);
  const valid = trials.filter((t): t is ValidTrial => keep(t) && t.result !== null);
  const failed = record?.status === "failed";
  const est = estimate(processSamples(valid));
  const percentile = (p: (typeof PERCENTILES)[number]) => valid.map((t) => t.result.latencyMs[p]);
  const of = <T>(f: (values: number[]) => T): Percentiles<T> => ({
    p50: f(percentile("p50")),
    p90: f(percentile("p90")),
    p99: f(percentile("p99")),
    p999: f(percentile("p999")),
  });
  const counts = flagCounts(valid);
  return {
    app,
    scenario: group.key,
    status: failed ? "failed" : "ok",
    ...(failed && record?.failure ? { failure: record.failure } : {}),
    validTrials: valid.length,
    ...counts,
    trials: trials.length,
    rpsValues: est.means,
    rps: { n: est.processes, mean: est.mean, stddev: est.sd, cov: est.cov },
    estimate: est,
    ...(est.ci ? { ci: est.ci } : {}),
    ...(est.processes > 1 ? { quality: qualityOf(est.cov) } : {}),
    latencyMs: of(median),
    latencyRangeMs: of(range),
    peakRssMiB: valid.length > 0 ? Math.max(...valid.map((t) => t.server.peakRssMiB)) : Number.NaN,
    ...cpuCostOf(valid),
    ...firstByteOf(valid),
    serverCpuPercent: mean(valid.map((t) => t.server.cpuPercent)),
    loadCpuPercent: mean(valid.map((t) => t.loadGenerator.cpuPercent)),
    flags: flagsFor(
      trials,
      valid,
      counts,
      est.processes,
      exclusion,
      failed ? (record?.failure ?? "unknown") : undefined,
      results.unsupported?.find((c) => c.app === app && c.scenario === group.scenario)?.reason,
    ),
    notes: [...new Set(valid.flatMap((t) => t.checks.notes))],
  };
}

/**
 * Ranks of rows sorted fastest first. The first measured app opens a group at rank 1; each
 * next app joins the open group (rank "≈k") unless the family's test says it is significantly
 * slower than the app that opened the group, in which case it opens a new group at its own
 * position (1, ≈1, 3). Comparing with the group's opener, not the previous app, keeps a chain
 * of small insignificant steps from adding up to a tie between clearly different apps.
 */
export function rankRows(
  sorted: readonly Pick<SummaryRow, "rps">[],
  versus: (opener: number, row: number) => Verdict,
): (Rank | undefined)[] {
  // The row later rows are tested against: the group's first row that can be tested (two
  // processes or more), so an untestable fastest row does not tie the whole table.
  let opener: number | undefined;
  let openerRank = 0;
  const testable = (i: number) => (sorted[i]?.rps.n ?? 0) >= 2;
  return sorted.map((row, i) => {
    if (row.rps.n === 0) return undefined;
    if (openerRank === 0) {
      openerRank = i + 1;
      opener = testable(i) ? i : undefined;
      return { position: openerRank, tie: false };
    }
    if (opener === undefined) {
      if (testable(i)) opener = i;
      return { position: openerRank, tie: true };
    }
    const v = versus(opener, i);
    if (v.significant) {
      opener = i;
      openerRank = i + 1;
      return { position: openerRank, tie: false };
    }
    return { position: openerRank, tie: true, ...(v.mdd === undefined ? {} : { mdd: v.mdd }) };
  });
}

/**
 * The row a framework app's cost is measured against: the bare app on the same runtime, and in
 * a version matrix on the same version ("node-hono@22.23.3" → "node-bare@22.23.3").
 */
export function baselineName(row: string): string | undefined {
  const spec = findApp(registryName(row));
  if (!spec || spec.framework === "bare") return undefined;
  const version = versionOfName(row);
  const name = baselineOf(spec).name;
  return version === undefined ? name : versionedName(name, version);
}

/** Log process means by round, for the between-round component. */
const byRound = (
  rows: readonly SummaryRow[],
  results: Results,
  group: Group,
  exclusion: Exclusion,
) =>
  rows
    .filter((r) => r.rps.n > 0)
    .map((r) => {
      const keep = counted(exclusion);
      const valid = results.trials.filter(
        (t): t is ValidTrial =>
          t.app === r.app && inGroup(t, group) && keep(t) && t.result !== null,
      );
      return new Map(processSamples(valid).map((p) => [p.round, mean(p.values)]));
    });

function analyzeGroup(results: Results, group: Group, exclusion: Exclusion): GroupAnalysis {
  const rows = results.manifest.settings.apps.map((app) => rowFor(results, app, group, exclusion));
  rows.sort((a, b) => (b.rps.n > 0 ? b.rps.mean : -1) - (a.rps.n > 0 ? a.rps.mean : -1));
  const family = pairFamily(rows.map((r) => r.estimate));
  const cpuFamily = pairFamily(rows.map((r) => r.cpuNsPerRequest ?? estimate([])));
  const index = new Map(rows.map((r, i) => [r.app, i]));
  const comparisons = [...family.values()].filter((v) => v.test).length;
  const reader =
    (f: Map<string, Verdict>) =>
    (a: string, b: string): Difference => {
      const i = index.get(a);
      const j = index.get(b);
      return i === undefined || j === undefined || i === j
        ? { significant: false }
        : asDifference(verdictOf(f, i, j));
    };
  const between = reader(family);
  const fastest = rows[0]?.rps.n ? rows[0] : undefined;
  const measured = (name?: string) => rows.find((r) => r.app === name && r.rps.n > 0);
  const ranks = rankRows(rows, (i, j) => verdictOf(family, i, j));
  const complete: SummaryRow[] = rows.map((row, i) => {
    if (row.rps.n === 0 || fastest === undefined) return row;
    const baseline = measured(baselineName(row.app));
    return {
      ...row,
      ...(ranks[i] ? { rank: ranks[i] } : {}),
      pctOfFastest: (row.rps.mean / fastest.rps.mean) * 100,
      ...(row === fastest ? {} : { vsFastest: between(fastest.app, row.app) }),
      ...(baseline
        ? {
            pctOfBaseline: (row.rps.mean / baseline.rps.mean) * 100,
            vsBaseline: between(baseline.app, row.app),
          }
        : {}),
    };
  });
  const roundCov = roundComponent(byRound(complete, results, group, exclusion));
  return {
    rows: complete,
    comparisons,
    between,
    cpuBetween: reader(cpuFamily),
    ...(roundCov === undefined ? {} : { roundCov }),
  };
}

/**
 * The analysis of a run. Pure and uncached (a running run's results grow in place): the
 * caller computes it once and hands it to every view.
 */
export function analyze(results: Results): Analysis {
  const exclusion = exclusionOf(results);
  const steal = stealSummary(results, exclusion);
  const side = analyzeSide(results);
  const groups = new Map<string, GroupAnalysis>();
  if (!side) {
    for (const group of groupsOf(results)) {
      groups.set(group.key, analyzeGroup(results, group, exclusion));
    }
  }
  const base = {
    results,
    groups,
    production: side ? [] : productionTax(groups),
    ...(side ? { side } : {}),
    steal,
    exclusion,
    rates: rateAnalysis(results),
    startup: startupRows(results.apps).sort((a, b) => a.readyMs.median - b.readyMs.median),
    workers: workersRows(results),
    scaling: [],
    calibration: [],
  };
  return { ...base, scaling: scalingFamilies(base), calibration: calibrationViews(base) };
}

/** Rows per group, fastest first; apps with no valid sample last (a fresh analysis). */
export function summarize(results: Results): Map<string, SummaryRow[]> {
  return new Map([...analyze(results).groups].map(([key, g]) => [key, g.rows]));
}
