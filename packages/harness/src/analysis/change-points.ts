// Where a history steps: change point detection as Apache Otava (formerly Hunter) does it, so
// that a step this project reports is one Otava would report on the same values. Otava 0.8.0's
// otava/analysis.py compute_change_points() and otava/change_point_divisive/, followed line by
// line (Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023):
//   1. split: overlapping windows of `window` points, each advanced by half a window (or to
//      its last change point), run E-Divisive means (Matteson & James 2014: the split that
//      maximises the energy-distance statistic Q̂, α = 1), each candidate judged by Student's
//      t-test between the two segments it makes, at a relaxed first-pass threshold; the union
//      of what every window found are the "weak" change points;
//   2. merge: the weakest of them (largest p against its neighbouring segments) is dropped while
//      its p is not below maxP, and its neighbours' p recomputed.
// The t-test is Otava's: scipy's pooled two-sample test fed population (ddof = 0) standard
// deviations. The tie-breaking is Python's and NumPy's (the first maximum wins), and so is one
// quirk: after a drop, Otava recomputes the change point to the right of it and the one after
// that, not the one to its left, which keeps the statistics of its former right segment (noted
// in apache/otava#96). change-points.e2e.test.ts checks the answers against Otava's own code.

import { tTwoSidedP } from "./stats.ts";

/** Otava's --window default: points analysed at once. */
export const OTAVA_WINDOW = 50;
/** Otava's -P default: a change point it reports has a p below this. */
export const OTAVA_MAX_P = 0.001;
/**
 * The threshold for a history of sessions (docs/history.md, "Change points"): at 20 sessions
 * with this VM's 7% session-to-session SD, Otava's 0.001 finds 73% of 15% steps (within two
 * sessions) and flags 2.3% of flat series; 0.002 finds 78.5% and flags 4.4% (20,000 simulated
 * series each). No threshold gives both 80% and at most 5%: 0.003 finds 81% but flags 6.4%.
 */
export const HISTORY_MAX_P = 0.002;

export interface ChangePointOptions {
  /** Points analysed at once (Otava's --window); at least 2. Default OTAVA_WINDOW. */
  readonly window?: number;
  /** A change point's p must be below this (Otava's -P). Default OTAVA_MAX_P. */
  readonly maxP?: number;
}

