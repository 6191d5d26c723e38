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
