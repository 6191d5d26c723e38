// Comparing two runs (--compare; report/compare.ts renders it): per app and scenario, the change in req/s and p99, and whether the req/s
// change stands out from the noise. A CI job gates on the exit code: 1 when any app got
// slower by more than the threshold (and significantly so), or failed, went unmeasured or is
// missing in the new run.
//
// The statistics are the summary's (estimate.ts, verdicts.ts): each run's mean over its processes, Holm over
// the pairs; the test is Welch's on process means, since two runs share no rounds to pair. A regression gate asks "slower?", so that test
// is one-sided. "No change beyond the threshold" is a claim too, and is made only when an
// equivalence test (TOST: both one-sided tests against ±threshold) says so, under the same
// Holm control; a change the data cannot place inside or outside the threshold is
// "inconclusive", with the smallest change the pair could have detected.

import type { Results, Trial } from "../results/schema.ts";
import { processSamples } from "./analysis.ts";
import { type Estimate, estimate } from "./estimate.ts";
import { type Group, groupsOf, inGroup } from "./groups.ts";
import { settingMismatches } from "./settings.ts";
import { median } from "./stats.ts";
import { counted, exclusionOf } from "./steal.ts";
import { ALPHA, type Gate, gate, type PairTest, welchPair } from "./verdicts.ts";

export { holm } from "./stats.ts";

export interface CompareOptions {
  /** A slowdown beyond this fraction of req/s (0.05 = 5%) is a regression... */
  readonly threshold: number;
  /**
   * ...when significant with this family-wise error rate over all the pairs tested (Holm), or
   * always with fewer than 2 processes a side, where there is no spread to test against.
   */
  readonly alpha: number;
}

export const DEFAULT_COMPARE: CompareOptions = { threshold: 0.05, alpha: ALPHA };

export type Finding =
  | "regression"
  | "improvement"
  | "no change beyond the threshold"
  | "inconclusive"
  | "not comparable"
  | "failed"
  | "not measured"
  | "missing";

/** Findings that fail the gate (exit 1); a Finding is what --compare says of one app. */
export const GATING: readonly Finding[] = ["regression", "failed", "not measured", "missing"];

export interface ComparisonRow {
  readonly app: string;
  readonly scenario: string;
  readonly baseRps: number;
  readonly newRps: number;
  /** new / base − 1 */
  readonly rpsChange: number;
  /** Medians of the samples' p99: one slow sample should not move a number that is not gated. */
  readonly baseP99: number;
  readonly newP99: number;
  readonly p99Change: number;
  readonly test?: PairTest;
  /** One-sided p-value in the direction the mean moved. */
  readonly p?: number;
  /** TOST p: that the true change lies beyond ±threshold. */
  readonly equivalenceP?: number;
  /**
   * The smallest |rpsChange| a one-sided test at the strictest Holm level (alpha / pairs
   * tested) would detect with 80% power at this pair's spread; absent without 2 processes a side.
   */
  readonly detectable?: number;
  readonly verdict: Finding;
  readonly note?: string;
}

/**
 * Every difference between the runs' setups that makes their req/s incomparable: the schema,
 * every measured setting (settings.ts, the list the history's series are kept apart by), and
 * the machines.
 */
export function runMismatches(base: Results, next: Results): string[] {
  const facts: [string, (r: Results) => string][] = [
    ["machine", ({ manifest: { machine: m } }) => `${m.cpuModel}, ${m.cores} cores`],
    [
      "server host",
      ({ manifest: { serverHost: h } }) =>
        h ? `${h.machine.cpuModel}, ${h.machine.cores} cores` : "the load generator's",
    ],
  ];
  const differ = ([name, of]: [string, (r: Results) => string]) =>
    of(base) === of(next) ? [] : [`${name}: ${of(base)} vs ${of(next)}`];
  return [
    ...differ(["schema version", (r) => String(r.schemaVersion)]),
    ...settingMismatches(base.manifest, next.manifest),
    ...facts.flatMap(differ),
  ];
}

