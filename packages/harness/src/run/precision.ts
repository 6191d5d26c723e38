// --precision PCT: a run adds rounds until every app's mean, and every comparison the summary
// makes (each app against the fastest and against its bare baseline), has a 95% confidence
// interval no wider than ±PCT, or its time runs out. This module says, from the analysis of
// the rounds so far, where the run stands. Pure: tested on synthetic runs.

import { type Analysis, baselineName } from "../analysis/analysis.ts";
import { MIN_CI_PROCESSES } from "../analysis/estimate.ts";
import { formatSec } from "../common/time.ts";

export interface Width {
  /** "bun-hono (api)" or "bun-hono vs bun-bare (api)". */
  readonly what: string;
  /** The 95% CI half-width as a share of the mean (of the base, for a comparison). */
  readonly halfWidth: number;
}

export interface PrecisionStatus {
  readonly reached: boolean;
  /** Every width the target applies to, widest first. */
  readonly widths: readonly Width[];
}

/**
 * The widths of a run so far. An app with no valid sample is left out (it cannot narrow:
 * its failure is reported on its own); one with fewer than MIN_CI_PROCESSES processes has
 * no interval yet and counts as infinitely wide.
 */
export function precisionStatus(analysis: Analysis, target: number): PrecisionStatus {
  const widths: Width[] = sideWidths(analysis);
  for (const [key, group] of analysis.groups) {
    for (const row of group.rows) {
      // A failed app is measured no more: its width cannot narrow (its failure is reported).
      if (row.rps.n === 0 || row.status === "failed") continue;
      widths.push({
        what: `${row.app} (${key})`,
        halfWidth: row.estimate.halfWidth ?? Number.POSITIVE_INFINITY,
      });
      const failed = (app: string | undefined) =>
        group.rows.find((r) => r.app === app)?.status === "failed";
      const versus = [
        // rows[0], the fastest, exists: this row is one of the rows.
        { against: (group.rows[0] as { readonly app: string }).app, d: row.vsFastest },
        { against: "its bare baseline", d: row.vsBaseline, app: baselineName(row.app) },
      ];
      for (const { against, d, app } of versus) {
        if (!d || failed(app ?? against)) continue;
        const ci = d.test?.ci;
        const enough = row.rps.n >= MIN_CI_PROCESSES && ci !== undefined;
        widths.push({
          what: `${row.app} vs ${against} (${key})`,
          halfWidth: enough ? (ci.high - ci.low) / 2 : Number.POSITIVE_INFINITY,
        });
      }
    }
  }
  widths.sort((a, b) => b.halfWidth - a.halfWidth);
  return { reached: widths.length > 0 && widths.every((w) => w.halfWidth <= target), widths };
}

/**
 * --side-by-side: each comparison of a row with its reference, its ratio's 95% CI (half its
 * width, as a share of the ratio: the tables' ± column); fewer than MIN_CI_PROCESSES pairs:
 * infinitely wide. A failed row no longer counts.
 */
function sideWidths(analysis: Analysis): Width[] {
  const widths: Width[] = [];
  for (const [key, group] of analysis.side?.groups ?? []) {
    for (const row of group.rows) {
      if (!row.reference || row.status === "failed") continue;
      if (group.rows.find((r) => r.app === row.reference)?.status === "failed") continue;
      widths.push({
        what: `${row.app} vs ${row.reference} (${key})`,
        halfWidth:
          row.ci && row.pairs >= MIN_CI_PROCESSES
            ? (row.ci.high - row.ci.low) / 2 / row.ratio
            : Number.POSITIVE_INFINITY,
      });
    }
  }
  return widths;
}

const pctText = (x: number) => (Number.isFinite(x) ? `±${(x * 100).toFixed(1)}%` : "no CI yet");

/** The progress line after a round. */
export function progressText(
  status: PrecisionStatus,
  target: number,
  elapsedSec: number,
  maxTimeSec: number,
): string {
  const widest = status.widths[0];
  const over = status.widths.filter((w) => w.halfWidth > target).length;
  return (
    `bench: precision ${pctText(target)} wanted: ` +
    (widest ? `widest ${pctText(widest.halfWidth)} (${widest.what}); ` : "") +
    `${over} of ${status.widths.length} not there yet · ${formatSec(elapsedSec)} of ${formatSec(maxTimeSec)}`
  );
}

/** Whether one more round fits: the time left against the longest round so far. */
export const roundFits = (elapsedSec: number, longestRoundSec: number, maxTimeSec: number) =>
  elapsedSec + longestRoundSec <= maxTimeSec;
