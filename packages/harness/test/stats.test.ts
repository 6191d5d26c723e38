// The statistics behind every spread, interval, tie and regression verdict, against values
// from tables and closed forms (not against the code's own arithmetic).
import { describe, expect, test } from "bun:test";
import {
  confidenceInterval,
  detectableInSe,
  gammaQ,
  holm,
  incompleteBeta,
  median,
  noncentralTCdf,
  normalCdf,
  power,
  spread,
  tCdf,
  tCritical,
  tTwoSidedP,
  verdict,
  welch,
} from "../src/stats.ts";

describe("Welch's t-test", () => {
  test("the incomplete beta function at known points", () => {
    expect(incompleteBeta(0.5, 3, 3)).toBeCloseTo(0.5, 8);
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 8);
    expect(incompleteBeta(0.2, 2, 1)).toBeCloseTo(0.04, 8);
  });

  test("p-values match the t distribution", () => {
    // df = 1 (Cauchy): P(|T| > 1) = 0.5
    expect(incompleteBeta(1 / (1 + 1), 0.5, 0.5)).toBeCloseTo(0.5, 8);
    const r = welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
    expect(r?.t).toBeCloseTo(1.8974, 4);
    expect(r?.df).toBeCloseTo(5.8824, 4);
    expect(r?.p).toBeCloseTo(0.10753, 4); // numerical integration of the t density
    expect(welch([1, 2], [1])).toBeUndefined();
    expect(welch([5, 5, 5], [5, 5, 5])?.p).toBe(1);
    expect(welch([100, 101, 99], [80, 81, 79])?.p).toBeLessThan(0.001);
  });
});

// The Lanczos log-gamma behind it is good to about 1e-8: seven decimals are asserted.
describe("the incomplete beta function", () => {
  test("closed forms on both sides of its branch point", () => {
    // I_x(2, 3) at 0.5: (C(4,2) + C(4,3) + C(4,4)) / 16
    expect(incompleteBeta(0.5, 2, 3)).toBeCloseTo(11 / 16, 7);
    // I_x(1/2, 1/2) = (2/π) asin(√x): the arcsine law, below and above (a+1)/(a+b+2) = 0.5
    const arcsine = (x: number) => (2 / Math.PI) * Math.asin(Math.sqrt(x));
    expect(incompleteBeta(0.2, 0.5, 0.5)).toBeCloseTo(arcsine(0.2), 7);
    expect(incompleteBeta(0.9, 0.5, 0.5)).toBeCloseTo(arcsine(0.9), 7);
    expect(incompleteBeta(0.999, 0.5, 0.5)).toBeCloseTo(arcsine(0.999), 7);
    // I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b
    expect(incompleteBeta(0.7, 3, 1)).toBeCloseTo(0.343, 7);
    expect(incompleteBeta(0.3, 1, 4)).toBeCloseTo(1 - 0.7 ** 4, 7);
  });

  test("shapes below 1/2 (ln Γ by reflection): I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b", () => {
    expect(incompleteBeta(0.3, 0.25, 1)).toBeCloseTo(0.3 ** 0.25, 7);
    expect(incompleteBeta(0.3, 1, 0.25)).toBeCloseTo(1 - 0.7 ** 0.25, 7);
    expect(incompleteBeta(0.5, 0.25, 0.25)).toBeCloseTo(0.5, 7); // symmetric
  });

  test("far above the branch point, where only the mirrored fraction converges", () => {
    // symmetric in a and b: I_0.9(50, 50) = 1 − I_0.1(50, 50), and the latter is below 1e-20
    expect(incompleteBeta(0.9, 50, 50)).toBeCloseTo(1, 10);
    expect(incompleteBeta(0.99, 200, 200)).toBeCloseTo(1, 10);
  });

  test("bounds", () => {
    expect([incompleteBeta(0, 2, 3), incompleteBeta(-1, 2, 3)]).toEqual([0, 0]);
    expect([incompleteBeta(1, 2, 3), incompleteBeta(2, 2, 3)]).toEqual([1, 1]);
  });
});

