// What one finished run (a session) contributes to the history: per app and scenario, and per
// ratio, its estimate on the log scale with its within-session standard error. Kalibera &
// Jones's levels: a session's estimate is the mean over its processes (or pairs), and its
// standard error the spread of those over their count; what varies between sessions is the
// history's to measure (analysis/sessions.ts). Every figure here comes from the run's one
// analysis, so the history holds what the run's own summary said.

import type { Analysis } from "./analysis.ts";
import type { Estimate } from "./estimate.ts";
import { spread } from "./stats.ts";
import { logRatioTest, roundLogRatios } from "./verdicts.ts";

/**
 * The figures a session records. rps: an app's req/s (one at a time); rps-ratio: its req/s
 * over the reference's, paired by round; cpu-us: its server's CPU time per request, µs;
 * cpu-ratio: that against the reference's, side by side (a cost while sharing a core).
 */
export type Metric = "rps" | "rps-ratio" | "cpu-us" | "cpu-ratio";

/** The natural scale's unit of each metric, as the history prints it. */
export const METRIC_UNITS: Readonly<Record<Metric, string>> = {
  rps: "req/s",
  "rps-ratio": "×",
  "cpu-us": "µs",
  "cpu-ratio": "×",
};

export interface SeriesEstimate {
  readonly app: string;
  /** The app a ratio is against; "" for an app's own figure. */
  readonly reference: string;
  /** The group it was measured in ("api", "api (c=10)"). */
  readonly scenario: string;
  readonly metric: Metric;
  /** ln of the figure on its natural scale. */
  readonly estimate: number;
  /** Standard error of `estimate` within the session. */
  readonly se: number;
  /** Processes (or pairs, or rounds paired) behind it. */
  readonly n: number;
  /** For a ratio: ln of the reference's own CPU µs per request in the session, when known. */
  readonly x?: number;
}

/** ln of each process mean: the mean and its standard error; undefined below 2 processes. */
function logEstimate(
  e: Estimate | undefined,
  scale = 1,
): { estimate: number; se: number; n: number } | undefined {
  const logs = (e?.means ?? []).filter((m) => m > 0).map((m) => Math.log(m * scale));
  const s = spread(logs);
  if (s.n < 2) return undefined;
  return { estimate: s.mean, se: s.stddev / Math.sqrt(s.n), n: s.n };
}

/** The run's reference one at a time: --reference as recorded, else the first app named. */
export function referenceOf(analysis: Analysis): string | undefined {
  const s = analysis.results.manifest.settings;
  return s.reference ?? s.apps[0];
}

/** One app at a time: each app's req/s and CPU per request, and its req/s against the reference. */
function oneAtATime(analysis: Analysis): SeriesEstimate[] {
  const reference = referenceOf(analysis);
  return [...analysis.groups].flatMap(([scenario, group]) => {
    const ref = group.rows.find((r) => r.app === reference);
    const refCost = logEstimate(ref?.cpuNsPerRequest, 1e-3);
    return group.rows.flatMap((row): SeriesEstimate[] => {
      const own = (metric: Metric, e: Estimate | undefined, scale = 1): SeriesEstimate[] => {
        const l = logEstimate(e, scale);
        return l ? [{ app: row.app, reference: "", scenario, metric, ...l }] : [];
      };
      const out = [...own("rps", row.estimate), ...own("cpu-us", row.cpuNsPerRequest, 1e-3)];
      const test =
        ref && row !== ref ? logRatioTest(roundLogRatios(ref.estimate, row.estimate)) : undefined;
      if (test && reference) {
        out.push({
          app: row.app,
          reference,
          scenario,
          metric: "rps-ratio",
          estimate: Math.log(1 + test.change),
          se: test.se,
          n: test.paired ?? 0,
          ...(refCost ? { x: refCost.estimate } : {}),
        });
      }
      return out;
    });
  });
}

/** Side by side: each row's CPU per request against its reference, and each app's own. */
function sideBySide(analysis: Analysis): SeriesEstimate[] {
  return [...(analysis.side?.groups ?? new Map())].flatMap(([scenario, group]) => {
    const own = new Map<string, SeriesEstimate>();
    const ratios: SeriesEstimate[] = [];
    for (const row of group.rows) {
      const l = logEstimate(row.nsPerRequest, 1e-3);
      if (l) own.set(row.app, { app: row.app, reference: "", scenario, metric: "cpu-us", ...l });
    }
    for (const row of group.rows) {
      const test = row.vsReference?.test;
      if (!row.reference || !test || row.pairs < 2) continue;
      const x = own.get(row.reference)?.estimate;
      ratios.push({
        app: row.app,
        reference: row.reference,
        scenario,
        metric: "cpu-ratio",
        estimate: Math.log(1 + test.change),
        se: test.se,
        n: test.paired ?? row.pairs,
        ...(x === undefined ? {} : { x }),
      });
    }
    return [...own.values(), ...ratios];
  });
}

/** Everything a session records of a run, from its analysis. */
export function sessionEstimates(analysis: Analysis): SeriesEstimate[] {
  return analysis.side ? sideBySide(analysis) : oneAtATime(analysis);
}
