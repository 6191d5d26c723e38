// analysis/rate-levels.ts: what open-loop trials say at a p99 budget: each requested rate's
// level (medians over valid trials) and the capacity the levels bracket. Synthetic trials.
import { describe, expect, test } from "bun:test";
import {
  capacityAtBudget,
  levelFigures,
  type RateLevel,
  rateLevels,
} from "../src/analysis/rate-levels.ts";
import type { RateTrial } from "../src/results/schema.ts";
import { openLoopLatency } from "./support/rate-trials.ts";
import { syntheticRateTrial } from "./support/synthetic.ts";

const rateTrial = (
  requested: string,
  offeredRps: number,
  p99: number,
  more: Partial<RateTrial> = {},
) => syntheticRateTrial(requested, offeredRps, openLoopLatency(p99 / 4, p99), more);

describe("rateLevels and capacityAtBudget", () => {
  const trials = [
    rateTrial("50%", 10_000, 2),
    rateTrial("50%", 10_200, 4),
    rateTrial("50%", 9_800, 30, { valid: false }), // left out
    rateTrial("75%", 15_000, 8),
    rateTrial("75%", 15_200, 12),
    rateTrial("90%", 18_000, 9, { overCapacity: true }),
    rateTrial("90%", 18_200, 9),
    rateTrial("5000", 5_000, 1, { app: "node-bare" }), // another app
  ];

  test("medians per requested rate over valid trials, lowest offer first", () => {
    const levels = rateLevels(trials, "bun-bare", "api", 10);
    expect(levels.map((l) => [l.requested, l.offeredRps, l.p99Ms, l.trials])).toEqual([
      ["50%", 10_100, 3, 2],
      ["75%", 15_100, 10, 2],
      ["90%", 18_100, 9, 2],
    ]);
    // 75%: one trial of two kept the budget, not a majority; 90% kept up in one trial only.
    expect(levels.map((l) => l.withinBudget)).toEqual([true, false, false]);
    expect(levels[0]?.p99RangeMs).toEqual({ low: 2, high: 4 });
    expect(levels[2]?.overCapacity).toBe(true);
    expect(levels.map((l) => l.loadGeneratorBound)).toEqual([false, false, false]);
    const bound = rateLevels(
      [...trials, rateTrial("95%", 19_000, 9, { loadGeneratorBound: true })],
      "bun-bare",
      "api",
      10,
    );
    expect(bound.at(-1)).toMatchObject({ requested: "95%", loadGeneratorBound: true });
    expect(rateLevels(trials, "bun-bare", "api", 12).map((l) => l.withinBudget)).toEqual([
      true,
      true,
      false,
    ]);
  });

  const level = (
    offeredRps: number,
    withinBudget: boolean,
    loadGeneratorBound = false,
  ): RateLevel => ({
    requested: String(offeredRps),
    offeredRps,
    achievedRps: offeredRps,
    p50Ms: 1,
    p99Ms: withinBudget ? 1 : 100,
    p99RangeMs: { low: withinBudget ? 1 : 100, high: withinBudget ? 1 : 100 },
    trials: 1,
    overCapacity: false,
    loadGeneratorBound,
    withinBudget,
    unsent: 0,
  });

  test("a level that saturated the load generator takes no part", () => {
    expect(capacityAtBudget([level(1, true), level(2, false, true), level(3, false)])).toEqual({
      withinRps: 1,
      missedRps: 3,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, true), level(2, false, true)])).toEqual({
      withinRps: 1,
      nonMonotonic: false,
    });
  });

  test("bracketed by the highest rate that met and the lowest above it that missed", () => {
    expect(
      capacityAtBudget([level(1, true), level(2, true), level(3, false), level(4, false)]),
    ).toEqual({
      withinRps: 2,
      missedRps: 3,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, true), level(2, true)])).toEqual({
      withinRps: 2,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, false), level(2, false)])).toEqual({
      missedRps: 1,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, false), level(2, true), level(3, false)])).toEqual({
      withinRps: 2,
      missedRps: 3,
      nonMonotonic: true,
    });
  });
});

describe("levels and capacity at their edges", () => {
  const t = rateTrial;

  test("only this scenario's listed rates with a result; levels by offered rate, not by order", () => {
    const levels = rateLevels(
      [
        t("3000", 3000, 2),
        t("1000", 1000, 2),
        t("1000", 1000, 2, { scenario: "json" }), // another scenario
        t("search", 2000, 2), // a search's trial: report/search-table.ts
        t("2000", 2000, 2, { result: null }), // valid but nothing measured
      ],
      "bun-bare",
      "api",
      10,
    );
    expect(levels.map((l) => [l.requested, l.trials])).toEqual([
      ["1000", 1],
      ["3000", 1],
    ]);
  });

  test("a trial that filled the machine makes its level unjudged and full", () => {
    const levels = rateLevels(
      [t("1000", 1000, 2), t("1000", 1000, 2, { machineFull: true }), t("2000", 2000, 2)],
      "bun-bare",
      "api",
      10,
    );
    expect(levels.map((l) => [l.loadGeneratorBound, l.machineFull])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  test("levelFigures: latencies over the trials with a result, rates over all, unsent summed", () => {
    const figures = levelFigures([
      t("1000", 1000, 2, { achievedRps: 990, schedule: { scheduled: 10, sent: 7, unsent: 3 } }),
      t("1000", 1000, 6, { achievedRps: 980, schedule: { scheduled: 10, sent: 6, unsent: 4 } }),
      t("1000", 1000, 0, { achievedRps: 0, result: null }),
    ]);
    // p99 2 and 6 ms → median 4, p50 = p99 / 4 → 0.5 and 1.5 → median 1; achieved 990, 980, 0 → 980.
    expect(figures).toEqual({
      offeredRps: 1000,
      achievedRps: 980,
      p50Ms: 1,
      p99Ms: 4,
      p99RangeMs: { low: 2, high: 6 },
      trials: 3,
      overCapacity: false,
      unsent: 7,
    });
  });

  const level = (requested: string, offeredRps: number, withinBudget: boolean): RateLevel => ({
    requested,
    offeredRps,
    achievedRps: offeredRps,
    p50Ms: 1,
    p99Ms: 1,
    p99RangeMs: { low: 1, high: 1 },
    trials: 1,
    overCapacity: false,
    loadGeneratorBound: false,
    withinBudget,
    unsent: 0,
  });

  test("a missed level at the very rate that met (50% = 5000) neither caps nor flips it", () => {
    expect(capacityAtBudget([level("50%", 5000, true), level("5000", 5000, false)])).toStrictEqual({
      withinRps: 5000,
      nonMonotonic: false,
    });
  });

  test("nothing measured: no bounds at all, not even undefined ones", () => {
    expect(capacityAtBudget([])).toStrictEqual({ nonMonotonic: false });
  });
});
