// Is b different from a, and by how much could it be without our seeing it: every comparison
// behind a published rank, tie, regression or "no change". Two apps of one run are compared
// round by round: a round starts every app once, at nearly the same moment, so whatever slowed
// the machine in that round slowed them alike, and the test is a paired t-test on the
// per-round log ratios of their process means (its variance was 0.45–0.64 of the unpaired one
// on the published runs). Runs measured apart (--compare) share no rounds and are compared by
// Welch's t-test on process means. Every family of comparisons a table makes is held together
// by Holm, and each comparison states the smallest difference it could detect (noncentral t,
// power exactly POWER). gate() is the regression check's TOST verdict.

import type { Estimate } from "./estimate.ts";
import {
  detectableInSe,
  holm,
  type Interval,
  type Spread,
  spread,
  tCdf,
  tCritical,
  tTwoSidedP,
} from "./stats.ts";

/** Significance level of every test, family-wise (Holm) within a family. */
export const ALPHA = 0.05;
/** The power at which the minimal detectable difference is stated. */
export const POWER = 0.8;

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
  return logScaleTest(s.mean, s.stddev / Math.sqrt(s.n), s.n - 1, s.n);
}

/** The test of a mean log ratio, given its standard error and degrees of freedom. */
function logScaleTest(mean: number, se: number, df: number, paired: number): PairTest {
  const change = Math.exp(mean) - 1;
  if (se === 0) {
    const t = mean === 0 ? 0 : Math.sign(mean) * Number.POSITIVE_INFINITY;
    const p = mean === 0 ? 1 : 0;
    return { change, t, df, p, se: 0, ci: { low: change, high: change }, paired };
  }
  const t = mean / se;
  const half = tCritical(ALPHA, df) * se;
  return {
    change,
    t,
    df,
    p: tTwoSidedP(t, df),
    se,
    ci: { low: Math.exp(mean - half) - 1, high: Math.exp(mean + half) - 1 },
    paired,
  };
}

/**
 * The side-by-side test of per-round log ratios, as the crossover design they come from: the
 * two positions of every pair (address, start order, whose generator is spawned first) swap
 * from one round to the next (side/pairing.ts), so a round's parity says which arrangement it
 * had, for every pair of the run at once. What a position adds in one arrangement it takes in
 * the other, and between unlike apps that can be several percent (node-bare against bun-bare
 * read 6% apart between the two on 2026-11-27): the plain test counts it as noise. Here the
 * estimate is the mean of the two arrangements' means (equal weights, so it cancels however
 * many rounds each kept), its standard error from the spread within each arrangement, on
 * n − 2 degrees of freedom; exact for normal rounds whatever the positions add. With every
 * round in one arrangement there is nothing to cancel, and with one round in each no spread
 * within them: the one-sample test (whose spread holds the positions', so it errs wide).
 */
export function crossoverTest(byRound: ReadonlyMap<number, number>): PairTest | undefined {
  const arrangements = [0, 1].map((parity) =>
    [...byRound].filter(([round]) => round % 2 === parity).map(([, log]) => log),
  );
  const [even, odd] = arrangements.map(spread) as [Spread, Spread];
  const n = even.n + odd.n;
  if (even.n === 0 || odd.n === 0 || n < 3) return logRatioTest([...byRound.values()]);
  const mean = (even.mean + odd.mean) / 2;
  if (!Number.isFinite(mean)) return undefined;
  const pooled = ((even.n - 1) * even.stddev ** 2 + (odd.n - 1) * odd.stddev ** 2) / (n - 2);
  const se = Math.sqrt(pooled * (1 / even.n + 1 / odd.n)) / 2;
  return logScaleTest(mean, se, n - 2, n);
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
