// The statistics of a history of sessions: whether a figure holds tomorrow. A session (one run
// of benchmark.sh) gives a series its estimate and the estimate's own standard error, but sessions
// differ more than a run admits (docs/history.md): its interval describes that session, not the
// next one. Kalibera & Jones ("Rigorous benchmarking in reasonable time", ISMM 2013): the
// interval comes from the highest level that varies, here the sessions, each one observation.
// Everything works on the log scale (a session's estimate is ln of its figure, its se that of the
// log), where a step or a spread is relative; callers convert to the natural scale with exp.

import { holm, type Interval, spread, tCritical, tTwoSidedP } from "./stats.ts";
import { ALPHA } from "./verdicts.ts";

/** One session of one series (testbed × settings × app or ratio × scenario × metric). */
export interface SessionPoint {
  /** The run the session is (its results folder's name): what a report links the point to. */
  readonly run: string;
  /** When the session started, ISO 8601: the history's order. */
  readonly startedAt: string;
  /** The session's estimate, as the natural log of the figure (req/s, a ratio, a latency). */
  readonly estimate: number;
  /** The session's own (within-session) standard error of that log estimate. */
  readonly se: number;
}

/** What the sessions of one series say together. */
export interface AcrossSessions {
  /** How many sessions. */
  readonly n: number;
  /** The confidence level of low–high and of the prediction interval (0.95 by default). */
  readonly level: number;
  /** The mean of the sessions' log estimates, each session weighing the same. */
  readonly estimate: number;
  /** The interval of that mean: Student's t over the sessions, n − 1 degrees of freedom. */
  readonly low: number;
  readonly high: number;
  /** Standard deviation of the sessions' log estimates (n − 1): how far sessions part. */
  readonly betweenSd: number;
  /** Root mean square of the sessions' own standard errors: the spread each session admits. */
  readonly withinSe: number;
  /**
   * √max(0, betweenSd² − withinSe²): the part of the spread the sessions add beyond their own
   * noise (0 when they part no more than their standard errors say they should).
   */
  readonly sessionComponent: number;
  /** Where one more session should land: mean ± t·betweenSd·√(1 + 1/n), at `level`. */
  readonly prediction: Interval;
}

/** The sessions' log estimates' mean and spread, and the prediction interval they give. */
function predictionOf(estimates: readonly number[], level: number) {
  const s = spread(estimates);
  const scale = s.stddev * Math.sqrt(1 + 1 / s.n);
  const half = tCritical(1 - level, s.n - 1) * scale;
  return { s, scale, prediction: { low: s.mean - half, high: s.mean + half } };
}

/**
 * The sessions of one series taken together; undefined for fewer than two, where there is no
 * spread between sessions to build an interval from.
 */
export function acrossSessions(
  points: readonly SessionPoint[],
  level = 0.95,
): AcrossSessions | undefined {
  if (points.length < 2) return undefined;
  const { s, prediction } = predictionOf(
    points.map((p) => p.estimate),
    level,
  );
  const half = (tCritical(1 - level, s.n - 1) * s.stddev) / Math.sqrt(s.n);
  const withinVariance = points.reduce((a, p) => a + p.se ** 2, 0) / s.n;
  return {
    n: s.n,
    level,
    estimate: s.mean,
    low: s.mean - half,
    high: s.mean + half,
    betweenSd: s.stddev,
    withinSe: Math.sqrt(withinVariance),
    sessionComponent: Math.sqrt(Math.max(0, s.stddev ** 2 - withinVariance)),
    prediction,
  };
}

/** How many of a series' sessions fall inside the prediction interval of the others. */
export interface HeldOut {
  readonly inside: number;
  readonly of: number;
}

/**
 * Leave-one-out: each session held out in turn, against the 95% prediction interval of the
 * others: the real check of the prediction interval's promise (about 95% inside). undefined
 * below MIN_EARLIER_SESSIONS + 1 sessions, where the others give no prediction.
 */
export function heldOut(points: readonly SessionPoint[], level = 0.95): HeldOut | undefined {
  if (points.length < MIN_EARLIER_SESSIONS + 1) return undefined;
  const estimates = points.map((p) => p.estimate);
  const inside = estimates.filter((x, i) => {
    const { prediction } = predictionOf(
      estimates.filter((_, j) => j !== i),
      level,
    );
    return x >= prediction.low && x <= prediction.high;
  }).length;
  return { inside, of: points.length };
}

