// Comparing two runs: per app and scenario, the change in req/s and p99, and whether the req/s
// change stands out from the noise of the two runs' trials. A CI job gates on the exit code: 1
// when any app got slower by more than the threshold, and significantly so.
//
// Three trials a side leave little power, so every choice here is the most powerful one that
// still holds false alarms to alpha over the whole run: a one-sided test (a regression gate asks
// "slower?", not "different?"), and Holm's step-down instead of plain Bonferroni. Where the
// data cannot rule out a change beyond the threshold, the verdict says so instead of "no change".

import { connectionsText, type Group, groupsOf, inGroup, workersText } from "../groups.ts";
import type { Results, Trial } from "../schema.ts";
import { median, spread, tCritical, type WelchResult, welch } from "../stats.ts";
import { change, fmt } from "./format.ts";

export interface CompareOptions {
  /** A slowdown beyond this fraction of req/s (0.05 = 5%) is a regression... */
  readonly threshold: number;
  /**
   * ...when significant with this family-wise error rate over all the pairs tested (Holm), or
   * always with fewer than 2 trials a side, where there is no spread to test against.
   */
  readonly alpha: number;
}

export const DEFAULT_COMPARE: CompareOptions = { threshold: 0.05, alpha: 0.05 };

export type Verdict =
  | "regression"
  | "improvement"
  | "no change beyond the threshold"
  | "inconclusive"
  | "not comparable";

export interface ComparisonRow {
  readonly app: string;
  readonly scenario: string;
  readonly baseRps: number;
  readonly newRps: number;
  /** new / base − 1 */
  readonly rpsChange: number;
  /** Medians of the trials' p99: one slow trial should not move a number that is not gated. */
  readonly baseP99: number;
  readonly newP99: number;
  readonly p99Change: number;
  readonly test?: WelchResult;
  /** One-sided p-value in the direction the mean moved (half the two-sided one). */
  readonly p?: number;
  /**
   * The smallest |rpsChange| that would have been significant at this pair's spread, at the
   * strictest Holm level (alpha / pairs tested); absent without 2 trials a side.
   */
  readonly detectable?: number;
  readonly verdict: Verdict;
  readonly note?: string;
}

/** Every difference between the runs' setups that makes their req/s incomparable. */
export function runMismatches(base: Results, next: Results): string[] {
  const facts: [string, (r: Results) => string][] = [
    ["schema version", (r) => String(r.schemaVersion)],
    ["tool", (r) => `${r.manifest.tool.name} ${r.manifest.tool.version}`],
    ["connections", (r) => connectionsText(r.manifest.settings)],
    ["server processes", (r) => workersText(r.manifest.settings)],
    ["duration", (r) => `${r.manifest.settings.durationSec} s`],
    ["warm-up", (r) => `${r.manifest.settings.warmupSec} s`],
    ["keep-alive", (r) => (r.manifest.settings.keepAlive ? "on" : "off")],
    [
      "pinning",
      ({ manifest: { pinning: p } }) =>
        p.enabled ? `server CPUs ${p.serverCpus ?? "?"}, load CPUs ${p.loadCpus ?? "?"}` : "off",
    ],
    ["machine", ({ manifest: { machine: m } }) => `${m.cpuModel}, ${m.cores} cores`],
  ];
  return facts.flatMap(([name, of]) =>
    of(base) === of(next) ? [] : [`${name}: ${of(base)} vs ${of(next)}`],
  );
}

/**
 * Holm's step-down: the smallest p is held to alpha/m (as Bonferroni holds all), the next to
 * alpha/(m−1), and so on until one fails. The same family-wise error rate as Bonferroni under
 * any dependence, and never less power. Returns, per p-value, whether it is significant.
 */
export function holm(pValues: readonly number[], alpha: number): boolean[] {
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const significant = pValues.map(() => false);
  for (const [rank, { p, i }] of order.entries()) {
    if (!(p < alpha / (pValues.length - rank))) break;
    significant[i] = true;
  }
  return significant;
}

const validTrials = (results: Results, app: string, group: Group) =>
  results.trials.filter(
    (t): t is Trial & { result: NonNullable<Trial["result"]> } =>
      t.app === app && inGroup(t, group) && t.checks.valid && t.result !== null,
  );

interface Pair {
  readonly app: string;
  readonly scenario: string;
  readonly baseRps: readonly number[];
  readonly newRps: readonly number[];
  readonly baseP99: number;
  readonly newP99: number;
  readonly test?: WelchResult;
}

function measure(base: Results, next: Results, app: string, group: Group): Pair {
  const a = validTrials(base, app, group);
  const b = validTrials(next, app, group);
  const baseRps = a.map((t) => t.result.rps);
  const newRps = b.map((t) => t.result.rps);
  const test = welch(baseRps, newRps);
  return {
    app,
    scenario: group.key,
    baseRps,
    newRps,
    baseP99: median(a.map((t) => t.result.latencyMs.p99)),
    newP99: median(b.map((t) => t.result.latencyMs.p99)),
    ...(test ? { test } : {}),
  };
}

/** One-sided p that the new run is slower ("down") or faster ("up") than the base. */
const oneSided = (test: WelchResult, direction: "down" | "up"): number =>
  (direction === "down" ? test.t < 0 : test.t > 0) ? test.p / 2 : 1 - test.p / 2;

/** The |change| whose one-sided Welch test would just reach `alphaEach` at this spread. */
export function detectableChange(
  base: readonly number[],
  next: readonly number[],
  df: number,
  alphaEach: number,
): number {
  const a = spread(base);
  const b = spread(next);
  const se = Math.sqrt(a.stddev ** 2 / a.n + b.stddev ** 2 / b.n);
  // tCritical is two-sided: a one-sided level alphaEach is a two-sided 2 × alphaEach.
  return (tCritical(Math.min(1, 2 * alphaEach), df) * se) / a.mean;
}

