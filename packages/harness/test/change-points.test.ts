// Change point detection (change-points.ts) against Apache Otava 0.8.0's own answers, hard-coded
// here from its compute_change_points() (pip install apache-otava==0.8.0, then
// `compute_change_points(values, window_len=W, max_pvalue=P)`, each change point's index,
// stats.pvalue, stats.mean_1 and stats.mean_2), its t-test against scipy, and the known answers
// on simulated histories (support/history.ts; skipped under mutation testing, as
// estimate.test.ts's are). change-points.e2e.test.ts asks a live Otava the same questions.
import { describe, expect, test } from "bun:test";
import {
  type ChangePoint,
  changePoints,
  firstPassP,
  HISTORY_MAX_P,
  mergeWeak,
  OTAVA_MAX_P,
  OTAVA_WINDOW,
  segmentTest,
} from "../src/analysis/change-points.ts";
import { stepDetection } from "./support/history.ts";
import { simulate4k } from "./support/simulate.ts";

/** Otava's (index, pvalue, mean_1, mean_2) for each change point, to 12 digits. */
function expectOtava(found: readonly ChangePoint[], otava: readonly number[][]) {
  expect(found.map((c) => c.index)).toEqual(otava.map((o) => o[0] as number));
  found.forEach((c, i) => {
    const [, p, before, after] = otava[i] as [number, number, number, number];
    expect(c.p / p).toBeCloseTo(1, 10);
    expect(c.before).toBeCloseTo(before, 12);
    expect(c.after).toBeCloseTo(after, 12);
  });
}

describe("Otava's t-test between two segments", () => {
  test("is scipy's pooled test fed population standard deviations", () => {
    // python3: ttest_ind_from_stats(l.mean(), np.std(l), 4, r.mean(), np.std(r), 5).pvalue
    const t = segmentTest([1, 2, 3, 4], [3, 5, 4, 6, 7]);
    expect(t.p).toBeCloseTo(0.023770271154038135, 14);
    expect(t).toMatchObject({ index: 4, before: 2.5, after: 5 });
    // ttest_ind_from_stats(1.0, 0.0, 1, 3.0, np.std([2, 4]), 2): one point has no spread
    expect(segmentTest([1], [2, 4]).p).toBeCloseTo(0.34980171228104273, 14);
  });

  test("two points: p = 1; both sides constant: NaN if equal (scipy's 0/0), else 0", () => {
    expect(segmentTest([1], [5]).p).toBe(1);
    expect(segmentTest([0.5, 0.5, 0.5], [0.5, 0.5]).p).toBeNaN();
    expect(segmentTest([0.5, 0.5, 0.5], [0.7, 0.7]).p).toBe(0);
  });
});

describe("Otava's thresholds", () => {
  test("the first pass is ten times looser below 0.05, twice below 0.5, the same above", () => {
    expect(firstPassP(0.001)).toBe(0.01);
    expect(firstPassP(0.049)).toBeCloseTo(0.49, 15);
    expect(firstPassP(0.05)).toBe(0.1);
    expect(firstPassP(0.49)).toBe(0.98);
    expect(firstPassP(0.5)).toBe(0.5);
    expect(firstPassP(0.7)).toBe(0.7);
  });

  test("its defaults: a window of 50, p below 0.001", () => {
    expect(OTAVA_WINDOW).toBe(50);
    expect(OTAVA_MAX_P).toBe(0.001);
  });
});

