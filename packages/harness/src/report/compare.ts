// Comparing two runs: per app and scenario, the change in req/s and p99, and whether the req/s
// change is beyond the noise of the two runs' trials (Welch's t-test). A CI job fails on the
// exit code: 1 when any app got slower by more than the threshold, and significantly so.

import type { Results, Trial } from "../schema.ts";
import { spread, type WelchResult, welch } from "../stats.ts";
import { change, fmt } from "./format.ts";

export interface CompareOptions {
  /** A slowdown beyond this fraction of req/s (0.05 = 5%) is a regression... */
  readonly threshold: number;
  /** ...when Welch's t-test gives p below this (or cannot be run: fewer than 2 trials a side). */
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
      const significant = test === undefined || test.p < options.alpha;
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
    `Regression: req/s down by more than ${fmt(options.threshold * 100, 1)}% with Welch's t-test p < ${options.alpha} over the trials.`,
    "",
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line),
    "",
    regressions > 0 ? `${regressions} regression(s)` : "no regression",
  ].join("\n");
}
