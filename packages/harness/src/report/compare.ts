// --compare's text: the comparison of two runs (analysis/comparison.ts) as a table with its
// reading and a closing line. Every figure and verdict comes from there.

import {
  type CompareOptions,
  type ComparisonRow,
  type Finding,
  GATING,
} from "../analysis/comparison.ts";
import { change, fmt } from "./format.ts";
import { textTable } from "./text-table.ts";

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
    (GATING.includes(r.verdict) ? r.verdict.toUpperCase() : r.verdict) +
      (r.note ? `: ${r.note}` : ""),
  ]);
  return textTable(header, body);
}

const detectableCell = (r: ComparisonRow): string => {
  if (r.detectable !== undefined) return `≥ ${fmt(r.detectable * 100, 1)}%`;
  return r.note?.startsWith("threshold only") ? "threshold only" : "—";
};

/** `mismatches`: the runs' setup differences the user chose to compare across anyway. */
export function formatComparison(
  rows: readonly ComparisonRow[],
  options: CompareOptions,
  mismatches: readonly string[] = [],
): string {
  const m = rows.filter((r) => r.test !== undefined).length;
  const count = (v: Finding) => rows.filter((r) => r.verdict === v).length;
  const regressions = count("regression");
  const inconclusive = count("inconclusive");
  const broken = count("failed") + count("not measured") + count("missing");
  const threshold = `${fmt(options.threshold * 100, 1)}%`;
  return [
    ...(mismatches.length > 0 ? [`COMPARED DESPITE MISMATCH: ${mismatches.join("; ")}`, ""] : []),
    `Regression: req/s down by more than ${threshold}, and significantly so by a one-sided`,
    `Welch's t-test on the runs' process means, with Holm's step-down over the ${m} pair(s) tested`,
    `(family-wise error ${options.alpha}); fewer than 2 processes a side: threshold only. No change`,
    `beyond the threshold: shown by an equivalence test (two one-sided tests against ±${threshold},`,
    "Holm over the pairs); otherwise inconclusive. Detectable: the smallest change the pair would",
    `detect with 80% power at Holm's strictest level ${options.alpha}/${m} (conservative).`,
    "An app that failed, was not measured or is missing in the new run fails the comparison;",
    "an inconclusive pair does not: read its detectable change.",
    "p99: median of the samples' p99, never gated.",
    "",
    ...table(rows),
    "",
    (regressions > 0 ? `${regressions} regression(s)` : "no regression detected") +
      (broken > 0 ? `; ${broken} app(s) failed, not measured or missing in the new run` : "") +
      (inconclusive > 0
        ? `; ${inconclusive} pair(s) inconclusive: a change beyond ${threshold} there could have gone unseen`
        : ""),
  ].join("\n");
}
