// A --rates search's trials as levels (by rate, each with its majority verdict) and the
// capacity interval they bracket: what the reports show, and what rates/search.ts bisects on.

import type { RateTrial } from "../results/schema.ts";
import { type BudgetVerdict, budgetVerdict } from "./rate-levels.ts";

export const SEARCH = {
  /** Stop bisecting when the interval's top is within this share above its bottom. */
  resolution: 0.05,
  /** Trials at each end of the final interval. */
  repeats: 3,
  /** No search takes more trials than this, whatever the noise does. */
  maxTrials: 16,
  /** Halve no lower than this share of the closed-loop maximum... */
  lowest: 1 / 64,
  /** ...and double no higher than this multiple of it. */
  highest: 4,
} as const;

export interface SearchPoint {
  readonly rate: number;
  readonly verdict: BudgetVerdict["verdict"];
}

export interface SearchLevel {
  readonly rate: number;
  readonly trials: number;
  /** The majority of its trials: within only when more than half kept the budget. */
  readonly verdict: BudgetVerdict["verdict"];
}

/**
 * Trials grouped by rate, ascending. Any "not judged" trial makes its level unjudged: a trial
 * that says nothing of the server cannot be outvoted by the others.
 */
export function searchLevels(points: readonly SearchPoint[]): SearchLevel[] {
  const rates = [...new Set(points.map((p) => p.rate))].sort((a, b) => a - b);
  return rates.map((rate) => {
    const mine = points.filter((p) => p.rate === rate);
    const within = mine.filter((p) => p.verdict === "within").length;
    const verdict = mine.some((p) => p.verdict === "not judged")
      ? "not judged"
      : 2 * within > mine.length
        ? "within"
        : "over";
    return { rate, trials: mine.length, verdict };
  });
}

export interface Interval {
  /** The highest level shown within the budget (below every level that was not). */
  readonly within?: SearchLevel;
  /** The lowest level above it that missed the budget or could not be judged. */
  readonly above?: SearchLevel;
  /** A level below `within` missed: the verdicts are not monotonic (noise). */
  readonly nonMonotonic: boolean;
}

export function intervalOf(levels: readonly SearchLevel[]): Interval {
  // The first level that did not keep the budget caps the search: nothing above it counts.
  const firstMiss = levels.find((l) => l.verdict !== "within");
  const kept = levels.filter((l) => l.verdict === "within");
  const within = kept.filter((l) => firstMiss === undefined || l.rate < firstMiss.rate).at(-1);
  // Every level below the first miss kept the budget, so the first miss is also the lowest
  // level above `within` that did not.
  const above = firstMiss;
  const nonMonotonic = kept.some((l) => firstMiss !== undefined && l.rate > firstMiss.rate);
  return {
    ...(within ? { within } : {}),
    ...(above ? { above } : {}),
    nonMonotonic,
  };
}

/** A search's trials (requested "search") of one app on one scenario, as points. */
export function searchPoints(
  trials: readonly RateTrial[],
  app: string,
  scenario: string,
  budgetMs: number,
): (SearchPoint & BudgetVerdict & { readonly trial: RateTrial })[] {
  return trials
    .filter((t) => t.requested === "search" && t.app === app && t.scenario === scenario)
    .map((trial) => ({ rate: trial.offeredRps, ...budgetVerdict(trial, budgetMs), trial }));
}
