// --rates search on synthetic verdicts: where it goes next, when it stops, what interval it
// reports; and the budget rule that feeds it (unsent requests, the generator's own floor).
import { describe, expect, test } from "bun:test";
import { budgetVerdict, keptBudget } from "../src/analysis/rate-levels.ts";
import {
  intervalOf,
  SEARCH,
  type SearchPoint,
  searchLevels,
  searchPoints,
} from "../src/analysis/search-levels.ts";
import { SCHEDULE_SLACK_SEC, scheduleOf } from "../src/rates/rates.ts";
import { nextRate } from "../src/rates/search.ts";
import { searchInterval, searchView } from "../src/report/search-table.ts";
import type { RateTrial, Results } from "../src/results/schema.ts";
import { syntheticRateTrial } from "./support/synthetic.ts";

/** Runs a search against a server whose verdict at each rate is `truth(rate, nth trial)`. */
function search(
  closed: number,
  truth: (rate: number, nth: number) => SearchPoint["verdict"],
): SearchPoint[] {
  const points: SearchPoint[] = [];
  for (let rate = nextRate(closed, points); rate !== undefined; rate = nextRate(closed, points)) {
    const nth = points.filter((p) => p.rate === rate).length;
    points.push({ rate, verdict: truth(rate, nth) });
  }
  return points;
}

const threshold = (limit: number) => (rate: number) => (rate <= limit ? "within" : "over");

describe("the search", () => {
  test.each([7_000, 10_000, 13_001, 33_000, 49_000, 50_000, 79_999])(
    "a capacity of %p req/s (closed loop 80k) lies in the interval, at most 5% wide",
    (limit) => {
      const points = search(80_000, threshold(limit));
      const { within, above } = intervalOf(searchLevels(points));
      expect(within?.rate).toBeLessThanOrEqual(limit);
      expect(above?.rate).toBeGreaterThan(limit);
      const width = (above?.rate ?? 0) / (within?.rate ?? 1) - 1;
      expect(width).toBeLessThanOrEqual(SEARCH.resolution + 1e-9);
      // Both ends were repeated, and nothing was measured twice without a reason.
      expect(within?.trials).toBe(SEARCH.repeats);
      expect(above?.trials).toBe(SEARCH.repeats);
      expect(points.length).toBeLessThanOrEqual(SEARCH.maxTrials);
      // The closed-loop maximum comes first: the bracket starts there.
      expect(points[0]?.rate).toBe(80_000);
    },
  );

  test("above the closed-loop maximum: doubles up to its limit, then says at least", () => {
    const points = search(10_000, threshold(1e9));
    const levels = searchLevels(points);
    expect(levels.map((l) => l.rate)).toEqual([10_000, 20_000, 40_000]);
    const { within, above } = intervalOf(levels);
    expect(within?.rate).toBe(40_000);
    expect(above).toBeUndefined();
  });

  test("below every rate it may try: stops at 1/64 of the maximum with nothing within", () => {
    const points = search(64_000, () => "over");
    expect(Math.min(...points.map((p) => p.rate))).toBe(1_000);
    expect(intervalOf(searchLevels(points)).within).toBeUndefined();
  });

  test("a generator it cannot judge caps the search: no rate above it is tried", () => {
    const truth = (rate: number) => (rate >= 30_000 ? "not judged" : "within");
    const points = search(40_000, truth);
    const { within, above } = intervalOf(searchLevels(points));
    expect(above?.verdict).toBe("not judged");
    expect(above?.rate).toBeGreaterThanOrEqual(30_000);
    expect(within?.rate).toBeLessThan(30_000);
    // An unjudged end is not repeated: its trials say nothing of the server.
    expect(above?.trials).toBe(1);
  });

  test("a repeat that flips the lower end reopens the bisection below it", () => {
    // Noise: 30k passes once, then fails twice; the truth is 28k.
    const truth = (rate: number, nth: number) =>
      rate <= 28_000 || (rate <= 30_000 && nth === 0) ? "within" : "over";
    const points = search(40_000, truth);
    const { within, above } = intervalOf(searchLevels(points));
    expect(within?.rate).toBeLessThanOrEqual(28_000);
    expect(above?.rate).toBeGreaterThan(28_000);
    expect(searchLevels(points).find((l) => l.rate === 30_000)?.verdict).toBe("over");
  });

  test("the trials' budget stops a search that noise keeps reopening", () => {
    // Every level passes its first trial and fails its repeats: each confirmation reopens.
    const points = search(40_000, (rate, nth) => (rate < 40_000 && nth === 0 ? "within" : "over"));
    expect(points).toHaveLength(SEARCH.maxTrials);
  });

  test("a lower level that missed caps the interval and marks it non-monotonic", () => {
    const levels = searchLevels([
      { rate: 10, verdict: "within" },
      { rate: 20, verdict: "over" },
      { rate: 30, verdict: "within" },
      { rate: 40, verdict: "over" },
    ]);
    expect(intervalOf(levels)).toMatchObject({
      within: { rate: 10 },
      above: { rate: 20 },
      nonMonotonic: true,
    });
    // A tie of two trials is not a majority: the level did not keep the budget.
    expect(
      searchLevels([
        { rate: 5, verdict: "within" },
        { rate: 5, verdict: "over" },
      ])[0]?.verdict,
    ).toBe("over");
  });
});

const latency = (p99: number, p999 = p99) => ({
  mean: 1,
  p50: 1,
  p90: 1,
  p99,
  p999,
  max: p999,
});

