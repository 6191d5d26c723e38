// The numbers a summary reports, computed from valid trials only.

export interface Spread {
  readonly n: number;
  readonly mean: number;
  /** Sample standard deviation (n - 1); 0 for a single value. */
  readonly stddev: number;
  /** stddev / mean; 0 when the mean is 0. */
  readonly cov: number;
}

export function spread(values: readonly number[]): Spread {
  const n = values.length;
  if (n === 0) return { n, mean: Number.NaN, stddev: Number.NaN, cov: Number.NaN };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  const stddev = Math.sqrt(variance);
  return { n, mean, stddev, cov: mean === 0 ? 0 : stddev / mean };
}

/** How steady a set of samples is, by its coefficient of variation: not a verdict on a comparison (verdicts.ts). */
export type Quality = "excellent" | "acceptable" | "noisy" | "unreliable";

/** The scale ergo's report uses, as upper bounds of CoV: excellent below 3%, and so on. */
export const QUALITY_BOUNDS = { excellent: 0.03, acceptable: 0.05, noisy: 0.1 } as const;

/** "< 3% excellent, 3–5% acceptable, 5–10% noisy, > 10% unreliable": the scale as prose says it. */
export const QUALITY_SCALE_TEXT = (() => {
  const { excellent, acceptable, noisy } = QUALITY_BOUNDS;
  const pc = (x: number) => Math.round(x * 100);
  return `< ${pc(excellent)}% excellent, ${pc(excellent)}–${pc(acceptable)}% acceptable, ${pc(acceptable)}–${pc(noisy)}% noisy, > ${pc(noisy)}% unreliable`;
})();

/** A spread's quality by its coefficient of variation, on QUALITY_BOUNDS (10% itself is noisy). */
export function qualityOf(cov: number): Quality {
  if (cov < QUALITY_BOUNDS.excellent) return "excellent";
  if (cov < QUALITY_BOUNDS.acceptable) return "acceptable";
  if (cov <= QUALITY_BOUNDS.noisy) return "noisy";
  return "unreliable";
}

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): good to about 1e-15 relative. */
function logGamma(x: number): number {
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.984369578019572e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Numerical Recipes' FPMIN: a denominator of the continued fraction that falls below 1e-300
 * is replaced by 1e-300, so the next division cannot be by zero. (For the shapes a t-test
 * uses, a = df/2 and b = 1/2, none comes closer to 0 than about 2e-3.)
 */
const awayFromZero = (v: number): number => (Math.abs(v) < 1e-300 ? 1e-300 : v);

/** Continued fraction for the incomplete beta function (Numerical Recipes' betacf). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  let c = 1;
  let d = awayFromZero(1 - ((a + b) * x) / (a + 1));
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = awayFromZero(1 + aa * d);
    c = awayFromZero(1 + aa / c);
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = awayFromZero(1 + aa * d);
    c = awayFromZero(1 + aa / c);
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-12) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x),
  );
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(a, b, x)) / a
    : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

export interface WelchResult {
  readonly t: number;
  readonly df: number;
  /** Two-sided p-value: how likely a difference this large is if the two means are equal. */
  readonly p: number;
}

/**
 * Welch's t-test (unequal variances) on two samples of trials; undefined with fewer than two
 * values on either side, where there is no variance to test against.
 */
export function welch(a: readonly number[], b: readonly number[]): WelchResult | undefined {
  const sa = spread(a);
  const sb = spread(b);
  if (sa.n < 2 || sb.n < 2) return undefined;
  const va = sa.stddev ** 2 / sa.n;
  const vb = sb.stddev ** 2 / sb.n;
  const diff = sb.mean - sa.mean;
  if (va + vb === 0)
    return {
      t: diff === 0 ? 0 : Math.sign(diff) * Infinity,
      df: sa.n + sb.n - 2,
      p: diff === 0 ? 1 : 0,
    };
  const t = diff / Math.sqrt(va + vb);
  const df = (va + vb) ** 2 / (va ** 2 / (sa.n - 1) + vb ** 2 / (sb.n - 1));
  return { t, df, p: tTwoSidedP(t, df) };
}

