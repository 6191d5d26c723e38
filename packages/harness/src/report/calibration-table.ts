// The reports' "Calibration" section (--calibrate): each calibration row against the base app,
// what the extra work should cost, what the run measured, its verdict, and how often a run of
// the default length (subsamples of this one's rounds) would have called it different.

import type { Analysis } from "../analysis/analysis.ts";
import {
  CALIBRATION_SHARES_TEXT,
  type CalibrationView,
  SIDE_CALIBRATION_SHARES_TEXT,
} from "../analysis/calibration.ts";
import { change, fmt, pct } from "./format.ts";
import { mddText } from "./summary.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const CALIBRATION_INTRO =
  "bun-bare against itself (+0%: A/A, where no difference exists) and against itself with a " +
  `fixed extra CPU cost per request of ${CALIBRATION_SHARES_TEXT} of its own (BENCH_EXTRA_WORK: loop ` +
  "iterations sized before the rounds from its CPU time per request; every row, the base " +
  "included, runs through the same wrapper). Extra: what the iterations really cost, as a " +
  "share of the base row's CPU time per request over this run's own samples. Expected: the " +
  "change a CPU-bound server shows, 1/(1 + extra) − 1. Verdict: this run's, from the same tests as " +
  "every table (Holm over the table's pairs). Called different: the share of subsamples of " +
  "this run's rounds, each as long as a default run, whose analysis called the row different " +
  "from bun-bare: for +0% the false-positive rate (at most 5% is the promise), for the others " +
  "the detection rate.";
export const SIDE_CALIBRATION_INTRO =
  "Side by side (--side-by-side): bun-bare against itself (+0%: A/A, where no difference " +
  `exists) and against itself with a fixed extra CPU cost per request of ${SIDE_CALIBRATION_SHARES_TEXT} of its ` +
  "own (BENCH_EXTRA_WORK, sized before the rounds; every row, the base included, runs through " +
  "the same wrapper), each pair served at once on one core. Extra: what the iterations really " +
  "cost, as a share of the base row's CPU time per request in this run's own samples. " +
  "Expected: the same share, since the figure is the CPU time per request itself. Verdict: " +
  "this run's (Holm over the table's comparisons). Called different: the share of subsamples " +
  "of this run's rounds, each as long as a default side-by-side run, whose analysis called the " +
  "row different from bun-bare: for +0% the false-positive rate (at most 5% is the promise), for " +
  "the others the detection rate.";
// Stryker restore StringLiteral

/** The intro of the run's kind of calibration. */
export const calibrationIntro = (analysis: Analysis): string =>
  analysis.side ? SIDE_CALIBRATION_INTRO : CALIBRATION_INTRO;

export const CALIBRATION_HEADER = [
  "row",
  "extra iterations",
  "extra",
  "expected",
  "measured (95% CI)",
  "verdict",
  "detectable",
  "called different",
];

export function calibrationCells(view: CalibrationView): string[][] {
  return view.rows.map((r) => [
    r.name,
    fmt(r.iterations),
    pct(r.realized * 100, 1),
    change(r.expected),
    r.measured === undefined || !r.ci
      ? "—"
      : `${change(r.measured)} (${change(r.ci.low)} to ${change(r.ci.high)})`,
    r.different ? "different" : "≈ tie",
    mddText(r.mdd),
    r.rate === undefined ? "—" : pct(r.rate * 100),
  ]);
}

/** One caption line per view: how many subsamples the rates are over. */
export function calibrationCaption(view: CalibrationView): string {
  return view.subsample
    ? `${view.group}: called different over ${fmt(view.subsample.draws)} subsamples of ${view.subsample.rounds} rounds`
    : `${view.group}: too few rounds for subsampled rates (the run needs more rounds than a default run)`;
}