describe("changePoints, against Otava 0.8.0's answers", () => {
  test("one step", () => {
    const values = [
      0.026, 0.024, -0.059, -0.004, 0.017, 0.013, -0.031, -0.023, 0.148, 0.103, 0.134, 0.089, 0.14,
      0.1, 0.143, 0.181,
    ];
    expectOtava(changePoints(values), [[8, 1.9683216710117663e-7, -0.004625, 0.12974999999999998]]);
  });

  test("two steps", () => {
    const values = [
      0.042, 0.035, -0.052, 0.017, -0.018, -0.042, 0.006, 0.222, 0.269, 0.191, 0.241, 0.087, 0.188,
      0.199, 0.029, 0.082, 0.041, 0.082, 0.083, 0.017, 0.044,
    ];
    expectOtava(changePoints(values), [
      [7, 2.2193579788294834e-6, -0.001714285714285712, 0.19957142857142857],
      [14, 2.9451223457590444e-5, 0.19957142857142857, 0.054],
    ]);
  });

  test("a flat series of session-sized noise: none", () => {
    const flat = [
      -0.007, -0.016, -0.065, -0.062, 0.033, -0.071, -0.042, 0.062, 0.056, 0.0, -0.095, -0.156,
      0.009, -0.004, 0.073, 0.072, -0.036, -0.016, -0.002, 0.006,
    ];
    expect(changePoints(flat)).toEqual([]);
    expect(changePoints(flat, { maxP: HISTORY_MAX_P })).toEqual([]);
  });

  // Four levels of twelve points: a window of 50 sees them at once and finds nothing (its
  // first split, at 24, is not significant against the spread of both halves), windows of
  // 3–25 find the steps; at 0.05 each window size finds its own set of noise too.
  const levels = [
    0.016, 0.045, 0.014, 0.011, -0.009, -0.024, -0.023, -0.021, 0.002, 0.032, -0.028, -0.033, 0.309,
    0.38, 0.262, 0.263, 0.289, 0.288, 0.277, 0.311, 0.266, 0.238, 0.308, 0.277, -0.09, -0.101,
    -0.092, -0.123, -0.134, -0.135, -0.091, -0.168, -0.096, -0.102, -0.065, -0.156, 0.196, 0.214,
    0.164, 0.247, 0.169, 0.173, 0.261, 0.237, 0.227, 0.208, 0.165, 0.126,
  ];
  const indices = (window: number, maxP: number) =>
    changePoints(levels, { window, maxP }).map((c) => c.index);

  test("windows: what each window size finds, as Otava finds it", () => {
    expectOtava(changePoints(levels, { window: 10 }), [
      [12, 5.391846871326372e-10, -0.0015000000000000005, 0.34450000000000003],
      [24, 1.415045008764646e-19, 0.289, -0.11275],
      [36, 1.384283515382178e-16, -0.11275, 0.19891666666666666],
    ]);
    expect(indices(50, 0.001)).toEqual([]);
    expect(indices(2, 0.05)).toEqual([]);
    expect(indices(3, 0.001)).toEqual([12]);
    expect(indices(4, 0.001)).toEqual([12, 24]);
    expect(indices(7, 0.05)).toEqual([4, 12, 14, 24, 27, 28, 36, 42, 46]);
    expect(indices(10, 0.05)).toEqual([4, 9, 10, 12, 14, 24, 36, 42, 46]);
    expect(indices(11, 0.05)).toEqual([4, 12, 14, 24, 36, 47]);
    expect(indices(16, 0.05)).toEqual([4, 12, 14, 24, 36, 42, 46]);
    expect(indices(50, 0.05)).toEqual([4, 12, 14, 24, 36, 47]);
  });

  test("Otava's merge quirk: a dropped last point leaves its left neighbour's stats stale", () => {
    // Weak points 4 (p 0.0056), 8 (p 0.082), 9 (p 0.153): 9 goes, then 8, and Otava
    // recomputes neither neighbour; 4 keeps its p and its right mean from the segment [4, 8).
    expectOtava(changePoints([2, 1, 0, 1, -1, -1, -1, 0, -2, -5, -4], { maxP: 0.01 }), [
      [4, 0.005554140338085165, 1.0, -0.75],
    ]);
    // Weak points 5 and 10 (p 0.0098): 10 goes; 5 keeps its p against [5, 10), not [5, 11).
    expectOtava(changePoints([1, 1, 0, 0, 1, 3, 4, 4, 5, 3, 0]), [
      [5, 4.366826031328028e-5, 0.6, 3.8],
    ]);
    expectOtava(changePoints([2, 0, 0, 1, -1, 1, 4, 2, 4, 5, 5, 7, 7, 8, 7, 8, 7, 9]), [
      [11, 4.011146743107381e-6, 2.090909090909091, 7.571428571428571],
    ]);
  });

  // Small integers: exact sums, so ties in Q̂ and in p are real and Otava's order decides them
  // (np.argmax's first maximum, Python's max() and min() keeping the first), as do its window
  // steps and its stale neighbours. Otava's indices for each (values, maxP, window):
  const integers: [number[], number, number, number[]][] = [
    [[0, 2, 1, 2, 2, 3, 3, 1, 2, 4, 3, 2, 4, 4], 0.2, 50, [1, 5, 7, 9, 12]],
    [[1, 1, 2, 3, 3, 3, 2, 3, 3, 3, 4, 6], 0.01, 4, [2, 10]],
    [[1, 1, 2, -1, -1, -1, -3, -2, -2, -3, -3, -1], 0.01, 50, [2, 3, 6]],
    [[1, 1, 2, -1, -1, -1, -3, -2, -2, -3, -3, -1], 0.05, 5, [2, 3, 6, 11]],
    [[1, 1, 0, 1, 1, -1, -4, -4, -5], 0.01, 50, []],
    [[1, 2, 0, 1, 0, 1, 0, 0, -1, -1, -1, -1, 2, 1, 2], 0.05, 5, [2, 8, 12]],
    [[1, 1, 0, 1, 2, -2, -2, -2, -2, -3, -3, -2, -4, -3, -2, -2, -2], 0.05, 5, [5, 9, 14]],
    [[1, 2, 0, 1, 1, 1, 2, 0, 1, 1, 2], 0.2, 50, []],
    [[2, 0, 0, 4, 2, 3, 3, 2, 4], 0.001, 50, [1]],
    [[2, 0, 0, 4, 2, 3, 3, 2, 4], 0.05, 5, [1, 3]],
    [[-1, -2, -2, -3, -3, -2, -2, -2, 0], 0.01, 50, [1, 3, 5, 8]],
    [[0, 1, 1, 2, 0, 0, 2, 0, 2, 2], 0.2, 50, [1, 4, 8]],
    [[0, 0, 1, 1, 1, 2, 1, 1, 2, 4, 6, 4, 4, 6], 0.05, 5, [2, 9]],
    [[1, 0, 2, 4, 5, 3, 2, 0, 1], 0.2, 50, [3, 5, 7]],
    [[3, 1, 2, 2, 0, 4, 3, 2, 2, 1, 3], 0.2, 50, [4]],
  ];
  test.each(integers)("integers %j at maxP %p, window %p", (values, maxP, window, otava) => {
    expect(changePoints(values, { maxP, window }).map((c) => c.index)).toEqual(otava);
  });

  test("short and constant series: three points are the least a t-test needs", () => {
    expect(changePoints([])).toEqual([]);
    expect(changePoints([1])).toEqual([]);
    expect(changePoints([1, 2], { maxP: 0.9 })).toEqual([]);
    expectOtava(changePoints([0, 0.01, 1], { maxP: 0.5 }), [[2, 0.00391802490979606, 0.005, 1]]);
    expect(changePoints([5, 5, 5, 5, 5], { maxP: 0.9 })).toEqual([]);
  });

  test("at maxP 1 every split passes the first pass, down to single points, and p = 1 goes", () => {
    // Otava: split() finds weak points at every index (each two-point split has p = 1 ≤ 1),
    // the merge drops those whose p is not below 1.
    expectOtava(changePoints([0, 3, 1, 4, 2], { maxP: 1 }), [
      [2, 0.8308315887702464, 1.5, 1.0],
      [4, 0.8308315887702464, 2.5, 2.0],
    ]);
    expectOtava(changePoints([0.5, 2.0, 1.2, 0.1, 3.3, 2.2], { maxP: 1 }), [
      [2, 0.9653809734914172, 1.25, 1.2],
      [4, 0.15846769830130164, 0.65, 3.3],
    ]);
    expectOtava(changePoints([0, 3, 1, 4, 2], { maxP: 0.9 }), [
      [2, 0.8308315887702464, 1.5, 1.0],
      [3, 0.3498017122810427, 1.0, 3.0],
    ]);
    expectOtava(changePoints([1, 2, 4, 8], { maxP: 1 }), [[2, 0.15292825159926016, 1.5, 4.0]]);
  });

  test("a window must be a whole number of at least 2, as Otava asserts", () => {
    expect(() => changePoints([1, 2, 3], { window: 1 })).toThrow("at least 2");
    expect(() => changePoints([1, 2, 3], { window: 2.5 })).toThrow("not 2.5");
    expect(changePoints([1, 2, 3], { window: 2 })).toEqual([]);
  });
});