/** One step in a series. */
export interface ChangePoint {
  /** The first index of the new segment. */
  readonly index: number;
  /** Two-sided p of Otava's t-test between the segments either side. */
  readonly p: number;
  /**
   * The mean of the segment before (from the previous change point, or the start). Otava's
   * figures: the left neighbour of a point its merge dropped keeps those of its old segments.
   */
  readonly before: number;
  /** The mean of the segment after (to the next change point, or the end), as Otava has it. */
  readonly after: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** The population (ddof = 0) variance, as np.std squares it. */
const variance = (xs: readonly number[], m: number) =>
  xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length;

/**
 * Otava's TTestSignificanceTester.compare(): scipy's ttest_ind_from_stats (pooled variance,
 * two-sided) on the segments' means and population standard deviations, as the change point
 * between them (index: left's length). Three or more points are needed (else p = 1); 0/0 (both
 * segments constant, equal means) is NaN, as in scipy.
 */
export function segmentTest(left: readonly number[], right: readonly number[]): ChangePoint {
  const before = mean(left);
  const after = mean(right);
  const n1 = left.length;
  const n2 = right.length;
  const stats = { index: n1, before, after };
  if (n1 + n2 <= 2) return { ...stats, p: 1 };
  const df = n1 + n2 - 2;
  const pooled = ((n1 - 1) * variance(left, before) + (n2 - 1) * variance(right, after)) / df;
  const t = (before - after) / Math.sqrt(pooled * (1 / n1 + 1 / n2));
  return { ...stats, p: Number.isNaN(t) ? Number.NaN : tTwoSidedP(t, df) };
}

/** Sums of |x_i − x_j| over blocks of pairs, each in O(1), from a 2-D prefix sum. */
function pairSums(values: readonly number[]) {
  const n = values.length;
  const w = n + 1;
  const prefix = new Float64Array(w * w);
  values.forEach((x, i) => {
    values.forEach((y, j) => {
      prefix[(i + 1) * w + j + 1] =
        Math.abs(x - y) +
        (prefix[i * w + j + 1] as number) +
        (prefix[(i + 1) * w + j] as number) -
        (prefix[i * w + j] as number);
    });
  });
  const at = (i: number, j: number) => prefix[i * w + j] as number;
  /** Σ over rows [r0, r1) × columns [c0, c1). */
  const block = (r0: number, r1: number, c0: number, c1: number) =>
    at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
  return {
    between: (s: number, tau: number, kappa: number) => block(s, tau, tau, kappa),
    within: (a: number, b: number) => block(a, b, a, b) / 2,
  };
}

/**
 * E-Divisive's candidate in values[s, e): the τ of the (τ, κ), s < τ < κ ≤ e, that maximises
 * Q̂(X = values[s, τ), Y = values[τ, κ)) = A − B − C, where, with n = |X|, m = |Y|,
 *   A = 2/(κ − s) · Σ|X − Y|, B = 2m/((κ − s)(n − 1)) · Σ|Xᵢ − Xⱼ|, C = 2n/((κ − s)(m − 1)) · Σ|Yᵢ − Yⱼ|
 * (pairs i < j; B and C are 0 for a single point). The coefficients are computed as Otava's
 * calculator.py computes them, and (τ, κ) scanned in np.argmax's row-major order, the first
 * maximum winning: on values whose sums are exact (integers) the choice is Otava's to the bit.
 * Its Q̂ rides along to choose between segments.
 */
function candidateIn(sums: ReturnType<typeof pairSums>, s: number, e: number) {
  // Replaced by the first (τ, κ): Q̂ there is |values[s] − values[s + 1]| ≥ 0.
  let best = { index: s, qhat: Number.NEGATIVE_INFINITY };
  for (let n = 1; s + n < e; n++) {
    const tau = s + n;
    for (let kappa = tau + 1; kappa <= e; kappa++) {
      const m = kappa - tau;
      const a = (2 / (kappa - s)) * sums.between(s, tau, kappa);
      const b = n > 1 ? ((2 * m) / ((kappa - s) * (n - 1))) * sums.within(s, tau) : 0;
      const c = m > 1 ? ((2 * n) / ((kappa - s) * (m - 1))) * sums.within(tau, kappa) : 0;
      const q = a - b - c;
      if (q > best.qhat) best = { index: tau, qhat: q };
    }
  }
  return best;
}

/** The segments between sorted change points: [0, c₀), [c₀, c₁), …, [c_last, n). */
function boundsOf(indices: readonly number[], n: number): [number, number][] {
  const edges = [0, ...indices, n];
  return edges.slice(1).map((end, i) => [edges[i] as number, end]);
}

/**
 * One window's E-Divisive (Otava's ChangePointDetector with the t-test): the best candidate
 * over every segment found so far, kept while its p passes `firstPassP`, else the window stops.
 */
function divisive(values: readonly number[], firstPassP: number): number[] {
  const sums = pairSums(values);
  const found: number[] = [];
  for (;;) {
    let best: { index: number; qhat: number; bounds: [number, number] } | undefined;
    for (const bounds of boundsOf(found, values.length)) {
      if (bounds[1] - bounds[0] < 2) continue;
      const c = candidateIn(sums, bounds[0], bounds[1]);
      if (best === undefined || c.qhat > best.qhat) best = { ...c, bounds };
    }
    if (best === undefined) return found;
    const [s, e] = best.bounds;
    const test = segmentTest(values.slice(s, best.index), values.slice(best.index, e));
    if (!(test.p <= firstPassP)) return found;
    found.push(best.index);
    found.sort((a, b) => a - b);
  }
}

/** Change point `i` of `indices` judged against its neighbouring segments of the whole series. */
function judged(values: readonly number[], indices: readonly number[], i: number): ChangePoint {
  const index = indices[i] as number;
  const start = indices[i - 1] ?? 0;
  const end = indices[i + 1] ?? values.length;
  return { ...segmentTest(values.slice(start, index), values.slice(index, end)), index };
}

/**
 * Otava's split() window by window: each window's change points, in the whole series' indices.
 * A window starts at or after every point found before it and finds points only after its
 * start, so the points come out in order and never twice (Otava's own check for a repeated
 * point serves its incremental mode, which this is not).
 */
function* windowPoints(values: readonly number[], window: number, firstPassP: number) {
  const step = Math.floor(window / 2);
  let start = 0;
  while (start < values.length) {
    const found = divisive(values.slice(start, start + window), firstPassP).map((i) => i + start);
    start = Math.max(found.at(-1) ?? 0, start + step);
    yield* found;
  }
}

/** Otava's split(): the weak change points of every window, judged on the whole series. */
function weakChangePoints(values: readonly number[], window: number, firstPassP: number) {
  const indices = [...windowPoints(values, window, firstPassP)];
  return indices.map((_, i) => judged(values, indices, i));
}

/**
 * Otava's merge(): the weakest change point (the largest p; on a tie, the first) goes while its
 * p is not below maxP, and the two points from its place on are judged again (Otava's quirk:
 * not the one to its left). Otava's -M (minimum magnitude) at its default, 0, adds one rule:
 * once every p passes, a point whose segments have equal means still goes; only a NaN p (both
 * segments constant and equal) can have them, since equal means give t = 0 and p = 1. Exported
 * for its tests: the weak points that rule needs come from windows only in contrived series.
 */
export function mergeWeak(
  values: readonly number[],
  weak: readonly ChangePoint[],
  maxP: number,
): ChangePoint[] {
  const kept = [...weak];
  while (kept.length > 0) {
    let weakest = 0;
    for (let i = 1; i < kept.length; i++) {
      if ((kept[i] as ChangePoint).p > (kept[weakest] as ChangePoint).p) weakest = i;
    }
    if ((kept[weakest] as ChangePoint).p < maxP) {
      weakest = kept.findIndex((c) => c.before === c.after);
      if (weakest === -1) return kept;
    }
    kept.splice(weakest, 1);
    const indices = kept.map((c) => c.index);
    for (const i of [weakest, weakest + 1]) {
      if (i < kept.length) kept[i] = judged(values, indices, i);
    }
  }
  return kept;
}

/**
 * Otava's first pass is looser than its threshold, so that a step one window sees only weakly
 * survives to the merge, which holds it to maxP on its whole segments.
 */
export function firstPassP(maxP: number): number {
  if (maxP < 0.05) return maxP * 10;
  return maxP < 0.5 ? maxP * 2 : maxP;
}

/**
 * The change points of a series (a history's log estimates, oldest first), by Otava's
 * compute_change_points(): each with the first index of its new segment, its p and the means of
 * the segments either side. None for a series that does not step, or one of fewer than three
 * values (no t-test is possible).
 */
export function changePoints(
  values: readonly number[],
  options: ChangePointOptions = {},
): ChangePoint[] {
  const window = options.window ?? OTAVA_WINDOW;
  const maxP = options.maxP ?? OTAVA_MAX_P;
  if (!Number.isInteger(window) || window < 2) {
    throw new RangeError(`changePoints: window must be an integer of at least 2, not ${window}`);
  }
  return mergeWeak(values, weakChangePoints(values, window, firstPassP(maxP)), maxP);
}