describe("Student's t", () => {
  test("two-sided critical values from the t table", () => {
    expect(tCritical(0.05, 1)).toBeCloseTo(12.7062, 3);
    expect(tCritical(0.05, 2)).toBeCloseTo(4.3027, 4);
    expect(tCritical(0.05, 10)).toBeCloseTo(2.2281, 4);
    expect(tCritical(0.01, 5)).toBeCloseTo(4.0321, 4);
    expect(tCritical(0.05, 1000)).toBeCloseTo(1.9623, 3);
  });

  test("p-values: 1 at 0, the table's level at the critical value, 0 at infinity", () => {
    expect(tTwoSidedP(0, 5)).toBeCloseTo(1, 12);
    expect(tTwoSidedP(2.2281, 10)).toBeCloseTo(0.05, 4);
    expect(tTwoSidedP(-2.2281, 10)).toBeCloseTo(0.05, 4);
    expect(tTwoSidedP(Number.POSITIVE_INFINITY, 5)).toBe(0);
    // No statistic at all (0/0) is no evidence of a difference.
    expect(tTwoSidedP(Number.NaN, 5)).toBe(1);
    // many degrees of freedom, a small t: x = df / (df + t²) lies above the branch point
    // (numerical integration of the t density: 0.9203644; the normal's 0.9203443)
    expect(tTwoSidedP(0.1, 1000)).toBeCloseTo(0.9203644, 6);
  });
});

describe("Welch's test at its edges", () => {
  test("two trials a side are enough; one is not", () => {
    expect(welch([1, 3], [2, 6])).toBeDefined();
    expect(welch([1], [2, 6])).toBeUndefined();
    expect(welch([1, 3], [2])).toBeUndefined();
  });

  test("no spread at all: the sign of the difference decides, certainly", () => {
    expect(welch([5, 5], [6, 6])).toEqual({ t: Number.POSITIVE_INFINITY, df: 2, p: 0 });
    expect(welch([6, 6, 6], [5, 5])).toEqual({ t: Number.NEGATIVE_INFINITY, df: 3, p: 0 });
    expect(welch([5, 5], [5, 5])).toEqual({ t: 0, df: 2, p: 1 });
  });

  test("equal variances on both sides still make a finite t", () => {
    // a: 1, 3 (var 2, n 2); b: 2, 4 (the same): se² = 2/2 + 2/2 = 2, t = 1 / √2, df = 2.
    const r = welch([1, 3], [2, 4]);
    expect(r?.t).toBeCloseTo(Math.SQRT1_2, 12);
    expect(r?.df).toBeCloseTo(2, 12);
  });

  test("Welch–Satterthwaite degrees of freedom for unequal variances and sizes", () => {
    // a: mean 2, var 1, n 3; b: mean 5, var 20/3, n 4 → se² = 1/3 + 5/3 = 2
    const r = welch([1, 2, 3], [2, 4, 6, 8]);
    expect(r?.t).toBeCloseTo(3 / Math.SQRT2, 10);
    expect(r?.df).toBeCloseTo(4 / ((1 / 3) ** 2 / 2 + (5 / 3) ** 2 / 3), 10);
  });
});

describe("spread, verdict, interval, median", () => {
  test("spread of nothing, of zeros, of two values", () => {
    const none = spread([]);
    expect([none.n, none.mean, none.stddev, none.cov]).toEqual([
      0,
      Number.NaN,
      Number.NaN,
      Number.NaN,
    ]);
    expect(spread([0, 0]).cov).toBe(0);
    expect(spread([2, 4]).cov).toBeCloseTo(Math.SQRT2 / 3, 12);
  });

  test("the verdict's edges: 3%, 5% and 10% are still the better word", () => {
    expect(verdict(0.0299)).toBe("excellent");
    expect(verdict(0.03)).toBe("acceptable");
    expect(verdict(0.0499)).toBe("acceptable");
    expect(verdict(0.05)).toBe("noisy");
    expect(verdict(0.1)).toBe("noisy");
    expect(verdict(0.1001)).toBe("unreliable");
  });

  test("the 95% interval of two values uses t with one degree of freedom", () => {
    const ci = confidenceInterval([1, 2]);
    const half = (12.7062 * Math.SQRT1_2) / Math.SQRT2;
    expect(ci?.low).toBeCloseTo(1.5 - half, 3);
    expect(ci?.high).toBeCloseTo(1.5 + half, 3);
    expect(confidenceInterval([1])).toBeUndefined();
  });

  test("median: the middle one, the mean of the middle two, nothing of nothing", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 1])).toBe(5.5);
    expect(median([])).toBeNaN();
  });
});

