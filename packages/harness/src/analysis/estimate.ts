// The statistics behind every published number and verdict, on the run's nesting: samples
// (short back-to-back load runs) within processes (each a fresh start of the app) within
// rounds (each app started once, in an interleaved order). Measured on the project's VM,
// the process term dominates (docs/statistics.md, "Precision"), so a mean's uncertainty is built from
// process means: each process is one observation, its samples only make that observation
// steadier. That is the level-wise analysis of Kalibera & Jones ("Rigorous benchmarking in
// reasonable time", ISMM 2013): average the lower level, build the interval at the top one,
// with Student's t. Two apps of one run are compared round by round: a round starts every
// app once, at nearly the same moment, so whatever slowed the machine in that round slowed
// them alike, and the test is a paired t-test on the per-round log ratios of their process
// means (its variance was 0.45–0.64 of the unpaired one on the published runs). Runs measured
// apart (--compare) share no rounds and are compared by Welch's t-test on process means.
// Every family of comparisons a table makes is held together by Holm, and each comparison
// states the smallest difference it could detect (noncentral t, power exactly POWER).

import {
  detectableInSe,
  holm,
  type Interval,
  spread,
  tCdf,
  tCritical,
  tTwoSidedP,
} from "./stats.ts";

/** Significance level of every test, family-wise (Holm) within a family. */
export const ALPHA = 0.05;
/** The power at which the minimal detectable difference is stated. */
export const POWER = 0.8;
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

/** A comparison of b against a, expressed relative to a. */
export interface PairTest {
  /** b / a − 1 */
  readonly change: number;
  readonly t: number;
  readonly df: number;
  /** Two-sided p. */
  readonly p: number;
  /**
   * Standard error of the difference: as a share of a's mean (Welch), or of the mean log
   * ratio ln(b / a) (paired), which is the same to first order.
   */
  readonly se: number;
  /** 95% CI of `change` (unadjusted); asymmetric around it for a paired test. */
  readonly ci: Interval;
  /** Set for a paired test: how many rounds it paired; `t`, `se` and `ci` are on ln(b / a). */
  readonly paired?: number;
}

/**
 * Welch's test on process means: for estimates whose processes are not paired (two runs).
 * undefined with fewer than two processes on a side: no spread to test against.
 */
export function welchPair(a: Estimate, b: Estimate): PairTest | undefined {
  if (a.processes < 2 || b.processes < 2 || !(a.mean > 0) || !(b.mean > 0)) return undefined;
  const va = a.sd ** 2 / a.processes;
  const vb = b.sd ** 2 / b.processes;
  const diff = b.mean - a.mean;
  const se = Math.sqrt(va + vb);
  const change = diff / a.mean;
  if (se === 0) {
    const t = diff === 0 ? 0 : Math.sign(diff) * Number.POSITIVE_INFINITY;
    const df = a.processes + b.processes - 2;
    return { change, t, df, p: diff === 0 ? 1 : 0, se: 0, ci: { low: change, high: change } };
  }
  const df = (va + vb) ** 2 / (va ** 2 / (a.processes - 1) + vb ** 2 / (b.processes - 1));
  const t = diff / se;
  const half = (tCritical(ALPHA, df) * se) / a.mean;
  return {
    change,
    t,
    df,
    p: tTwoSidedP(t, df),
    se: se / a.mean,
    ci: { low: change - half, high: change + half },
  };
}

/**
 * The one-sample t-test of log ratios ln(b / a), one per pair of observations: the ratio is
 * exp(mean), its interval exp(mean ± t · se). undefined with fewer than two ratios.
 */
export function logRatioTest(logRatios: readonly number[]): PairTest | undefined {
  const s = spread(logRatios);
  if (s.n < 2 || !Number.isFinite(s.mean)) return undefined;
  const df = s.n - 1;
  const se = s.stddev / Math.sqrt(s.n);
  const change = Math.exp(s.mean) - 1;
  if (se === 0) {
    const t = s.mean === 0 ? 0 : Math.sign(s.mean) * Number.POSITIVE_INFINITY;
    const p = s.mean === 0 ? 1 : 0;
    return { change, t, df, p, se: 0, ci: { low: change, high: change }, paired: s.n };
  }
  const t = s.mean / se;
  const half = tCritical(ALPHA, df) * se;
  return {
    change,
    t,
    df,
    p: tTwoSidedP(t, df),
    se,
    ci: { low: Math.exp(s.mean - half) - 1, high: Math.exp(s.mean + half) - 1 },
    paired: s.n,
  };
}

/** The per-round log ratios ln(b / a) of the rounds both measured (each a positive mean). */
export function roundLogRatios(a: Estimate, b: Estimate): number[] {
  const ofA = new Map(a.rounds.map((round, i) => [round, a.means[i] as number]));
  return b.rounds.flatMap((round, i) => {
    const x = ofA.get(round);
    const y = b.means[i] as number;
    return x !== undefined && x > 0 && y > 0 ? [Math.log(y / x)] : [];
  });
}

