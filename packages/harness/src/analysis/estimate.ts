// One app's figure with its uncertainty, on the run's nesting: samples (short back-to-back
// load runs) within processes (each a fresh start of the app) within rounds (each app started
// once, in an interleaved order). Measured on the project's VM, the process term dominates
// (docs/statistics.md, "Precision"), so a mean's uncertainty is built from process means: each
// process is one observation, its samples only make that observation steadier. That is the
// level-wise analysis of Kalibera & Jones ("Rigorous benchmarking in reasonable time", ISMM
// 2013): average the lower level, build the interval at the top one, with Student's t.
// Comparing two estimates is verdicts.ts's.

import { type Interval, spread, tCritical } from "./stats.ts";

/** Fewer processes than this give too few observations for an honest interval (t(1) = 12.7). */
export const MIN_CI_PROCESSES = 3;

/** One process's valid samples (req/s of each slice), in the order taken. */
export interface ProcessSamples {
  readonly round: number;
  readonly values: readonly number[];
}

/** Within- and between-process spread, as CoV of the grand mean (one-way random effects). */
export interface VarianceComponents {
  /** Sample to sample inside one process. */
  readonly within: number;
  /** Process to process, beyond what the within-process noise explains. */
  readonly between: number;
  /** Mean samples per process. */
  readonly perProcess: number;
}

export interface Estimate {
  readonly processes: number;
  readonly samples: number;
  /** Each process's mean over its samples: the observations every interval and test use. */
  readonly means: readonly number[];
  /** The round of each process mean, in the same order: what pairs two apps' processes. */
  readonly rounds: readonly number[];
  /** Mean of the process means (each process weighs the same). */
  readonly mean: number;
  /** Standard deviation of the process means (n − 1); 0 for one. */
  readonly sd: number;
  /** sd / mean. */
  readonly cov: number;
  /** Standard error of the mean; NaN with fewer than two processes. */
  readonly se: number;
  /** 95% CI of the mean: only from MIN_CI_PROCESSES processes on. */
  readonly ci?: Interval;
  /** The CI's half-width as a share of the mean. */
  readonly halfWidth?: number;
  readonly components?: VarianceComponents;
}

/** The variance components of an unbalanced one-way layout (ANOVA estimators, ≥ 0). */
export function varianceComponents(
  processes: readonly ProcessSamples[],
): VarianceComponents | undefined {
  const groups = processes.filter((p) => p.values.length > 0);
  const n = groups.reduce((a, p) => a + p.values.length, 0);
  const k = groups.length;
  if (k < 2 || n <= k) return undefined;
  const grand = groups.reduce((a, p) => a + p.values.reduce((s, v) => s + v, 0), 0) / n;
  let ssw = 0;
  let ssb = 0;
  for (const p of groups) {
    const m = spread(p.values).mean;
    for (const v of p.values) ssw += (v - m) ** 2;
    ssb += p.values.length * (m - grand) ** 2;
  }
  const msw = ssw / (n - k);
  const msb = ssb / (k - 1);
  const n0 = (n - groups.reduce((a, p) => a + p.values.length ** 2, 0) / n) / (k - 1);
  const between = Math.max(0, (msb - msw) / n0);
  return {
    within: grand === 0 ? 0 : Math.sqrt(msw) / grand,
    between: grand === 0 ? 0 : Math.sqrt(between) / grand,
    perProcess: n / k,
  };
}

export function estimate(processes: readonly ProcessSamples[], level = 0.95): Estimate {
  const measured = processes.filter((p) => p.values.length > 0);
  const means = measured.map((p) => spread(p.values).mean);
  const rounds = measured.map((p) => p.round);
  const s = spread(means);
  const samples = measured.reduce((a, p) => a + p.values.length, 0);
  const se = s.n > 1 ? s.stddev / Math.sqrt(s.n) : Number.NaN;
  const components = varianceComponents(measured);
  const base = {
    processes: s.n,
    samples,
    means,
    rounds,
    mean: s.mean,
    sd: s.stddev,
    cov: s.cov,
    se,
    ...(components ? { components } : {}),
  };
  if (s.n < MIN_CI_PROCESSES) return base;
  const half = tCritical(1 - level, s.n - 1) * se;
  return {
    ...base,
    ci: { low: s.mean - half, high: s.mean + half },
    halfWidth: s.mean === 0 ? Number.POSITIVE_INFINITY : half / s.mean,
  };
}

/**
 * The between-round share of the noise: a two-way layout without replication (apps × rounds,
 * on log process means) separates what a whole round shared from each process's own luck.
 * Large: pairing apps by round would sharpen comparisons; near 0: it cannot. Only complete
 * rounds (every app measured) count; undefined with fewer than 2 apps or 3 such rounds.
 */
export function roundComponent(byApp: readonly ReadonlyMap<number, number>[]): number | undefined {
  if (byApp.length < 2) return undefined;
  const rounds = [...(byApp[0]?.keys() ?? [])].filter((r) =>
    byApp.every((m) => (m.get(r) ?? 0) > 0),
  );
  if (rounds.length < 3) return undefined;
  const y = byApp.map((m) => rounds.map((r) => Math.log(m.get(r) as number)));
  const a = y.length;
  const b = rounds.length;
  const grand = y.flat().reduce((s, v) => s + v, 0) / (a * b);
  const appMean = y.map((row) => row.reduce((s, v) => s + v, 0) / b);
  const roundMean = rounds.map((_, j) => y.reduce((s, row) => s + (row[j] as number), 0) / a);
  let ssRound = 0;
  let ssResidual = 0;
  for (let j = 0; j < b; j++) ssRound += a * ((roundMean[j] as number) - grand) ** 2;
  y.forEach((row, i) => {
    row.forEach((v, j) => {
      ssResidual += (v - (appMean[i] as number) - (roundMean[j] as number) + grand) ** 2;
    });
  });
  const msRound = ssRound / (b - 1);
  const msResidual = ssResidual / ((a - 1) * (b - 1));
  return Math.sqrt(Math.max(0, (msRound - msResidual) / a));
}
