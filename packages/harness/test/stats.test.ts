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
  QUALITY_SCALE_TEXT,
  qualityOf,
  spread,
  tCdf,
  tCritical,
  tTwoSidedP,
  welch,
} from "../src/analysis/stats.ts";

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

// The Lanczos log-gamma behind it is good to about 1e-15: twelve decimals are asserted.
describe("the incomplete beta function", () => {
  test("closed forms on both sides of its branch point", () => {
    // I_x(2, 3) at 0.5: (C(4,2) + C(4,3) + C(4,4)) / 16
    expect(incompleteBeta(0.5, 2, 3)).toBeCloseTo(11 / 16, 12);
    // I_x(1/2, 1/2) = (2/π) asin(√x): the arcsine law, below and above (a+1)/(a+b+2) = 0.5
    const arcsine = (x: number) => (2 / Math.PI) * Math.asin(Math.sqrt(x));
    expect(incompleteBeta(0.2, 0.5, 0.5)).toBeCloseTo(arcsine(0.2), 12);
    expect(incompleteBeta(0.9, 0.5, 0.5)).toBeCloseTo(arcsine(0.9), 12);
    expect(incompleteBeta(0.999, 0.5, 0.5)).toBeCloseTo(arcsine(0.999), 12);
    // I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b
    expect(incompleteBeta(0.7, 3, 1)).toBeCloseTo(0.343, 12);
    expect(incompleteBeta(0.3, 1, 4)).toBeCloseTo(1 - 0.7 ** 4, 12);
  });

  test("shapes below 1/2 (ln Γ by reflection): I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b", () => {
    expect(incompleteBeta(0.3, 0.25, 1)).toBeCloseTo(0.3 ** 0.25, 12);
    expect(incompleteBeta(0.3, 1, 0.25)).toBeCloseTo(1 - 0.7 ** 0.25, 12);
    expect(incompleteBeta(0.5, 0.25, 0.25)).toBeCloseTo(0.5, 12); // symmetric
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
    // Every level rejects beyond 0 at 100%; a level in percent, or below 0, is no test.
    expect(tCritical(1, 5)).toBeCloseTo(0, 9);
    expect(tCritical(95, 5)).toBeNaN();
    expect(tCritical(-0.05, 5)).toBeNaN();
    expect(tCritical(Number.NaN, 5)).toBeNaN();
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

describe("spread, quality, interval, median", () => {
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

  test("spread of one value: no deviation at all, not 0/0", () => {
    expect(spread([7])).toEqual({ n: 1, mean: 7, stddev: 0, cov: 0 });
  });

  test("the verdict's edges: 3%, 5% and 10% are still the better word", () => {
    expect(qualityOf(0.0299)).toBe("excellent");
    expect(qualityOf(0.03)).toBe("acceptable");
    expect(qualityOf(0.0499)).toBe("acceptable");
    expect(qualityOf(0.05)).toBe("noisy");
    expect(qualityOf(0.1)).toBe("noisy");
    expect(qualityOf(0.1001)).toBe("unreliable");
    expect(QUALITY_SCALE_TEXT).toBe(
      "< 3% excellent, 3–5% acceptable, 5–10% noisy, > 10% unreliable",
    );
  });

  test("the 95% interval of two values uses t with one degree of freedom", () => {
    const ci = confidenceInterval([1, 2]);
    const half = (12.7062 * Math.SQRT1_2) / Math.SQRT2;
    expect(ci?.low).toBeCloseTo(1.5 - half, 3);
    expect(ci?.high).toBeCloseTo(1.5 + half, 3);
    expect(confidenceInterval([1])).toBeUndefined();
  });

  test("a 0% interval is the mean itself; a 100% one spans (practically) every value", () => {
    expect(confidenceInterval([1, 2, 3], 0)).toEqual({ low: 2, high: 2 });
    const all = confidenceInterval([1, 2, 3], 1);
    expect(all?.low).toBeLessThan(-1e100);
    expect(all?.high).toBeGreaterThan(1e100);
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

  test("detectableInSe for a loose one-sided test, whose critical value is below 1", () => {
    // scipy.stats.nct, solved with brentq: one-sided 0.2 (t(0.8, 10) = 0.8791), 80% power.
    expect(detectableInSe(0.2, 0.8, 10, 1)).toBeCloseTo(1.7146159902602278, 6);
  });

  test("detectableInSe: a power no higher than the level needs no difference at all", () => {
    // With no difference the test already rejects 5% of the time.
    expect(detectableInSe(0.05, 0.04, 10)).toBeCloseTo(0, 9);
  });

  test("detectableInSe: a power above 100% (80 meant as 80%) gives up at a million, not never", () => {
    const huge = detectableInSe(0.05, 80, 10);
    expect(huge).toBeGreaterThan(1e6);
    expect(Number.isFinite(huge)).toBe(true);
  });

  test("detectableInSe: asked again, the same answer; two questions never share one", () => {
    const ask = (df: number) => detectableInSe(0.037, 0.8, df); // asked nowhere else here
    const answers = [ask(13.5), ask(14.5)];
    expect(answers[0]).toBeGreaterThan(answers[1] as number); // fewer df, a larger difference
    for (let i = 0; i < 3; i++) expect([ask(13.5), ask(14.5)]).toEqual(answers);
    expect(detectableInSe(0.037, 0.8, 13.5, 1)).toBeLessThan(answers[0] as number);
  });

  test("detectableInSe for certainty: the smallest difference whose power rounds to 1", () => {
    // df 1e6 (normal approximation): 1 − Φ(1.96 − δ) rounds to 1 once Φ(1.96 − δ) ≤ 2^−54,
    // so δ = t(0.975, 1e6) − Φ⁻¹(2^−54) = 1.959966 + 8.292361 (scipy).
    const sure = detectableInSe(0.05, 1, 1e6);
    expect(sure).toBeCloseTo(10.2523, 4);
    expect(power(sure + 0.01, 1e6, 0.05)).toBe(1);
    expect(power(sure - 0.01, 1e6, 0.05)).toBeLessThan(1);
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

  test("gammaQ below 0: a gamma variable is never negative, so Q(a, x) = P(X > x) = 1", () => {
    expect(gammaQ(2, -1)).toBe(1);
    expect(gammaQ(0.5, -3)).toBe(1);
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
      [1, 1, 0.5, 0.5927477364400293],
      [-2, 1, 1, 0.03184888155829535],
      [3, 2, 2, 0.6293856597184411],
      [-0.5, 2, -1, 0.7065774639251668],
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

  test("noncentralTCdf at and next to t = 0 is Φ(−δ), its far tail included", () => {
    // scipy: nct.cdf(0, 10, 20) = norm.cdf(-20) = 2.7536241186063314e-89
    expect(noncentralTCdf(0, 10, 20) / 2.7536241186063314e-89).toBeCloseTo(1, 6);
    expect(noncentralTCdf(1e-9, 10, 1)).toBeCloseTo(0.15865525416746323, 8);
    expect(noncentralTCdf(-1e-9, 10, 1)).toBeCloseTo(0.15865525369545092, 8);
  });

  test("noncentralTCdf beyond the series (df > 4e5 or |δ| > 37.6): the normal approximation", () => {
    // Abramowitz & Stegun 26.7.10 against scipy.stats.nct: good to about 1e-9 at df 1e6, where
    // the series' (1 − x)^(df/2) underflows for a t of 40; 3e-7 at df 1e4, 2e-4 at df 1000.
    const cases: [number, number, number, number, number][] = [
      [2, 1e6, 1.5, 0.6914621092090165, 8],
      [-2, 1e6, -1.5, 0.30853789079098354, 8],
      [-1, 1e6, 0.5, 0.06680728221734433, 8],
      [40, 1e6, 37.5, 0.9937726195808181, 8],
      [-40, 1e6, -37.5, 0.006227380419181943, 8],
      [41, 1e4, 40, 0.8313379156798739, 5],
      [-41, 1e4, -40, 0.16866208432012608, 5],
      [41, 1000, 40, 0.7670156997894253, 3],
    ];
    for (const [t, df, ncp, want, digits] of cases)
      expect(noncentralTCdf(t, df, ncp)).toBeCloseTo(want, digits);
  });

  test("noncentralTCdf up to 4e5 degrees of freedom still sums the series, to nine digits", () => {
    // scipy.stats.nct; the normal approximation is 2.8e-9 off here.
    expect(noncentralTCdf(30, 4e5, 30)).toBeCloseTo(0.4999925212382864, 9);
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
