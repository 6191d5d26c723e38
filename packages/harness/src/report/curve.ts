// The throughput curve (--connections with several counts): per scenario, each app's req/s and
// p99 against concurrency, where it peaks, and what the connections past its peak cost in
// latency. Built from the per-count summaries, rendered by markdown.ts and html.ts.

import type { Analysis } from "../analysis/analysis.ts";
import { groupsOf } from "../analysis/groups.ts";
import { fmt } from "./format.ts";

export interface CurvePoint {
  readonly connections: number;
  /** Mean req/s of the valid trials; NaN when none. */
  readonly rps: number;
  /** Median p99 of the valid trials, ms. */
  readonly p99Ms: number;
}

export interface CurveView {
  readonly scenario: string;
  readonly header: string[];
  readonly rows: string[][];
  readonly series: { readonly app: string; readonly points: CurvePoint[] }[];
}

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const CURVE_INTRO =
  "One closed-loop trial per connection count (--connections): req/s (mean of the valid " +
  "trials) and p99 in ms (median) at each. The peak is the count with the most req/s; past it " +
  "the last column compares the largest count with the peak: more connections that bring no " +
  "more req/s only queue, and their latency grows. The peak is where the mean is highest: " +
  "neighbouring counts within the noise of it are not told apart here; each count's own " +
  "table above gives its confidence interval and p99 range.";
// Stryker restore StringLiteral

/** "at 1,000: p99 ×8.2, req/s −3%", or why there is nothing past the peak. */
function pastPeak(points: readonly CurvePoint[], peak: CurvePoint): string {
  const last = points[points.length - 1] as CurvePoint;
  if (last.connections === peak.connections) return "peak at the largest count measured";
  const rpsChange = (100 * (last.rps - peak.rps)) / peak.rps;
  const sign = rpsChange >= 0 ? "+" : "−";
  return (
    `at ${fmt(last.connections)}: p99 ×${fmt(last.p99Ms / peak.p99Ms, 1)}, ` +
    `req/s ${sign}${fmt(Math.abs(rpsChange))}%`
  );
}

export function curveViews(analysis: Analysis): CurveView[] {
  const { results } = analysis;
  const counts = results.manifest.settings.connectionCounts ?? [];
  if (counts.length < 2) return [];
  const groups = groupsOf(results);
  return results.manifest.settings.scenarios.map((scenario) => {
    const series = results.manifest.settings.apps.map((app) => ({
      app,
      points: groups
        .filter((g) => g.scenario === scenario)
        .map((g) => {
          const row = analysis.groups.get(g.key)?.rows.find((r) => r.app === app);
          const measured = row !== undefined && row.rps.n > 0;
          return {
            connections: g.connections as number,
            rps: measured ? row.rps.mean : Number.NaN,
            p99Ms: measured ? row.latencyMs.p99 : Number.NaN,
          };
        }),
    }));
    const header = ["app", ...counts.map((c) => `c=${fmt(c)}`), "peak", "past the peak"];
    const rows = series.map(({ app, points }) => {
      const measured = points.filter((p) => Number.isFinite(p.rps));
      const cells = points.map((p) =>
        Number.isFinite(p.rps) ? `${fmt(p.rps)} (${fmt(p.p99Ms, 1)})` : "—",
      );
      if (measured.length === 0) return [app, ...cells, "—", "—"];
      const peak = measured.reduce((a, b) => (b.rps > a.rps ? b : a));
      return [app, ...cells, `c=${fmt(peak.connections)}`, pastPeak(measured, peak)];
    });
    return { scenario, header, rows, series };
  });
}