/** Two-sided p-value of Student's t with `df` degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  // No statistic (0/0 upstream) is no evidence of a difference, not proof of one.
  if (Number.isNaN(t)) return 1;
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/**
 * The t such that a two-sided test at level `alpha` rejects beyond it: tTwoSidedP(t, df) =
 * alpha. Found by bisection (the p-value falls monotonically in t).
 */
export function tCritical(alpha: number, df: number): number {
  // A level in percent (95) or a negative one would never be reached: no such test.
  if (!(alpha >= 0 && alpha <= 1)) return Number.NaN;
  let lo = 0;
  let hi = 1;
  while (tTwoSidedP(hi, df) > alpha) hi *= 2;
  // 64 halvings leave 2^-64 of the bracket: within 1e-19 of the answer, relative where hi had
  // to grow (the answer is then above hi / 2), absolute where it did not.
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2;
    if (tTwoSidedP(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * The confidence interval of the mean (Student's t, default 95%); undefined with fewer than
 * two values, where there is no spread to build it from.
 */
export function confidenceInterval(values: readonly number[], level = 0.95): Interval | undefined {
  const s = spread(values);
  if (s.n < 2) return undefined;
  const half = (tCritical(1 - level, s.n - 1) * s.stddev) / Math.sqrt(s.n);
  return { low: s.mean - half, high: s.mean + half };
}

/** The median (mean of the middle two for an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function tCdf(t: number, df: number): number {
  if (Number.isNaN(t)) return 0.5;
  const tail = tTwoSidedP(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/**
 * Holm's step-down: the smallest p is held to alpha/m (as Bonferroni holds all), the next to
 * alpha/(m−1), and so on until one fails. The same family-wise error rate as Bonferroni under
 * any dependence, and never less power. Returns, per p-value, whether it is significant.
 */
export function holm(pValues: readonly number[], alpha: number): boolean[] {
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const significant = pValues.map(() => false);
  for (const [rank, { p, i }] of order.entries()) {
    if (!(p < alpha / (pValues.length - rank))) break;
    significant[i] = true;
  }
  return significant;
}

/**
 * The standard normal distribution function Φ(x), from the regularized upper incomplete gamma
 * function: Φ(x) = Q(1/2, x²/2) / 2 for x ≤ 0 (so a far tail keeps its digits), good to about
 * 1e-14 relative.
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const tail = gammaQ(0.5, (x * x) / 2) / 2;
  return x <= 0 ? tail : 1 - tail;
}

/**
 * The regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x): from P's series below
 * a + 1, from its own continued fraction above (Numerical Recipes' gser and gcf).
 */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (!Number.isFinite(x)) return 0;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) >= Math.abs(sum) * 1e-16; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * front;
  }
  let b = x + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = 1 / awayFromZero(an * d + b);
    c = awayFromZero(b + an / c);
    h *= d * c;
    if (Math.abs(d * c - 1) < 1e-16) break;
  }
  return front * h;
}

/**
 * P(T ≤ t) for the noncentral t distribution with `df` degrees of freedom and noncentrality
 * `ncp`: the distribution of a t statistic when the true difference is ncp standard errors.
 * Lenth's algorithm AS 243 (Applied Statistics 38, 1989), as R's pnt() writes it: a series in
 * incomplete beta functions, summed until its error bound falls below 1e-12.
 */