describe("Student's t: the distribution function and the detectable difference", () => {
  test("tCdf: df = 1 is the Cauchy law, P(T ≤ t) = 1/2 + atan(t)/π", () => {
    expect(tCdf(1, 1)).toBeCloseTo(0.75, 7);
    expect(tCdf(-1, 1)).toBeCloseTo(0.25, 7);
    expect(tCdf(0, 5)).toBeCloseTo(0.5, 12);
    // t table, df = 10: the 97.5% quantile is 2.2281
    expect(tCdf(2.2281, 10)).toBeCloseTo(0.975, 4);
    // No statistic: no side is favoured.
    expect(tCdf(Number.NaN, 5)).toBe(0.5);
  });

  test("detectableInSe: the noncentrality at which the test's power is exactly the one asked", () => {
    // scipy.stats.nct, solved with brentq: df 10, two-sided 0.05, 80% power: 3.1099681.
    expect(detectableInSe(0.05, 0.8, 10)).toBeCloseTo(3.1099681, 6);
    expect(detectableInSe(0.05, 0.8, 4)).toBeCloseTo(3.7610596, 6);
    expect(detectableInSe(0.1, 0.9, 20)).toBeCloseTo(3.031373, 6);
    expect(detectableInSe(0.05 / 6, 0.8, 38)).toBeCloseTo(3.6482659, 6);
    // One-sided at 0.01, df 9.
    expect(detectableInSe(0.01, 0.8, 9, 1)).toBeCloseTo(3.7481857, 6);
    // The shortcut t(1 − α/2) + t(power) (t table: 2.2281 + 0.8791, 2.7764 + 0.9410) falls
    // short of it, most at few degrees of freedom: its power is below 80%.
    expect(detectableInSe(0.05, 0.8, 10)).toBeGreaterThan(2.2281 + 0.8791 + 0.002);
    expect(detectableInSe(0.05, 0.8, 4)).toBeGreaterThan(2.7764 + 0.941 + 0.04);
    expect(power(2.2281 + 0.8791, 10, 0.05)).toBeLessThan(0.8);
    // Asked twice (a table asks the same few over and over): the same answer.
    expect(detectableInSe(0.05, 0.8, 10)).toBe(detectableInSe(0.05, 0.8, 10));
    expect(detectableInSe(0.05, 0.9, 10)).toBeGreaterThan(detectableInSe(0.05, 0.8, 10));
  });

  test("power: the chance of rejecting at a true difference of ncp standard errors", () => {
    expect(power(0, 10, 0.05)).toBeCloseTo(0.05, 9); // no difference: the test's own level
    expect(power(0, 10, 0.05, 1)).toBeCloseTo(0.05, 9);
    expect(power(detectableInSe(0.05, 0.8, 7), 7, 0.05)).toBeCloseTo(0.8, 8);
    expect(power(detectableInSe(0.02, 0.8, 7, 1), 7, 0.02, 1)).toBeCloseTo(0.8, 8);
    // Two-sided, a difference in either direction is found alike.
    expect(power(-2.5, 12, 0.05)).toBeCloseTo(power(2.5, 12, 0.05), 9);
    // One-sided, only in its direction.
    expect(power(-2.5, 12, 0.05, 1)).toBeLessThan(0.001);
  });
});