/** A newest session needs this many earlier ones: a prediction interval on 2 df is ±4.3 SDs. */
export const MIN_EARLIER_SESSIONS = 3;

/** One series' newest session judged against its earlier ones. */
export interface NewestChange {
  /** The newest session's run. */
  readonly run: string;
  /** Its log estimate. */
  readonly estimate: number;
  /**
   * Two-sided p of that estimate under the earlier sessions' prediction distribution:
   * t = (x − mean) / (s·√(1 + 1/n)), n − 1 degrees of freedom.
   */
  readonly p: number;
  /** Significant once Holm holds the family of every series tested to alpha. */
  readonly changed: boolean;
  /** How many earlier sessions the prediction comes from. */
  readonly earlier: number;
  /** Where the earlier sessions said it would land, at 1 − alpha (before Holm). */
  readonly prediction: Interval;
}

/** Oldest first by startedAt; points with equal or unreadable times keep their given order. */
function inTimeOrder(points: readonly SessionPoint[]): SessionPoint[] {
  return [...points].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
}

/**
 * Whether the newest session of each series left what its history predicts: the one rule the
 * run summary and `history --check` use. Series with fewer than MIN_EARLIER_SESSIONS earlier
 * sessions are not tested and have no entry; the others form one family, held to alpha by
 * Holm, since a run that checks forty series would otherwise flag two by chance.
 */
export function newestChanged(
  series: readonly { readonly key: string; readonly points: readonly SessionPoint[] }[],
  alpha = ALPHA,
): Map<string, NewestChange> {
  const tested: { key: string; change: Omit<NewestChange, "changed"> }[] = [];
  const seen = new Set<string>();
  for (const { key, points } of series) {
    if (seen.has(key)) throw new Error(`newestChanged: series ${key} twice`);
    seen.add(key);
    if (points.length < MIN_EARLIER_SESSIONS + 1) continue;
    const ordered = inTimeOrder(points);
    const newest = ordered.pop() as SessionPoint;
    const { s, scale, prediction } = predictionOf(
      ordered.map((p) => p.estimate),
      1 - alpha,
    );
    // Earlier sessions all equal: 0/0 is no evidence (p = 1), x/0 is certain (p = 0).
    const p = tTwoSidedP((newest.estimate - s.mean) / scale, s.n - 1);
    tested.push({
      key,
      change: { run: newest.run, estimate: newest.estimate, p, earlier: s.n, prediction },
    });
  }
  const changed = holm(
    tested.map((t) => t.change.p),
    alpha,
  );
  return new Map(tested.map((t, i) => [t.key, { ...t.change, changed: changed[i] === true }]));
}

/** An ordinary least squares slope with its interval. */
export interface Slope {
  /** How many points. */
  readonly n: number;
  /** The change in y per unit of x. */
  readonly slope: number;
  /** Its standard error, from the residuals (n − 2 degrees of freedom). */
  readonly se: number;
  /** The slope's 95% interval: Student's t, n − 2 degrees of freedom. */
  readonly low: number;
  readonly high: number;
  /** Two-sided p of a slope of 0. */
  readonly p: number;
}

/**
 * The OLS slope of y on x: used where a series has 8+ sessions, its log ratio against the
 * reference's own log cost per request, to see whether a ratio moves with how fast the machine
 * was that day. Undefined below three points (no residual left to judge the slope by) or when
 * every x is the same.
 */
export function slopeAgainst(points: readonly { x: number; y: number }[]): Slope | undefined {
  const n = points.length;
  if (n < 3 || new Set(points.map((p) => p.x)).size === 1) return undefined;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * p.y; // Σ(x − x̄)(y − ȳ), since Σ(x − x̄) = 0
  }
  const slope = sxy / sxx;
  const rss = points.reduce((a, p) => a + (p.y - my - slope * (p.x - mx)) ** 2, 0);
  const se = Math.sqrt(rss / (n - 2) / sxx);
  const half = tCritical(0.05, n - 2) * se;
  return { n, slope, se, low: slope - half, high: slope + half, p: tTwoSidedP(slope / se, n - 2) };
}