describe("Otava's merge step on weak points a split would hardly give", () => {
  test("with every p passing, a point with equal means on both sides still goes", () => {
    // 2, 2, 2 | 2, 2, 2 is 0/0: p NaN, which Python's max() passes over when it is not first
    const values = [1, 1, 1, 2, 2, 2, 2, 2, 2];
    const a = { index: 3, p: 1e-4, before: 1, after: 2 };
    const b = { index: 6, p: Number.NaN, before: 2, after: 2 };
    expect(mergeWeak(values, [a, b], 0.001)).toEqual([a]);
    // first, max() keeps it as the weakest and it goes at once; 6 is judged again on [0, 6)
    const first = { ...b, index: 3, before: 1, after: 1 };
    expect(mergeWeak(values, [first, { ...a, index: 6 }], 0.2)).toEqual([
      { ...segmentTest(values.slice(0, 6), values.slice(6)), index: 6 },
    ]);
  });

  test("the weakest goes, the two from its place on are judged again, the one before is not", () => {
    const values = [0, 0.1, 0, 1, 1.1, 1, 1.05, 2, 2.1, 2];
    const weak = [
      { index: 3, p: 0.01, before: 0.03, after: 1.05 },
      { index: 5, p: 0.5, before: 1.05, after: 1.03 },
      { index: 7, p: 0.02, before: 1.03, after: 2.03 },
    ];
    const merged = mergeWeak(values, weak, 0.05);
    expect(merged.map((c) => c.index)).toEqual([3, 7]);
    expect(merged[0]).toEqual(weak[0] as ChangePoint);
    expect(merged[1]).toEqual({ ...segmentTest(values.slice(3, 7), values.slice(7)), index: 7 });
    expect(mergeWeak(values, [], 0.05)).toEqual([]);
  });
});