/**
 * Pairing by round from this many rounds in common: a paired test has n − 1 degrees of freedom
 * where Welch's has about 2n − 2, so it wins only where the round effect the two apps share
 * cuts the variance enough (at Holm's strictest level of a 15-app table, 105 pairs: to under
 * 0.83 of the unpaired one at 20 rounds, 0.64 at 10, 0.29 at 5). Where the truth is known it
 * does: in 20-round subsamples of the calibration run (one app against itself with 10% more
 * CPU per request) it found the 10% in 46 of 100, Welch's in 19, neither ever calling A/A
 * different. Between different apps it gains less: pairs within 10% of each other in the
 * published 20-round runs kept 0.85–0.90 of the unpaired variance, and their detectable
 * difference came out 1.01–1.13 of Welch's (docs/statistics.md, "Precision"). Below 20 rounds the cost
 * grows fast (a 3-round run's ties could have hidden 550%). The rule counts the rounds the
 * two share (the run's design, less any round whose process had no valid sample), never the
 * verdicts.
 */
export const PAIRED_MIN_ROUNDS = 20;

/**
 * b against a, two estimates of one run: paired by round (roundLogRatios) when they share
 * PAIRED_MIN_ROUNDS rounds or more; otherwise Welch's test on process means.
 */
export function testPair(a: Estimate, b: Estimate): PairTest | undefined {
  const ratios = roundLogRatios(a, b);
  return ratios.length >= PAIRED_MIN_ROUNDS ? logRatioTest(ratios) : welchPair(a, b);
}

/** One-sided p that b is below a ("down") or above it ("up"). */
export const oneSidedP = (test: PairTest, direction: "down" | "up"): number =>
  direction === "down" ? tCdf(test.t, test.df) : 1 - tCdf(test.t, test.df);

/**
 * Two one-sided tests (TOST) of equivalence within ±margin (a share of a's mean): the p of
 * "the true change is beyond the margin", the larger of the two one-sided p-values. A paired
 * test's margins are ln(1 ± margin) on its log scale.
 */
export function equivalenceP(test: PairTest, margin: number): number {
  if (test.se === 0) return Math.abs(test.change) < margin ? 0 : 1;
  const [estimate, low, high] = test.paired
    ? [Math.log1p(test.change), Math.log1p(-margin), Math.log1p(margin)]
    : [test.change, -margin, margin];
  const lower = 1 - tCdf((estimate - low) / test.se, test.df);
  const upper = tCdf((estimate - high) / test.se, test.df);
  return Math.max(lower, upper);
}

/**
 * The smallest true change (a share of a's mean) a test at `alpha` would detect with
 * probability POWER, at this pair's standard error (noncentral t). `sides` 2: either
 * direction; 1: one. For a paired test, the log-scale difference as a share: exp(δ) − 1.
 */
export function detectable(test: PairTest, alpha: number, sides: 1 | 2 = 2): number {
  const inSe = detectableInSe(alpha, POWER, test.df, sides) * test.se;
  return test.paired ? Math.expm1(inSe) : inSe;
}

/** A comparison in a family: its test, and whether it holds under Holm over the family. */
export interface Verdict {
  readonly test?: PairTest;
  /** Holm-significant; an untestable pair never is (a tie). */
  readonly significant: boolean;
  /** Minimal detectable change at the family's strictest level (alpha / m), power POWER. */
  readonly mdd?: number;
}

/**
 * Every pair of `estimates` (i < j), tested two-sided and held together to ALPHA by Holm.
 * Keys are "i,j"; `verdictOf` reads them in either order.
 */
export function pairFamily(estimates: readonly Estimate[]): Map<string, Verdict> {
  const pairs: { key: string; test: PairTest | undefined }[] = [];
  for (let i = 0; i < estimates.length; i++) {
    for (let j = i + 1; j < estimates.length; j++) {
      pairs.push({
        key: `${i},${j}`,
        test: testPair(estimates[i] as Estimate, estimates[j] as Estimate),
      });
    }
  }
  return familyVerdicts(pairs, (t) => t.p, 2);
}

/** Holm over the testable members; each gets its MDD at alpha / m. */
export function familyVerdicts(
  members: readonly { key: string; test: PairTest | undefined }[],
  pOf: (test: PairTest) => number,
  sides: 1 | 2,
  alpha = ALPHA,
): Map<string, Verdict> {
  const tested = members.filter((m): m is { key: string; test: PairTest } => !!m.test);
  const significant = holm(
    tested.map((m) => pOf(m.test)),
    alpha,
  );
  const strictest = alpha / Math.max(1, tested.length);
  const out = new Map<string, Verdict>();
  for (const m of members) out.set(m.key, { significant: false });
  tested.forEach((m, i) => {
    out.set(m.key, {
      test: m.test,
      significant: significant[i] === true,
      mdd: detectable(m.test, strictest, sides),
    });
  });
  return out;
}

