// rates/search.ts: where a --rates search goes next and when it stops, run against servers
// whose verdict at each rate is synthetic; the interval it ends with is read through
// analysis/search-levels.ts.
import { describe, expect, test } from "bun:test";
import {
  intervalOf,
  SEARCH,
  type SearchPoint,
  searchLevels,
} from "../src/analysis/search-levels.ts";
import { nextRate } from "../src/rates/search.ts";

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
});

describe("the search at its edges", () => {
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
});