describe("known answers on simulated histories: 20 sessions, a step after the 10th", () => {
  // Sessions as this VM has them: session effect SD 7%, within-session SE 1.5% (support/history.ts).
  simulate4k(`at maxP ${HISTORY_MAX_P}: ≤ 5% of flat series step, 15% steps found ≥ 75%`, () => {
    expect(stepDetection(10, 0, HISTORY_MAX_P).any).toBeLessThanOrEqual(0.05);
    expect(stepDetection(10, 0.15, HISTORY_MAX_P).found).toBeGreaterThanOrEqual(0.75);
    expect(stepDetection(10, 0.25, HISTORY_MAX_P).found).toBeGreaterThanOrEqual(0.95);
    const ten = stepDetection(10, 0.1, HISTORY_MAX_P).found;
    expect(ten).toBeGreaterThan(0.3);
    expect(ten).toBeLessThan(0.55);
  });

  simulate4k("Otava's default finds fewer steps; 80% of 15% steps costs > 5% false alarms", () => {
    const otava = stepDetection(10, 0.15, OTAVA_MAX_P);
    expect(otava.found).toBeLessThan(stepDetection(10, 0.15, HISTORY_MAX_P).found);
    expect(stepDetection(10, 0, OTAVA_MAX_P).any).toBeLessThan(0.03);
    // The power the two targets ask for is not there at 20 sessions of this noise: the
    // threshold that finds 80% flags more than 5% of flat series.
    expect(stepDetection(10, 0.15, 0.003).found).toBeGreaterThanOrEqual(0.8);
    expect(stepDetection(10, 0, 0.003).any).toBeGreaterThan(0.05);
  });
});