describe("the budget rule", () => {
  test("scheduled requests: the rate over the window, less oha's timer slack at the deadline", () => {
    expect(scheduleOf(10_000, 5, null)).toEqual({
      scheduled: Math.floor(10_000 * (5 - SCHEDULE_SLACK_SEC)) + 1,
      sent: 0,
      unsent: 49_981,
    });
    const r = { requests: 49_900, socketErrors: 30, timeouts: 20, aborted: 31 };
    expect(scheduleOf(10_000, 5, r)).toEqual({ scheduled: 49_981, sent: 49_981, unsent: 0 });
    // More sent than due (window edges): nothing is unsent, never a negative count.
    expect(scheduleOf(10_000, 5, { ...r, requests: 60_000 }).unsent).toBe(0);
  });

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

  test("a search's points are its own trials, each with its verdict", () => {
    const trials = [
      syntheticRateTrial("search", 1000, latency(2)),
      syntheticRateTrial("search", 2000, latency(20)),
      syntheticRateTrial("50%", 500, latency(1)),
      syntheticRateTrial("search", 1000, latency(2), { app: "node-bare" }),
    ];
    const points = searchPoints(trials, "bun-bare", "api", 10);
    expect(points.map((p) => [p.rate, p.verdict])).toEqual([
      [1000, "within"],
      [2000, "over"],
    ]);
  });
});

describe("the search in the report", () => {
  const results = (rateTrials: RateTrial[]) =>
    ({ manifest: { settings: { sloP99Ms: 10 } }, rateTrials }) as unknown as Results;

  test("every level listed, invalid ones too, with why; the interval with its ends' trials", () => {
    const trials = [
      syntheticRateTrial("search", 40_000, latency(30)),
      syntheticRateTrial("search", 20_000, latency(2)),
      syntheticRateTrial("search", 30_000, latency(2), {
        valid: false,
        invalidReasons: ["5 timeouts"],
      }),
    ];
    const view = searchView(results(trials), trials, "bun-bare", "api", 10);
    expect(view?.levels.map((l) => l.offeredRps)).toEqual([20_000, 30_000, 40_000]);
    expect(view?.verdicts).toEqual([
      "within (1/1 kept it)",
      "over (0/1 kept it): invalid: 5 timeouts",
      "over (0/1 kept it): p99 30.00 ms",
    ]);
    expect(view?.capacity.slice(0, 2)).toEqual(["bun-bare", "20,000–30,000 req/s"]);
    expect(view?.capacity[2]).toStartWith("search incomplete (interrupted)");
    expect(searchInterval(trials, "bun-bare", "api", 10)).toEqual({ low: 20_000, high: 30_000 });
  });

  test("an unjudged top is no capacity interval; an unjudged bottom is no 'below'", () => {
    const bound = { loadGeneratorBound: true };
    const top = [
      syntheticRateTrial("search", 20_000, latency(2)),
      syntheticRateTrial("search", 30_000, latency(2), bound),
    ];
    expect(searchInterval(top, "bun-bare", "api", 10)).toBeUndefined();
    expect(searchView(results(top), top, "bun-bare", "api", 10)?.capacity[1]).toBe(
      "at least 20,000 req/s (not judged from 30,000)",
    );
    const bottom = [syntheticRateTrial("search", 30_000, latency(2), bound)];
    expect(searchView(results(bottom), bottom, "bun-bare", "api", 10)?.capacity[1]).toBe(
      "not determined (30,000 req/s not judged)",
    );
  });

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

describe("the search at its edges", () => {
  test("one unjudged trial makes its level unjudged, whatever the others", () => {
    const points: SearchPoint[] = [
      { rate: 5, verdict: "within" },
      { rate: 5, verdict: "within" },
      { rate: 5, verdict: "not judged" },
    ];
    expect(searchLevels(points)).toEqual([{ rate: 5, trials: 3, verdict: "not judged" }]);
  });

  test("an ordinary interval is monotonic; two misses and no kept level too", () => {
    const ordinary = intervalOf(
      searchLevels([
        { rate: 500, verdict: "within" },
        { rate: 1000, verdict: "over" },
      ]),
    );
    expect(ordinary).toMatchObject({ within: { rate: 500 }, above: { rate: 1000 } });
    expect(ordinary.nonMonotonic).toBe(false);
    const none = intervalOf(
      searchLevels([
        { rate: 1000, verdict: "over" },
        { rate: 2000, verdict: "over" },
      ]),
    );
    expect(none).toStrictEqual({
      above: { rate: 1000, trials: 1, verdict: "over" },
      nonMonotonic: false,
    });
  });

  test("at 1 req/s the midpoint rounds onto an end: both ends confirmed instead", () => {
    // 1 within, 2 over; (1 + 2) / 2 = 1.5 → 2, measured already: 1 twice more, then 2 twice more.
    expect(search(1, threshold(1)).map((p) => p.rate)).toEqual([1, 2, 1, 1, 2, 2]);
    // An unjudged upper end is not repeated.
    const unjudged = (rate: number) => (rate <= 1 ? "within" : "not judged");
    expect(search(1, unjudged).map((p) => p.rate)).toEqual([1, 2, 1, 1]);
  });

  test("an interval exactly 5% wide is narrow enough: no midpoint", () => {
    const points: SearchPoint[] = [
      ...Array(3).fill({ rate: 1000, verdict: "within" }),
      ...Array(3).fill({ rate: 1050, verdict: "over" }),
    ];
    expect(nextRate(1000, points)).toBeUndefined();
  });

  test("a search's points leave out other scenarios", () => {
    const trials = [
      syntheticRateTrial("search", 1000, latency(2)),
      syntheticRateTrial("search", 2000, latency(2), { scenario: "json" }),
    ];
    expect(searchPoints(trials, "bun-bare", "api", 10).map((p) => p.rate)).toEqual([1000]);
  });
});
