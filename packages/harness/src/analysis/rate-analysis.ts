// --rates, analysed once for every view: per scenario and app, the levels of its listed rates and
// the capacity they bracket at the p99 budget, and its search's levels (each with how many trials
// kept the budget and why the others did not) and the interval they found. report/rates-table.ts
// and search-table.ts lay these out; html-charts.ts draws them.

import type { RateTrial, Results, Search } from "../results/schema.ts";
import {
  type Capacity,
  capacityAtBudget,
  levelFigures,
  type RateLevel,
  rateLevels,
} from "./rate-levels.ts";
import {
  type Interval,
  intervalOf,
  type SearchLevel,
  searchLevels,
  searchPoints,
} from "./search-levels.ts";

/** A searched level's trials: how many kept the budget, of how many, and why the others not. */
export interface LevelTally {
  readonly within: number;
  readonly of: number;
  readonly whys: readonly string[];
}

export interface SearchAnalysis {
  readonly levels: readonly SearchLevel[];
  /** Each searched level as a level of the rates table (its verdict the search's). */
  readonly asRates: readonly RateLevel[];
  /** Per level, in the order of `levels`. */
  readonly tallies: readonly LevelTally[];
  readonly interval: Interval;
  /** How the search went (absent: interrupted before it recorded itself). */
  readonly record?: Search;
}

export interface AppRates {
  readonly app: string;
  /** The listed rates' levels (none for an app only searched). */
  readonly levels: readonly RateLevel[];
  /** The capacity the listed levels bracket; undefined without any. */
  readonly capacity?: Capacity;
  readonly search?: SearchAnalysis;
}

export interface ScenarioRates {
  readonly scenario: string;
  readonly apps: readonly AppRates[];
}

type Point = ReturnType<typeof searchPoints>[number];

function searchOf(
  results: Results,
  trials: readonly RateTrial[],
  app: string,
  scenario: string,
  budgetMs: number,
): SearchAnalysis | undefined {
  const points = searchPoints(trials, app, scenario, budgetMs);
  if (points.length === 0) return undefined;
  const levels = searchLevels(points);
  const at = (l: SearchLevel) => points.filter((p: Point) => p.rate === l.rate);
  const record = (results.searches ?? []).find((s) => s.app === app && s.scenario === scenario);
  return {
    levels,
    asRates: levels.map((l) => ({
      requested: "search",
      ...levelFigures(at(l).map((p) => p.trial)),
      loadGeneratorBound: l.verdict === "not judged",
      withinBudget: l.verdict === "within",
    })),
    tallies: levels.map((l) => {
      const mine = at(l);
      const missed = mine.filter((p) => p.verdict !== "within");
      return {
        within: mine.length - missed.length,
        of: mine.length,
        whys: [...new Set(missed.map((p) => p.why))],
      };
    }),
    interval: intervalOf(levels),
    ...(record ? { record } : {}),
  };
}

/** Every scenario with open-loop trials, each app's listed levels and search. */
export function rateAnalysis(results: Results): ScenarioRates[] {
  const trials = results.rateTrials ?? [];
  if (trials.length === 0) return [];
  const budget = results.manifest.settings.sloP99Ms ?? Number.NaN;
  const { apps, scenarios } = results.manifest.settings;
  return scenarios.map((scenario) => ({
    scenario,
    apps: apps.map((app) => {
      const levels = rateLevels(trials, app, scenario, budget);
      const search = searchOf(results, trials, app, scenario, budget);
      return {
        app,
        levels,
        ...(levels.length > 0 ? { capacity: capacityAtBudget(levels) } : {}),
        ...(search ? { search } : {}),
      };
    }),
  }));
}