/** The samples that count (valid, not lost to steal: analysis/steal.ts) of an app in a group. */
const validTrials = (results: Results, app: string, group: Group) => {
  const keep = counted(exclusionOf(results));
  return results.trials.filter(
    (t): t is Trial & { result: NonNullable<Trial["result"]> } =>
      t.app === app && inGroup(t, group) && keep(t) && t.result !== null,
  );
};

interface Pair {
  readonly app: string;
  readonly scenario: string;
  readonly base: Estimate;
  readonly next: Estimate;
  readonly baseP99: number;
  readonly newP99: number;
  readonly test?: PairTest;
  /** Why the new run cannot pass, whatever the numbers: failed, not measured, missing. */
  readonly problem?: { verdict: Finding; note: string };
}

function newRunProblem(next: Results, app: string, measured: boolean): Pair["problem"] {
  const record = next.apps.find((a) => a.name === app);
  if (!record) return { verdict: "missing", note: "in the base run, not in the new one" };
  if (record.status === "failed") {
    return { verdict: "failed", note: (record.failure ?? "failed").split("\n")[0] as string };
  }
  if (!measured) return { verdict: "not measured", note: "no valid samples in the new run" };
  return undefined;
}

function measure(base: Results, next: Results, app: string, group: Group): Pair {
  const a = validTrials(base, app, group);
  const b = validTrials(next, app, group);
  const baseEst = estimate(processSamples(a));
  const nextEst = estimate(processSamples(b));
  const test = welchPair(baseEst, nextEst);
  const problem = newRunProblem(next, app, b.length > 0);
  return {
    app,
    scenario: group.key,
    base: baseEst,
    next: nextEst,
    baseP99: median(a.map((t) => t.result.latencyMs.p99)),
    newP99: median(b.map((t) => t.result.latencyMs.p99)),
    ...(test && !problem ? { test } : {}),
    ...(problem ? { problem } : {}),
  };
}

/** The apps to pair: the new run's, then those only the base run had (missing now). */
const appsOf = (base: Results, next: Results): string[] => [
  ...new Set([...next.manifest.settings.apps, ...base.manifest.settings.apps]),
];

export function compareRuns(
  base: Results,
  next: Results,
  options: CompareOptions = DEFAULT_COMPARE,
): ComparisonRow[] {
  const groups = groupsOf(next);
  const pairs = groups.flatMap((g) => appsOf(base, next).map((app) => measure(base, next, app, g)));
  const gates = gate(
    pairs.map((p, i) => ({ key: String(i), test: p.test })),
    options.threshold,
    options.alpha,
  );
  return pairs.map((p, i) => judge(p, gates.get(String(i)), options.threshold));
}

function untested(pair: Pair, threshold: number): ComparisonRow {
  const { app, scenario, baseP99, newP99 } = pair;
  const baseRps = pair.base.mean;
  const newRps = pair.next.mean;
  const row = { app, scenario, baseRps, newRps, rpsChange: newRps / baseRps - 1, baseP99, newP99 };
  const p99Change = newP99 / baseP99 - 1;
  if (pair.problem) return { ...row, p99Change, ...pair.problem };
  if (pair.base.processes === 0) {
    return {
      ...row,
      rpsChange: Number.NaN,
      p99Change: Number.NaN,
      verdict: "not comparable",
      note: "no valid samples in the base run",
    };
  }
  const note = "threshold only (fewer than 2 processes a side, no spread to test against)";
  if (row.rpsChange <= -threshold) return { ...row, p99Change, verdict: "regression", note };
  if (row.rpsChange >= threshold) return { ...row, p99Change, verdict: "improvement", note };
  return { ...row, p99Change, verdict: "inconclusive", note };
}

/** The row of a pair: the gate's verdict where it was tested, the threshold's where not. */
function judge(pair: Pair, gated: Gate | undefined, threshold: number): ComparisonRow {
  const { test } = pair;
  const row = untested(pair, threshold);
  if (test === undefined || gated === undefined) return row;
  const { note: _, ...clean } = row;
  const { verdict, p, equivalenceP, detectable, note } = gated;
  return { ...clean, test, p, equivalenceP, detectable, verdict, ...(note ? { note } : {}) };
}