describe("the normal and noncentral t distributions", () => {
  test("normalCdf against scipy.stats.norm, the far tail keeping its digits", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-1.3)).toBeCloseTo(0.09680048458561036, 8);
    expect(normalCdf(2.5)).toBeCloseTo(0.9937903346742238, 8);
    expect(normalCdf(0.3)).toBeCloseTo(0.6179114221889526, 8);
    expect(normalCdf(-8) / 6.22096057427174e-16).toBeCloseTo(1, 6);
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(normalCdf(Number.NaN)).toBeNaN();
  });

  // ln Γ (Lanczos) is good to about 1e-8: seven digits are asserted, relative in the tails.
  test("gammaQ: closed forms Q(1, x) = e^−x and Q(3, x) = e^−x (1 + x + x²/2), both branches", () => {
    expect(gammaQ(1, 0.5)).toBeCloseTo(Math.exp(-0.5), 7); // series branch (x < a + 1)
    expect(gammaQ(1, 7) / Math.exp(-7)).toBeCloseTo(1, 7); // continued fraction
    expect(gammaQ(3, 2)).toBeCloseTo(Math.exp(-2) * (1 + 2 + 2), 7);
    expect(gammaQ(3, 9) / (Math.exp(-9) * (1 + 9 + 40.5))).toBeCloseTo(1, 7);
    expect(gammaQ(2, 0)).toBe(1);
    expect(gammaQ(2, Number.POSITIVE_INFINITY)).toBe(0);
  });

  test("noncentralTCdf against scipy.stats.nct", () => {
    const cases: [number, number, number, number][] = [
      [2.0, 10, 1.5, 0.6591540724421909],
      [-1.0, 5, 0.5, 0.08244409105672337],
      [3.0, 4.5, 3.2, 0.39015031238391673],
      [0.5, 30, 2.0, 0.06667211444913004],
      [-2.5, 19, -1.0, 0.08654932918631444],
      [10, 3, 8, 0.5885978669729135],
      [2.2281, 10, 2.9, 0.2564946700296474],
    ];
    for (const [t, df, ncp, want] of cases) expect(noncentralTCdf(t, df, ncp)).toBeCloseTo(want, 8);
    // No noncentrality: Student's t itself.
    expect(noncentralTCdf(1.3, 7, 0)).toBe(tCdf(1.3, 7));
    expect(noncentralTCdf(0, 7, 1.5)).toBeCloseTo(normalCdf(-1.5), 12);
    expect(noncentralTCdf(Number.POSITIVE_INFINITY, 7, 1)).toBe(1);
    expect(noncentralTCdf(Number.NEGATIVE_INFINITY, 7, 1)).toBe(0);
    expect(noncentralTCdf(1, 0, 1)).toBeNaN();
    expect(noncentralTCdf(Number.NaN, 5, 1)).toBeNaN();
  });
});

describe("Holm's step-down", () => {
  test("the k-th smallest p is held to alpha / (m − k + 1), in any input order", () => {
    // m = 3: thresholds 0.05/3 ≈ 0.0167, 0.025, 0.05. 0.01 passes, 0.02 passes, 0.04 passes.
    expect(holm([0.04, 0.01, 0.02], 0.05)).toEqual([true, true, true]);
    // 0.03 fails the second step (0.025), so 0.04 is not even tried.
    expect(holm([0.04, 0.01, 0.03], 0.05)).toEqual([false, true, false]);
    // The smallest p decides first, wherever it stands: 0.02 > 0.05/3 stops everything.
    expect(holm([0.03, 0.02, 0.04], 0.05)).toEqual([false, false, false]);
    // An order that sorting must fix: 0.3 first would stop at once.
    expect(holm([0.3, 0.001], 0.05)).toEqual([false, true]);
    expect(holm([0.001], 0.05)).toEqual([true]);
  });

  test("a p exactly at its level is not significant (p < level, as a test at alpha is)", () => {
    // 0.05 / 2 is 0.025 exactly in binary floating point (halving is exact).
    expect(holm([0.025, 0.5], 0.05)).toEqual([false, false]);
    expect(holm([0.0249, 0.05], 0.05)).toEqual([true, false]);
  });
});
