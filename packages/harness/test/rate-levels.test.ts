// analysis/rate-levels.ts: what open-loop trials say at a p99 budget: a trial's verdict
// (latencies, unsent requests, the generator's own floor), each requested rate's level (medians
// over valid trials), and the capacity the levels bracket. Synthetic trials.
import { describe, expect, test } from "bun:test";
import {
  budgetVerdict,
  capacityAtBudget,
  keptBudget,
  levelFigures,
  type RateLevel,
  rateLevels,
} from "../src/analysis/rate-levels.ts";
import type { RateTrial } from "../src/results/schema.ts";
import { budgetLatency as latency, openLoopLatency } from "./support/rate-trials.ts";
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

describe("the budget rule", () => {
  test("a level that dropped scheduled requests is not within the budget", () => {
    const full = { scheduled: 100_000, sent: 100_000, unsent: 0 };
    expect(keptBudget(latency(9), full, 100_000, 10)).toBe(true);
    expect(keptBudget(latency(11), full, 100_000, 10)).toBe(false);
    // 2% never sent: whatever the answered ones did, over 1% of the schedule is over budget.
    const dropped = { scheduled: 100_000, sent: 98_000, unsent: 2_000 };
    expect(keptBudget(latency(1, 1), dropped, 98_000, 10)).toBe(false);
    // 0.5% unsent: p99.9 of the answered must hold, and 500 + 99.5 ≤ 1,000 does.
    const some = { scheduled: 100_000, sent: 99_500, unsent: 500 };
    expect(keptBudget(latency(1, 9), some, 99_500, 10)).toBe(true);
    expect(keptBudget(latency(1, 11), some, 99_500, 10)).toBe(false);
    // 0.95% unsent: 950 + 99 > 1,000.
    const most = { scheduled: 100_000, sent: 99_050, unsent: 950 };
    expect(keptBudget(latency(1, 1), most, 99_050, 10)).toBe(false);

    const trial = syntheticRateTrial("search", 20_000, latency(2, 3), { schedule: dropped });
    expect(budgetVerdict(trial, 10)).toEqual({
      verdict: "over",
      why: "2000 of 100000 scheduled requests never sent (count as over the budget)",
    });
  });

  test("a latency miss the generator's own p99 could explain is not charged to the server", () => {
    const miss = syntheticRateTrial("search", 40_000, latency(14), { floorP99Ms: 5 });
    expect(budgetVerdict(miss, 10)).toEqual({
      verdict: "not judged",
      why: "p99 14.00 ms, but the generator alone measured p99 5.00 ms at this rate",
    });
    expect(budgetVerdict({ ...miss, floorP99Ms: 3.9 }, 10).verdict).toBe("over");
    expect(budgetVerdict({ ...miss, floorP99Ms: undefined }, 10).verdict).toBe("over");
  });

  test("invalid, saturated, full, short: each its own verdict and why", () => {
    const t = syntheticRateTrial("search", 40_000, latency(2));
    expect(budgetVerdict(t, 10)).toEqual({ verdict: "within", why: "p99 2.00 ms" });
    const invalid = { ...t, valid: false, invalidReasons: ["12 failed requests"] };
    expect(budgetVerdict(invalid, 10)).toEqual({
      verdict: "over",
      why: "invalid: 12 failed requests",
    });
    expect(budgetVerdict({ ...t, loadGeneratorBound: true }, 10).verdict).toBe("not judged");
    expect(budgetVerdict({ ...t, machineFull: true }, 10)).toEqual({
      verdict: "not judged",
      why: "machine full",
    });
    expect(budgetVerdict({ ...t, overCapacity: true, achievedRps: 30_000 }, 10)).toEqual({
      verdict: "over",
      why: "achieved 30,000 of 40,000 req/s",
    });
  });
});

describe("the search in the report", () => {
  test("unsent requests beyond the rule are over, whatever the generator's floor", () => {
    const dropped = { scheduled: 100_000, sent: 97_000, unsent: 3_000 };
    const t = syntheticRateTrial("search", 20_000, latency(12), {
      schedule: dropped,
      floorP99Ms: 5,
    });
    expect(budgetVerdict(t, 10).verdict).toBe("over");
    expect(budgetVerdict(t, 10).why).toContain("3000 of 100000 scheduled requests never sent");
    // A few unsent, p99 within but p99.9 not: 99% within cannot be shown.
    const few = { scheduled: 100_000, sent: 99_990, unsent: 10 };
    const tail = syntheticRateTrial("search", 20_000, latency(5, 15), { schedule: few });
    expect(budgetVerdict(tail, 10)).toEqual({
      verdict: "over",
      why: "p99 5.00 ms within but p99.9 15.00 ms over, with 10 unsent: 99% within cannot be shown",
    });
  });
});

describe("the budget rule at its edges", () => {
  const t = (p99: number, p999: number, more: Partial<RateTrial> = {}) =>
    syntheticRateTrial("search", 20_000, latency(p99, p999), more);
  // 10 of 100,000 unsent: 10 + 0.1% of 99,990 ≈ 110 ≤ 1,000 allowed.
  const few = { scheduled: 100_000, sent: 99_990, unsent: 10 };

  test("p99.9 exactly at the budget, and unsent + 0.1% exactly at 1%, keep it", () => {
    expect(keptBudget(latency(1, 10), few, 99_990, 10)).toBe(true);
    // 91 unsent + 0.001 × 9,000 answered = 100 = 0.01 × 10,000 scheduled.
    const edge = { scheduled: 10_000, sent: 9_909, unsent: 91 };
    expect(keptBudget(latency(1, 1), edge, 9_000, 10)).toBe(true);
  });

  test("why, for each way of keeping or missing it", () => {
    // Within with some unsent: the count is part of why.
    expect(budgetVerdict(t(1, 9, { schedule: few }), 10)).toEqual({
      verdict: "within",
      why: "p99 1.00 ms, 10 unsent",
    });
    // Nothing unsent, p99 over, no floor: the p99 alone.
    expect(budgetVerdict(t(30, 30), 10)).toEqual({ verdict: "over", why: "p99 30.00 ms" });
    // A few unsent and p99 over too: the p99, not the p99.9 story.
    expect(budgetVerdict(t(15, 20, { schedule: few }), 10)).toEqual({
      verdict: "over",
      why: "p99 15.00 ms",
    });
    // p99 exactly at the budget counts as within it; p99.9 over with unsent: cannot be shown.
    expect(budgetVerdict(t(10, 15, { schedule: few }), 10).why).toBe(
      "p99 10.00 ms within but p99.9 15.00 ms over, with 10 unsent: 99% within cannot be shown",
    );
    expect(budgetVerdict(t(2, 2, { loadGeneratorBound: true }), 10)).toEqual({
      verdict: "not judged",
      why: "load generator saturated",
    });
    const invalid = t(2, 2, { valid: false, invalidReasons: ["a", "b"] });
    expect(budgetVerdict(invalid, 10)).toEqual({ verdict: "over", why: "invalid: a; b" });
    // A valid trial without a result says nothing kept: over.
    expect(budgetVerdict(t(2, 2, { result: null }), 10).verdict).toBe("over");
  });

  test("a generator floor that explains the miss exactly is enough: 30 − 20 = 10 ms", () => {
    expect(budgetVerdict(t(30, 30, { floorP99Ms: 20 }), 10).verdict).toBe("not judged");
  });
});
