// The history, analysed once for every view (terminal, Markdown, HTML, --json, BMF): per
// testbed and settings (never pooled across either), per series, its sessions in time order,
// what they say together (analysis/sessions.ts: the across-session estimate and its interval,
// the variance components, the prediction for one more session), which sessions were CHANGED
// when they were new, its change points (analysis/change-points.ts), and for ratios with eight
// sessions or more how the ratio moves with the reference's own cost.

import { changePoints, HISTORY_MAX_P } from "../analysis/change-points.ts";
import { METRIC_UNITS, type Metric, type SeriesEstimate } from "../analysis/session-estimates.ts";
import { acrossSessions, heldOut, newestChanged, slopeAgainst } from "../analysis/sessions.ts";
import { testbedLabel } from "../analysis/settings.ts";
import { tCritical } from "../analysis/stats.ts";
import { seriesKey } from "./recording.ts";
import type { SessionRecord } from "./store.ts";

/**
 * A series needs this many sessions before its slope against the machine (ratios) and its
 * leave-one-out check are shown.
 */
export const SLOPE_MIN_SESSIONS = 8;

export interface SessionView {
  readonly run: string;
  readonly startedAt: string;
  readonly commit: string;
  /** Natural scale: the session's figure and its own 95% interval (Student's t over its n). */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  /** The log estimate and its standard error, as recorded. */
  readonly log: number;
  readonly se: number;
  readonly n: number;
}

export interface SeriesView {
  readonly testbed: string;
  readonly testbedLabel: string;
  readonly mode: string;
  readonly settingsKey: string;
  readonly settings: Readonly<Record<string, string>>;
  readonly app: string;
  /** The app a ratio is against; "" for an app's own figure. */
  readonly reference: string;
  readonly scenario: string;
  readonly metric: Metric;
  readonly unit: string;
  readonly sessions: readonly SessionView[];
  /** From two sessions on: the across-session estimate, its 95% CI, the variance components. */
  readonly across?: {
    readonly estimate: number;
    readonly low: number;
    readonly high: number;
    /** On the log scale: roughly a relative SD and SE. */
    readonly betweenSd: number;
    readonly withinSe: number;
    readonly sessionComponent: number;
  };
  /** Where one more session should land (95%), from two sessions on. */
  readonly prediction?: { readonly low: number; readonly high: number };
  /** Runs that fell outside their earlier sessions' prediction when they were new (CHANGED). */
  readonly changed: readonly string[];
  /** Steps found by Otava's method: the first run of the new level, its p and both levels. */
  readonly changePoints: readonly {
    readonly run: string;
    readonly p: number;
    readonly before: number;
    readonly after: number;
  }[];
  /** Ratios with SLOPE_MIN_SESSIONS sessions: ln ratio against ln of the reference's own cost. */
  readonly slope?: {
    readonly slope: number;
    readonly low: number;
    readonly high: number;
    readonly n: number;
  };
  /**
   * From SLOPE_MIN_SESSIONS sessions on: how many fall inside the 95% prediction interval of
   * the others (leave-one-out), the prediction interval's promise checked on this series.
   */
  readonly heldOut?: { readonly inside: number; readonly of: number };
  /** Hours from the first session's start to the last's. */
  readonly spanHours: number;
}

export interface HistoryFilter {
  readonly apps?: readonly string[];
  readonly scenario?: string;
  readonly testbed?: string;
  readonly metric?: string;
}

interface Gathered {
  readonly key: string;
  readonly first: SessionRecord;
  readonly points: { readonly session: SessionRecord; readonly estimate: SeriesEstimate }[];
}

const wanted = (f: HistoryFilter, s: SessionRecord, e: SeriesEstimate) =>
  (!f.apps?.length || f.apps.includes(e.app) || f.apps.includes(e.reference)) &&
  (f.scenario === undefined || e.scenario === f.scenario) &&
  (f.testbed === undefined || s.testbed.id.startsWith(f.testbed)) &&
  (f.metric === undefined || e.metric === f.metric);

/** Every series of the sessions, each session's estimate in time order. */
function gather(sessions: readonly SessionRecord[]): Gathered[] {
  const byKey = new Map<string, Gathered>();
  const ordered = [...sessions].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (const session of ordered) {
    for (const estimate of session.estimates) {
      const key = seriesKey(session, estimate);
      const found = byKey.get(key) ?? { key, first: session, points: [] };
      found.points.push({ session, estimate });
      byKey.set(key, found);
    }
  }
  return [...byKey.values()];
}

/**
 * Per run, the verdict it had when it was new: each run's family is every series it has a
 * figure in, each cut at that run (what its summary said, and what `history --check` says of
 * the newest).
 */
