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

export type Verdict = "excellent" | "acceptable" | "noisy" | "unreliable";

/** The scale ergo's report uses: < 3% excellent, 3–5% acceptable, 5–10% noisy, > 10% unreliable. */
export function verdict(cov: number): Verdict {
  if (cov < 0.03) return "excellent";
  if (cov < 0.05) return "acceptable";
  if (cov <= 0.1) return "noisy";
  return "unreliable";
}

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): p-values come out right to about 1e-8. */
function logGamma(x: number): number {
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531,
    -176.61503916999186, 12.507343278686905, -0.13857109526572012, 9.984369578019572e-6,
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
  let lo = 0;
  let hi = 1;
  while (tTwoSidedP(hi, df) > alpha) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
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
 * The smallest true difference, in units of its standard error, that a two-sided test at
 * `alpha` detects with probability `power`: t(1 − alpha/2) + t(power), both at `df`.
 */
export function detectableInSe(alpha: number, power: number, df: number): number {
  // tCritical is two-sided: a one-sided quantile q is tCritical(2 × (1 − q)).
  return tCritical(alpha, df) + tCritical(2 * (1 - power), df);
}
