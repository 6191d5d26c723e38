// The reports' "CPU time per request" section: per table, each app's server CPU time per
// request (schedstat over the load window / the requests answered in it), measured one app at
// a time, and each as a multiple of the cheapest with its interval (the run's rounds pair the
// apps; one Holm family per table, analysis.ts). The one-at-a-time counterpart of
// --side-by-side's figure, against which that mode's bias is measured (docs/side-by-side.md). Runs before the
// figure was recorded have no section.

import type { Analysis, Difference, SummaryRow } from "../analysis/analysis.ts";
import type { Estimate } from "../analysis/estimate.ts";
import { PAIRED_MIN_ROUNDS } from "../analysis/verdicts.ts";
import { fmt } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const CPU_COST_INTRO =
  "The server's CPU time per request, each app measured alone: every thread's schedstat time " +
  "over the load window divided by the requests answered in it, the mean over processes with " +
  "its 95% CI. × cheapest: the ratio to the cheapest app of the table, from the per-round log " +
  `ratios (paired t) where the two share ${PAIRED_MIN_ROUNDS} rounds or more, else the ratio of the means (Welch's ` +
  "t), one Holm family per table; ≈ marks a ratio not significantly different " +
  "from 1, with the smallest difference the run could have detected. A server that is not " +
  "saturated spends more per request than a saturated one (fewer requests share each wake-up).";
// Stryker restore StringLiteral

export const CPU_COST_HEADER = ["app", "CPU µs per request (95% CI)", "× cheapest (95% CI)"];

export interface CpuCostView {
  readonly group: string;
  readonly rows: string[][];
}

const micro = (ns: number) => fmt(ns / 1000, 2);

/** A row that carries the figure, with it. */
interface Measured {
  readonly row: SummaryRow;
  readonly cost: Estimate;
}

function cells({ row, cost }: Measured, cheapest: Measured, between: Difference): string[] {
  const own = cost.ci
    ? `${micro(cost.mean)} (${micro(cost.ci.low)}–${micro(cost.ci.high)})`
    : micro(cost.mean);
  if (row === cheapest.row) return [row.app, own, "×1.000 (the cheapest)"];
  const t = between.test;
  if (!t) return [row.app, own, `≈×${fmt(cost.mean / cheapest.cost.mean, 3)} (untestable)`];
  const ci = `${fmt(1 + t.ci.low, 3)}–${fmt(1 + t.ci.high, 3)}`;
  const tie = between.significant ? "" : "≈";
  const detect =
    !between.significant && between.mdd !== undefined
      ? `, could detect ≥ ${fmt(between.mdd * 100, 1)}%`
      : "";
  return [row.app, own, `${tie}×${fmt(1 + t.change, 3)} (${ci}${detect})`];
}

/** One view per table whose apps carry the figure, cheapest first. */
export function cpuCostViews(analysis: Analysis): CpuCostView[] {
  return [...analysis.groups].flatMap(([group, g]) => {
    const measured = g.rows
      .flatMap((row) =>
        row.cpuNsPerRequest && row.cpuNsPerRequest.processes > 0
          ? [{ row, cost: row.cpuNsPerRequest }]
          : [],
      )
      .sort((a, b) => a.cost.mean - b.cost.mean);
    const cheapest = measured[0];
    if (!cheapest) return [];
    const rows = measured.map((m) => cells(m, cheapest, g.cpuBetween(cheapest.row.app, m.row.app)));
    return [{ group, rows }];
  });
}
