// Comparing two runs: per app and scenario, the change in req/s and p99, and whether the req/s
// change is beyond the noise of the two runs' trials (Welch's t-test). A CI job fails on the
// exit code: 1 when any app got slower by more than the threshold, and significantly so.

import type { Results, Trial } from "../schema.ts";
import { spread, type WelchResult, welch } from "../stats.ts";
import { change, fmt } from "./format.ts";

export interface CompareOptions {
  /** A slowdown beyond this fraction of req/s (0.05 = 5%) is a regression... */
  readonly threshold: number;
  /**
   * ...when Welch's t-test gives p below this divided by the number of comparisons (Bonferroni:
   * twelve app × scenario pairs at 0.05 each would raise a false alarm every other run), or
   * cannot be run (fewer than 2 trials a side).
   */
  readonly alpha: number;
}

export const DEFAULT_COMPARE: CompareOptions = { threshold: 0.05, alpha: 0.05 };

export type Verdict = "regression" | "improvement" | "within noise" | "not comparable";

export interface ComparisonRow {
  readonly app: string;
  readonly scenario: string;
  readonly baseRps: number;
  readonly newRps: number;
  /** new / base − 1 */
  readonly rpsChange: number;
  readonly baseP99: number;
  readonly newP99: number;
  readonly p99Change: number;
  readonly test?: WelchResult;
  readonly verdict: Verdict;
  readonly note?: string;
}

const validTrials = (results: Results, app: string, scenario: string) =>
  results.trials.filter(
    (t): t is Trial & { result: NonNullable<Trial["result"]> } =>
      t.app === app && t.scenario === scenario && t.checks.valid && t.result !== null,
  );

export function compareRuns(
  base: Results,
  next: Results,
  options: CompareOptions = DEFAULT_COMPARE,
): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  const pairs = next.manifest.settings.scenarios.flatMap((scenario) =>
    next.manifest.settings.apps.map((app) => ({ app, scenario })),
  );
  const comparable = pairs.filter(
    ({ app, scenario }) =>
      validTrials(base, app, scenario).length > 0 && validTrials(next, app, scenario).length > 0,
  ).length;
  const alphaEach = options.alpha / Math.max(1, comparable);
  for (const scenario of next.manifest.settings.scenarios) {
    for (const app of next.manifest.settings.apps) {
      const a = validTrials(base, app, scenario);
      const b = validTrials(next, app, scenario);
      const baseRps = spread(a.map((t) => t.result.rps)).mean;
      const newRps = spread(b.map((t) => t.result.rps)).mean;
      const baseP99 = spread(a.map((t) => t.result.latencyMs.p99)).mean;
      const newP99 = spread(b.map((t) => t.result.latencyMs.p99)).mean;
      const common = { app, scenario, baseRps, newRps, baseP99, newP99 };
      if (a.length === 0 || b.length === 0) {
        rows.push({
          ...common,
          rpsChange: Number.NaN,
          p99Change: Number.NaN,
          verdict: "not comparable",
          note: `no valid trials in the ${a.length === 0 ? "base" : "new"} run`,
        });
        continue;
      }
      const rpsChange = newRps / baseRps - 1;
      const test = welch(
        a.map((t) => t.result.rps),
        b.map((t) => t.result.rps),
      );
      // Without two trials a side there is no noise estimate: the threshold alone decides.
      const significant = test === undefined || test.p < alphaEach;
      let verdict: Verdict = "within noise";
      if (significant && rpsChange <= -options.threshold) verdict = "regression";
      else if (significant && rpsChange >= options.threshold) verdict = "improvement";
      rows.push({
        ...common,
        rpsChange,
        p99Change: newP99 / baseP99 - 1,
        ...(test ? { test } : {}),
        verdict,
        ...(test ? {} : { note: "fewer than 2 trials: threshold only, no significance test" }),
      });
    }
  }
  return rows;
}

export function formatComparison(rows: readonly ComparisonRow[], options: CompareOptions): string {
  const comparable = rows.filter((r) => r.verdict !== "not comparable").length;
  const header = [
    "scenario",
    "app",
    "base req/s",
    "new req/s",
    "change",
    "p",
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
    r.test ? r.test.p.toPrecision(2) : "—",
    `${fmt(r.baseP99, 2)} → ${fmt(r.newP99, 2)}`,
    change(r.p99Change),
    (r.verdict === "regression" ? "REGRESSION" : r.verdict) + (r.note ? ` (${r.note})` : ""),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const regressions = rows.filter((r) => r.verdict === "regression").length;
  return [
    `Regression: req/s down by more than ${fmt(options.threshold * 100, 1)}% and Welch's t-test over the trials ` +
      `p < ${options.alpha}/${comparable} (Bonferroni over ${comparable} comparisons).`,
    "",
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line),
    "",
    regressions > 0 ? `${regressions} regression(s)` : "no regression",
  ].join("\n");
}