/** The verdict of estimates i and j of a pairFamily, from i's point of view (b = j). */
export function verdictOf(family: Map<string, Verdict>, i: number, j: number): Verdict {
  if (i < j) return family.get(`${i},${j}`) ?? { significant: false };
  const v = family.get(`${j},${i}`) ?? { significant: false };
  if (!v.test) return v;
  return { ...v, test: flipped(v.test), ...(v.mdd === undefined ? {} : { mdd: flippedMdd(v) }) };
}

/** a against b, from b against a: the same difference seen from the other side. */
export function flipped(t: PairTest): PairTest {
  const ratio = 1 + t.change;
  const change = 1 / ratio - 1;
  if (t.paired) {
    // ln(a / b) = −ln(b / a): the same test with its sign turned.
    const ci = { low: 1 / (1 + t.ci.high) - 1, high: 1 / (1 + t.ci.low) - 1 };
    return { ...t, change, t: -t.t, ci };
  }
  // The same absolute difference, negated, relative to the other mean (ratio = other / this
  // > 0: welchPair refuses a mean of 0).
  const half = (t.ci.high - t.ci.low) / 2 / ratio;
  return {
    ...t,
    change,
    t: -t.t,
    se: t.se / ratio,
    ci: { low: change - half, high: change + half },
  };
}

/** A log-scale MDD reads the same from either side; a Welch one is relative to the other mean. */
const flippedMdd = (v: Verdict): number =>
  v.test?.paired ? (v.mdd as number) : (v.mdd as number) / (1 + (v.test?.change ?? 0));

/** What a regression gate says of one comparison, b against a, read as speed (a fall: slower). */
export type GateVerdict =
  | "regression"
  | "improvement"
  | "no change beyond the threshold"
  | "inconclusive";

export interface Gate {
  readonly verdict: GateVerdict;
  /** One-sided p in the direction the mean moved. */
  readonly p: number;
  /** TOST p: that the true change lies beyond ±threshold. */
  readonly equivalenceP: number;
  /** The smallest change a one-sided test at Holm's strictest level detects with POWER. */
  readonly detectable: number;
  /** Why an inconclusive pair is one. */
  readonly note?: string;
}

/**
 * The gate over a family of comparisons (untested members have none): regression when the
 * change in the `worse` direction ("down": a fall in speed; "up": a rise in cost) is
 * significant (one-sided, Holm over the family) and at least the threshold; improvement
 * likewise the other way; "no change beyond the threshold" only where an equivalence test
 * (TOST against ±threshold, Holm) shows it; otherwise inconclusive, with the change the pair
 * could have detected. Three families, each held to alpha.
 */
export function gate(
  members: readonly { key: string; test: PairTest | undefined }[],
  threshold: number,
  alpha = ALPHA,
  worse: "down" | "up" = "down",
): Map<string, Gate> {
  const better = worse === "down" ? "up" : "down";
  const family = (pOf: (t: PairTest) => number) => familyVerdicts(members, pOf, 1, alpha);
  const worsened = family((t) => oneSidedP(t, worse));
  const bettered = family((t) => oneSidedP(t, better));
  const within = family((t) => equivalenceP(t, threshold));
  const atWorst = alpha / Math.max(1, members.filter((m) => m.test).length);
  const beyond = (t: PairTest, direction: "down" | "up") =>
    direction === "down" ? t.change <= -threshold : t.change >= threshold;
  const out = new Map<string, Gate>();
  for (const { key, test } of members) {
    if (!test) continue;
    const found = (f: Map<string, Verdict>) => f.get(key)?.significant === true;
    const base = {
      p: oneSidedP(test, test.t < 0 ? "down" : "up"),
      equivalenceP: equivalenceP(test, threshold),
      detectable: detectable(test, atWorst, 1),
    };
    const towards = test.t < 0 ? "down" : "up";
    if (found(worsened) && beyond(test, worse)) out.set(key, { ...base, verdict: "regression" });
    else if (found(bettered) && beyond(test, better))
      out.set(key, { ...base, verdict: "improvement" });
    else if (found(within)) out.set(key, { ...base, verdict: "no change beyond the threshold" });
    else {
      const moved = towards === worse ? "slower" : "faster";
      const significant = found(towards === worse ? worsened : bettered);
      const note =
        (significant ? `${moved}, significantly, but ` : "") +
        `not shown within ±${(threshold * 100).toFixed(1)}% (detectable ≥ ${(base.detectable * 100).toFixed(1)}%)`;
      out.set(key, { ...base, verdict: "inconclusive", note });
    }
  }
  return out;
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