export function compareRuns(
  base: Results,
  next: Results,
  options: CompareOptions = DEFAULT_COMPARE,
): ComparisonRow[] {
  const { apps } = next.manifest.settings;
  const pairs = groupsOf(next).flatMap((g) => apps.map((app) => measure(base, next, app, g)));
  const tested = pairs.filter((p): p is Pair & { test: WelchResult } => p.test !== undefined);
  // Slower and faster are two families, each held to alpha: only "slower" fails a build.
  const slower = holm(
    tested.map((p) => oneSided(p.test, "down")),
    options.alpha,
  );
  const faster = holm(
    tested.map((p) => oneSided(p.test, "up")),
    options.alpha,
  );
  const found = new Map<Pair, Found>(
    tested.map((p, i) => [p, { slower: slower[i], faster: faster[i] }]),
  );
  // Holm's strictest step: a change this large is significant whichever step the pair lands on.
  const alphaAtWorst = options.alpha / Math.max(1, tested.length);
  return pairs.map((p) => judge(p, found.get(p), alphaAtWorst, options.threshold));
}

interface Found {
  readonly slower?: boolean;
  readonly faster?: boolean;
}

function judge(
  pair: Pair,
  found: Found | undefined,
  alphaAtWorst: number,
  threshold: number,
): ComparisonRow {
  const { app, scenario, baseP99, newP99, test } = pair;
  const baseRps = spread(pair.baseRps).mean;
  const newRps = spread(pair.newRps).mean;
  const rpsChange = newRps / baseRps - 1;
  const row = { app, scenario, baseRps, newRps, rpsChange, baseP99, newP99 };
  const p99Change = newP99 / baseP99 - 1;
  if (pair.baseRps.length === 0 || pair.newRps.length === 0) {
    const side = pair.baseRps.length === 0 ? "base" : "new";
    return {
      ...row,
      rpsChange: Number.NaN,
      p99Change: Number.NaN,
      verdict: "not comparable",
      note: `no valid trials in the ${side} run`,
    };
  }
  if (test === undefined) {
    const note = "threshold only (fewer than 2 trials a side, no spread to test against)";
    if (rpsChange <= -threshold) return { ...row, p99Change, verdict: "regression", note };
    if (rpsChange >= threshold) return { ...row, p99Change, verdict: "improvement", note };
    return { ...row, p99Change, verdict: "inconclusive", note };
  }
  const detectable = detectableChange(pair.baseRps, pair.newRps, test.df, alphaAtWorst);
  const tested = { ...row, p99Change, test, p: test.p / 2, detectable };
  if (found?.slower && rpsChange <= -threshold) return { ...tested, verdict: "regression" };
  if (found?.faster && rpsChange >= threshold) return { ...tested, verdict: "improvement" };
  if (detectable <= threshold) return { ...tested, verdict: "no change beyond the threshold" };
  return {
    ...tested,
    verdict: "inconclusive",
    note: `only changes ≥ ${fmt(detectable * 100, 1)}% detectable`,
  };
}

function table(rows: readonly ComparisonRow[]): string[] {
  const header = [
    "scenario",
    "app",
    "base req/s",
    "new req/s",
    "change",
    "p (1-sided)",
    "detectable",
    "p99 base→new ms",
    "p99 change",
    "verdict",
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.app,
    fmt(r.baseRps),
    fmt(r.newRps),
    change(r.rpsChange),
    r.p === undefined ? "—" : r.p.toPrecision(2),
    detectableCell(r),
    `${fmt(r.baseP99, 2)} → ${fmt(r.newP99, 2)}`,
    change(r.p99Change),
    (r.verdict === "regression" ? "REGRESSION" : r.verdict) + (r.note ? `: ${r.note}` : ""),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)];
}

const detectableCell = (r: ComparisonRow): string => {
  if (r.detectable !== undefined) return `≥ ±${fmt(r.detectable * 100, 1)}%`;
  return r.verdict === "not comparable" ? "—" : "threshold only";
};

/** `mismatches`: the runs' setup differences the user chose to compare across anyway. */
export function formatComparison(
  rows: readonly ComparisonRow[],
  options: CompareOptions,
  mismatches: readonly string[] = [],
): string {
  const m = rows.filter((r) => r.test !== undefined).length;
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const regressions = count("regression");
  const inconclusive = count("inconclusive");
  const threshold = `${fmt(options.threshold * 100, 1)}%`;
  return [
    ...(mismatches.length > 0 ? [`COMPARED DESPITE MISMATCH: ${mismatches.join("; ")}`, ""] : []),
    `Regression: req/s down by more than ${threshold}, and significantly so by a one-sided`,
    `Welch's t-test over the trials with Holm's step-down over the ${m} pair(s) tested (family-wise`,
    `error ${options.alpha} as with Bonferroni, more power); fewer than 2 trials a side: threshold only.`,
    "Detectable: the smallest change that would have been significant at the observed spread, at",
    `Holm's strictest level ${options.alpha}/${m} (conservative). p99: median of the trials' p99, never gated.`,
    "",
    ...table(rows),
    "",
    (regressions > 0 ? `${regressions} regression(s)` : "no regression detected") +
      (inconclusive > 0
        ? `; ${inconclusive} pair(s) inconclusive: a change beyond ${threshold} there could have gone unseen`
        : ""),
  ].join("\n");
}