export function noncentralTCdf(t: number, df: number, ncp: number): number {
  if (Number.isNaN(t) || Number.isNaN(ncp) || !(df > 0)) return Number.NaN;
  if (ncp === 0) return tCdf(t, df);
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  // For t < 0: P(T ≤ t | δ) = 1 − P(T ≤ −t | −δ).
  const negative = t < 0;
  const tt = negative ? -t : t;
  const del = negative ? -ncp : ncp;
  if (df > 4e5 || del * del > 2 * Math.LN2 * 1021) {
    // The series' first term underflows from δ ≈ 37.6 on: Abramowitz & Stegun 26.7.10, as R.
    const s = 1 / (4 * df);
    const z = (tt * (1 - s) - del) / Math.sqrt(1 + tt * tt * 2 * s);
    return negative ? 1 - normalCdf(z) : normalCdf(z);
  }
  const x = (tt * tt) / (tt * tt + df); // at t = 0, every term of the series is 0
  const lambda = del * del;
  let p = 0.5 * Math.exp(-0.5 * lambda);
  let q = Math.sqrt(2 / Math.PI) * p * del;
  let s = 0.5 - p;
  let a = 0.5;
  const b = 0.5 * df;
  const logRxb = b * Math.log1p(-x);
  const rxb = Math.exp(logRxb);
  const albeta = 0.5 * Math.log(Math.PI) + logGamma(b) - logGamma(0.5 + b);
  let xodd = incompleteBeta(x, a, b);
  let godd = 2 * rxb * Math.exp(a * Math.log(x) - albeta);
  let xeven = -Math.expm1(logRxb);
  let geven = b * x * rxb;
  let tnc = p * xodd + q * xeven;
  for (let it = 1; it <= 1000; it++) {
    a += 1;
    xodd -= godd;
    xeven -= geven;
    godd *= (x * (a + b - 1)) / a;
    geven *= (x * (a + b - 0.5)) / (a + 0.5);
    p *= lambda / (2 * it);
    q *= lambda / (2 * it + 1);
    tnc += p * xodd + q * xeven;
    s -= p;
    if (Math.abs(2 * s * (xodd - godd)) < 1e-12) break;
  }
  tnc = Math.min(1, tnc + normalCdf(-del));
  return negative ? 1 - tnc : tnc;
}

/**
 * The probability that a t-test at `alpha` (two-sided, or one-sided in the direction of the
 * difference) rejects when the true difference is `ncp` standard errors.
 */
export function power(ncp: number, df: number, alpha: number, sides: 1 | 2 = 2): number {
  return powerBeyond(ncp, df, tCritical(sides === 2 ? alpha : 2 * alpha, df), sides);
}

function powerBeyond(ncp: number, df: number, critical: number, sides: 1 | 2): number {
  const beyond = 1 - noncentralTCdf(critical, df, ncp);
  return sides === 2 ? beyond + noncentralTCdf(-critical, df, ncp) : beyond;
}

/** detectableInSe's answers: a run's tables ask the same few (alpha, df) over and over. */
const detectableMemo = new Map<string, number>();

/**
 * The smallest true difference, in units of its standard error, that a t-test at `alpha`
 * (two-sided, or one-sided) detects with probability exactly `wanted`: the noncentrality
 * solved from the noncentral t (bisection; power grows with it). The common shortcut
 * t(1 − alpha/2) + t(power) is a little short of the power it claims (77–80% for 80% at the
 * degrees of freedom a run has).
 */
export function detectableInSe(
  alpha: number,
  wanted: number,
  df: number,
  sides: 1 | 2 = 2,
): number {
  const key = `${alpha},${wanted},${df},${sides}`;
  const known = detectableMemo.get(key);
  if (known !== undefined) return known;
  const critical = tCritical(sides === 2 ? alpha : 2 * alpha, df);
  let lo = 0;
  let hi = critical + 1;
  while (powerBeyond(hi, df, critical, sides) < wanted && hi < 1e6) hi *= 2;
  while (hi - lo > 1e-9 * hi) {
    const mid = (lo + hi) / 2;
    if (powerBeyond(mid, df, critical, sides) < wanted) lo = mid;
    else hi = mid;
  }
  const found = (lo + hi) / 2;
  // Stryker disable next-line all: the memo's memory bound; no answer depends on it
  if (detectableMemo.size > 10_000) detectableMemo.clear();
  detectableMemo.set(key, found);
  return found;
}
