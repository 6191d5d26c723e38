// --rates search: the highest offered rate whose p99 stays within the budget, found rather than
// bracketed by rates the user guessed. Bracket from the closed-loop maximum (halving below it,
// doubling above while it holds), bisect until the interval is narrow, then repeat the trials at
// both ends; a repeat that flips an end's verdict reopens the bisection. Pure: the next rate is
// a function of the trials so far, so every path is tested on synthetic verdicts.

import {
  intervalOf,
  SEARCH,
  type SearchLevel,
  type SearchPoint,
  searchLevels,
} from "../analysis/search-levels.ts";

/** The next rate to measure, or undefined when the search is done. */
export function nextRate(
  closedLoopRps: number,
  points: readonly SearchPoint[],
): number | undefined {
  if (points.length >= SEARCH.maxTrials) return undefined;
  const start = Math.max(1, Math.round(closedLoopRps));
  if (points.length === 0) return start;
  const levels = searchLevels(points);
  const { within, above } = intervalOf(levels);
  const fresh = (rate: number) => (levels.some((l) => l.rate === rate) ? undefined : rate);
  if (!within) {
    // Nothing kept the budget yet: halve below the lowest level tried, down to a floor.
    const lowest = levels[0] as SearchLevel;
    const half = Math.round(lowest.rate / 2);
    return half >= Math.max(1, start * SEARCH.lowest) ? fresh(half) : undefined;
  }
  if (!above) {
    const double = within.rate * 2;
    return double <= start * SEARCH.highest ? fresh(double) : confirm(within);
  }
  if (above.rate > within.rate * (1 + SEARCH.resolution)) {
    const mid = Math.round((within.rate + above.rate) / 2);
    return fresh(mid) ?? confirm(within) ?? (above.verdict === "over" ? confirm(above) : undefined);
  }
  return confirm(within) ?? (above.verdict === "over" ? confirm(above) : undefined);
}

function confirm(level: SearchLevel): number | undefined {
  return level.trials < SEARCH.repeats ? level.rate : undefined;
}