function changedRuns(all: readonly Gathered[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const runs = new Set(all.flatMap((g) => g.points.map((p) => p.session.run)));
  for (const run of runs) {
    const family = all.flatMap((g) => {
      const end = g.points.findIndex((p) => p.session.run === run);
      if (end < 0) return [];
      const points = g.points.slice(0, end + 1).map((p) => ({
        run: p.session.run,
        startedAt: p.session.startedAt,
        estimate: p.estimate.estimate,
        se: p.estimate.se,
      }));
      return [{ key: g.key, points }];
    });
    for (const [key, v] of newestChanged(family)) {
      if (v.changed) out.set(key, (out.get(key) ?? new Set()).add(run));
    }
  }
  return out;
}

function sessionView(s: SessionRecord, e: SeriesEstimate): SessionView {
  const half = tCritical(0.05, Math.max(1, e.n - 1)) * e.se;
  return {
    run: s.run,
    startedAt: s.startedAt,
    commit: s.commit,
    estimate: Math.exp(e.estimate),
    low: Math.exp(e.estimate - half),
    high: Math.exp(e.estimate + half),
    log: e.estimate,
    se: e.se,
    n: e.n,
  };
}

function seriesView(g: Gathered, changed: ReadonlySet<string> | undefined): SeriesView {
  const e0 = g.points[0]?.estimate as SeriesEstimate;
  const points = g.points.map((p) => ({
    run: p.session.run,
    startedAt: p.session.startedAt,
    estimate: p.estimate.estimate,
    se: p.estimate.se,
  }));
  const across = acrossSessions(points);
  const steps = changePoints(
    points.map((p) => p.estimate),
    { maxP: HISTORY_MAX_P },
  );
  const withX = g.points.filter((p) => p.estimate.x !== undefined);
  const slope =
    e0.reference && g.points.length >= SLOPE_MIN_SESSIONS && withX.length >= SLOPE_MIN_SESSIONS
      ? slopeAgainst(withX.map((p) => ({ x: p.estimate.x as number, y: p.estimate.estimate })))
      : undefined;
  const times = g.points.map((p) => Date.parse(p.session.startedAt));
  const held = points.length >= SLOPE_MIN_SESSIONS ? heldOut(points) : undefined;
  return {
    testbed: g.first.testbed.id,
    testbedLabel: testbedLabel(g.first.testbed),
    mode: g.first.settings.mode ?? "",
    settingsKey: g.first.settingsKey,
    settings: g.first.settings,
    app: e0.app,
    reference: e0.reference,
    scenario: e0.scenario,
    metric: e0.metric,
    unit: METRIC_UNITS[e0.metric],
    sessions: g.points.map((p) => sessionView(p.session, p.estimate)),
    ...(across
      ? {
          across: {
            estimate: Math.exp(across.estimate),
            low: Math.exp(across.low),
            high: Math.exp(across.high),
            betweenSd: across.betweenSd,
            withinSe: across.withinSe,
            sessionComponent: across.sessionComponent,
          },
          prediction: {
            low: Math.exp(across.prediction.low),
            high: Math.exp(across.prediction.high),
          },
        }
      : {}),
    changed: [...(changed ?? [])],
    changePoints: steps.map((c) => ({
      run: points[c.index]?.run ?? "",
      p: c.p,
      before: Math.exp(c.before),
      after: Math.exp(c.after),
    })),
    ...(slope
      ? { slope: { slope: slope.slope, low: slope.low, high: slope.high, n: slope.n } }
      : {}),
    ...(held ? { heldOut: held } : {}),
    spanHours: (Math.max(...times) - Math.min(...times)) / 3_600_000,
  };
}

/** Every series of the history that the filter keeps, grouped by testbed, settings and series. */
export function historyView(
  sessions: readonly SessionRecord[],
  filter: HistoryFilter = {},
): SeriesView[] {
  // The families are the runs', whatever the filter shows: a filter never changes a verdict.
  const all = gather(sessions);
  const changed = changedRuns(all);
  return all
    .filter((g) => wanted(filter, g.first, g.points[0]?.estimate as SeriesEstimate))
    .map((g) => seriesView(g, changed.get(g.key)))
    .sort((a, b) => {
      const order = (s: SeriesView) => [
        s.testbed,
        s.settingsKey,
        s.scenario,
        s.metric,
        s.reference,
        s.app,
      ];
      const [x, y] = [order(a), order(b)];
      const i = x.findIndex((v, j) => v !== y[j]);
      return i < 0 ? 0 : (x[i] as string) < (y[i] as string) ? -1 : 1;
    });
}

/** The series whose newest session is CHANGED: what `history --check` names (exit 1). */
export const changedNow = (series: readonly SeriesView[]): SeriesView[] =>
  series.filter((s) => {
    const newest = s.sessions.at(-1)?.run;
    return newest !== undefined && s.changed.includes(newest);
  });
