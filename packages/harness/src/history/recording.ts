// A finished run as a session of the history: what it records (its testbed, settings, commit,
// versions and every estimate of analysis/session-estimates.ts), and the check of each of its
// figures against the earlier sessions of its series (same testbed, same settings): a figure
// outside what they predict is CHANGED, one rule for the summary and `history --check`
// (analysis/sessions.ts's newestChanged, Holm over the run's family of series).

import { createHash } from "node:crypto";
import type { Analysis } from "../analysis/analysis.ts";
import { type SeriesEstimate, sessionEstimates } from "../analysis/session-estimates.ts";
import { newestChanged, type SessionPoint } from "../analysis/sessions.ts";
import { settingsKey, settingsOf, testbedOf } from "../analysis/settings.ts";
import type { HistoryCheck, Results } from "../results/schema.ts";
import { openHistory } from "./open.ts";
import type { HistoryStore, SessionRecord } from "./store.ts";

/** A session's id: its start, and a short hash of where, how and what it ran. */
export function runId(results: Results): string {
  const m = results.manifest;
  const what = JSON.stringify([m.machine, m.serverHost?.machine, m.settings.argv, m.git.commit]);
  const hash = createHash("sha256").update(what).digest("hex").slice(0, 6);
  return `${results.startedAt.replace(/\.\d+Z$/, "Z")}~${hash}`;
}

/** The versions a session ran: the runtimes as the apps reported them, and the lockfile's. */
function versionsOf(results: Results): Record<string, string> {
  const reported = results.apps.flatMap((a) =>
    a.reportedRuntime ? [[a.reportedRuntime.name, a.reportedRuntime.version] as const] : [],
  );
  return { ...results.manifest.versions.lockfile, ...Object.fromEntries(reported) };
}

/** A finished run as the history keeps it. */
export function sessionOf(results: Results, analysis: Analysis, source: string): SessionRecord {
  const m = results.manifest;
  return {
    run: runId(results),
    testbed: testbedOf(m),
    settingsKey: settingsKey(m),
    settings: settingsOf(m),
    startedAt: results.startedAt,
    finishedAt: results.finishedAt ?? results.startedAt,
    commit: m.git.commit,
    dirty: m.git.dirty,
    versions: versionsOf(results),
    source,
    estimates: sessionEstimates(analysis),
  };
}

/** The key of a series: one figure of one testbed and settings. */
export const seriesKey = (s: Pick<SessionRecord, "testbed" | "settingsKey">, e: SeriesEstimate) =>
  [s.testbed.id, s.settingsKey, e.app, e.reference, e.scenario, e.metric].join("\u0000");

/** The earlier sessions of the same testbed and settings, oldest first. */
export function comparable(all: readonly SessionRecord[], me: SessionRecord): SessionRecord[] {
  return all.filter(
    (s) =>
      s.run !== me.run &&
      s.testbed.id === me.testbed.id &&
      s.settingsKey === me.settingsKey &&
      s.startedAt < me.startedAt,
  );
}

/** Each figure of `me` against its series' earlier sessions: the family newestChanged holds. */
export function checkAgainst(earlier: readonly SessionRecord[], me: SessionRecord): HistoryCheck[] {
  const point = (s: SessionRecord, e: SeriesEstimate): SessionPoint => ({
    run: s.run,
    startedAt: s.startedAt,
    estimate: e.estimate,
    se: e.se,
  });
  const series = me.estimates.map((e) => {
    const key = seriesKey(me, e);
    const before = earlier.flatMap((s) => {
      const found = s.estimates.find((x) => seriesKey(s, x) === key);
      return found ? [point(s, found)] : [];
    });
    return { key, estimate: e, points: [...before, point(me, e)] };
  });
  const verdicts = newestChanged(series);
  return series.flatMap(({ key, estimate: e }) => {
    const v = verdicts.get(key);
    if (!v) return [];
    return [
      {
        app: e.app,
        ...(e.reference ? { reference: e.reference } : {}),
        scenario: e.scenario,
        metric: e.metric,
        estimate: Math.exp(e.estimate),
        low: Math.exp(v.prediction.low),
        high: Math.exp(v.prediction.high),
        earlier: v.earlier,
        p: v.p,
        changed: v.changed,
      },
    ];
  });
}

/**
 * Records a finished run into the history at `target` and checks it against its earlier
 * sessions; the outcome goes into results.json (the summary's history lines).
 */
export async function recordSession(
  target: string,
  results: Results,
  analysis: Analysis,
  source: string,
): Promise<NonNullable<Results["history"]>> {
  const store = (await openHistory(target, true)) as HistoryStore;
  try {
    const me = sessionOf(results, analysis, source);
    const earlier = comparable(await store.sessions(), me);
    const checked = checkAgainst(earlier, me);
    const recorded = await store.add(me);
    return {
      store: store.where,
      run: me.run,
      testbed: me.testbed.id,
      recorded,
      earlier: earlier.length,
      checked,
    };
  } finally {
    await store.close();
  }
}
