// analysis/search-levels.ts: a --rates search's own trials as points with their verdicts, its
// levels (a majority of trials, an unjudged trial makes the level unjudged) and the interval
// they bracket. Synthetic verdicts and trials.
import { describe, expect, test } from "bun:test";
import {
  intervalOf,
  type SearchPoint,
  searchLevels,
  searchPoints,
} from "../src/analysis/search-levels.ts";
import { budgetLatency as latency } from "./support/rate-trials.ts";
import { syntheticRateTrial } from "./support/synthetic.ts";

describe("the search", () => {
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

describe("the budget rule", () => {
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

  test("a search's points leave out other scenarios", () => {
    const trials = [
      syntheticRateTrial("search", 1000, latency(2)),
      syntheticRateTrial("search", 2000, latency(2), { scenario: "json" }),
    ];
    expect(searchPoints(trials, "bun-bare", "api", 10).map((p) => p.rate)).toEqual([1000]);
  });
});
