// The reports' part of --rates search: every level a search measured, valid or not, with its
// verdict and why, and the capacity interval with its ends' trials and the time it took.
// Rendered through rates.ts's view, so a search sits in the same tables as listed rates.

import type { LevelTally, SearchAnalysis } from "../analysis/rate-analysis.ts";
import type { RateLevel } from "../analysis/rate-levels.ts";
import { SEARCH, type SearchLevel } from "../analysis/search-levels.ts";
import { fmt } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const BUDGET_RULE =
  "A trial keeps the budget when at least 99% of the requests it scheduled are known to have " +
  "been answered within it: requests due but never sent (oha drops its queue at the deadline; " +
  "the last 2 ms of the schedule are not counted, its timer's slack) count as over. With none " +
  "unsent that is p99 ≤ budget; with some, p99.9 ≤ budget and unsent + 0.1% of the answered " +
  "≤ 1% of the scheduled.";

export const SEARCH_INTRO =
  "--rates search: from the app's best closed-loop req/s, halving until a rate keeps the " +
  "budget (or doubling while the maximum does), then bisecting until the interval's top is " +
  "within 5% of its bottom, then three trials at each end (a majority decides a level, and " +
  "one trial that cannot be judged leaves it unjudged; a repeat that flips an end reopens the " +
  "bisection; at most 16 trials). A miss on latency " +
  "alone is charged to the server only if its p99 exceeds the budget by more than the p99 the " +
  "same generator measured at that rate against a server that does nothing. Levels where the " +
  "generator was saturated or the machine full are not judged, and nothing above them is tried.";
// Stryker restore StringLiteral

export interface SearchView {
  readonly levels: readonly RateLevel[];
  /** The verdict cell of each level, in the order of `levels`. */
  readonly verdicts: string[];
  readonly capacity: string[];
}

function verdictCell(level: SearchLevel, tally: LevelTally): string {
  const head = `${level.verdict} (${tally.within}/${tally.of} kept it)`;
  return tally.whys.length === 0 ? head : `${head}: ${tally.whys.join("; ")}`;
}

function capacityCells(app: string, s: SearchAnalysis): string[] {
  const { within, above, nonMonotonic } = s.interval;
  const lowest = s.levels[0]?.rate ?? 0;
  const figure = !within
    ? s.levels[0]?.verdict === "over"
      ? `below ${fmt(lowest)} req/s`
      : `not determined (${fmt(lowest)} req/s not judged)`
    : !above
      ? `at least ${fmt(within.rate)} req/s`
      : above.verdict === "not judged"
        ? `at least ${fmt(within.rate)} req/s (not judged from ${fmt(above.rate)})`
        : `${fmt(within.rate)}–${fmt(above.rate)} req/s`;
  const ends = [
    within ? `${fmt(within.rate)} kept the budget (${within.trials} trial(s))` : undefined,
    above ? `${fmt(above.rate)} ${above.verdict} (${above.trials} trial(s))` : undefined,
  ].filter(Boolean);
  const record = s.record;
  const how = [
    record
      ? `searched from ${fmt(record.closedLoopRps)} req/s (closed loop): ${record.trials} trials in ${fmt(record.elapsedSec, 0)} s`
      : "search incomplete (interrupted)",
    ...ends,
    ...(nonMonotonic ? ["a higher rate kept the budget too (noise): the lower miss caps it"] : []),
    ...((record?.trials ?? 0) >= SEARCH.maxTrials
      ? [`stopped at its ${SEARCH.maxTrials}-trial limit, ends not all repeated`]
      : []),
  ].join("; ");
  return [app, figure, how];
}

/** The search of one app on one scenario as the rates table shows it. */
export function searchView(app: string, s: SearchAnalysis): SearchView {
  return {
    levels: s.asRates,
    verdicts: s.levels.map((l, i) => verdictCell(l, s.tallies[i] as LevelTally)),
    capacity: capacityCells(app, s),
  };
}

/** The capacity interval of a search as x values, for the chart; undefined without both ends. */
export function searchInterval(
  s: SearchAnalysis | undefined,
): { readonly low: number; readonly high: number } | undefined {
  const within = s?.interval.within;
  const above = s?.interval.above;
  return within && above?.verdict === "over" ? { low: within.rate, high: above.rate } : undefined;
}
