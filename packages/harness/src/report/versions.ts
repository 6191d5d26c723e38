// The reports' "Runtime versions" section (--node 22,24 --bun 1.3,1.4 --deno 2.9): each app on
// every version of its runtime, as a percentage of the first version asked, with ties marked.
// One model, rendered by markdown.ts (a table and a Mermaid chart) and html.ts (a table and a
// grouped bar chart).

import type { Analysis, GroupAnalysis, SummaryRow } from "../analysis/analysis.ts";
import { PAIRED_MIN_ROUNDS } from "../analysis/verdicts.ts";
import { registryName, versionedName } from "../runtimes/runtime-versions.ts";
import { fmt } from "./format.ts";
import { xychart } from "./mermaid.ts";
import { mddText } from "./summary.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const VERSIONS_INTRO =
  "Each app on every version of its runtime the run asked for (--node, --bun, --deno), all " +
  "interleaved in the same rounds so that machine drift hits every version alike: mean req/s " +
  "over processes and, in brackets, as a percentage of the first version asked. ≈ marks " +
  "a difference from the first version that is not significant (the same tests as the " +
  `summary's: paired by round from ${PAIRED_MIN_ROUNDS} rounds, else Welch's, Holm over every pair of the ` +
  "table) or cannot " +
  "be tested (fewer than 2 processes on either side), with the smallest difference the run " +
  "could have detected: read it as no change that large. The app's code and dependencies are the same for every " +
  "version; only the runtime differs.";
// Stryker restore StringLiteral

export interface VersionView {
  /** The summary group: the scenario, with its connection or worker count if the run had several. */
  readonly group: string;
  readonly runtime: string;
  readonly versions: string[];
  readonly header: string[];
  readonly rows: string[][];
  /** Per app (the registry's name) and version: the summary row, when it has valid trials. */
  readonly measured: { app: string; byVersion: (SummaryRow | undefined)[] }[];
}

/** The cell of one version: req/s, and after the first version, its share of the first. */
function cell(
  group: GroupAnalysis,
  first: SummaryRow | undefined,
  at: SummaryRow | undefined,
  isFirst: boolean,
) {
  if (!at) return "—";
  if (isFirst || !first) return fmt(at.rps.mean);
  const d = group.between(first.app, at.app);
  const share = `${fmt((at.rps.mean / first.rps.mean) * 100)}%`;
  if (d.significant) return `${fmt(at.rps.mean)} (${share})`;
  const could = d.mdd === undefined ? "" : `, could detect ${mddText(d.mdd)}`;
  return `${fmt(at.rps.mean)} (≈${share}${could})`;
}

/** Per summary group and per runtime asked for at two or more versions: one table. */
export function versionViews(analysis: Analysis): VersionView[] {
  const { results } = analysis;
  const asked = results.manifest.settings.runtimeVersions ?? {};
  const views: VersionView[] = [];
  for (const [runtime, list] of Object.entries(asked)) {
    if (list.length < 2) continue;
    const versions = list.map((v) => v.version);
    const apps = [
      ...new Set(
        results.apps.filter((a) => a.runtime === runtime).map((a) => registryName(a.name)),
      ),
    ];
    for (const [group, analysed] of analysis.groups) {
      const find = (app: string, version: string) =>
        analysed.rows.find((r) => r.app === versionedName(app, version) && r.rps.n > 0);
      const measured = apps.map((app) => ({
        app,
        byVersion: versions.map((version) => find(app, version)),
      }));
      views.push({
        group,
        runtime,
        versions,
        header: ["app", ...versions.map((v) => `${runtime} ${v}`)],
        rows: measured.map(({ app, byVersion }) => [
          app,
          ...byVersion.map((at, i) => cell(analysed, byVersion[0], at, i === 0)),
        ]),
        measured,
      });
    }
  }
  return views;
}

/** The chart of a view: per app, one bar per version (mean req/s; with its 95% CI where drawn). */
export function versionChart(view: VersionView) {
  return {
    id: `versions-${view.group}-${view.runtime}`,
    title: `${view.group}: req/s on each ${view.runtime} version (mean over processes, bars: 95% CI)`,
    labels: view.measured.map((m) => m.app),
    datasets: view.versions.map((version, i) => ({
      label: `${view.runtime} ${version}`,
      rows: view.measured.map((m) => m.byVersion[i]),
    })),
  };
}

/** The same as a Mermaid bar chart (one bar per app and version: Mermaid has no groups). */
export function versionMermaid(view: VersionView): string {
  const chart = versionChart(view);
  const bars = chart.datasets.flatMap((d, i) =>
    d.rows.map((row, j) => ({ j, i, label: `${chart.labels[j]}@${view.versions[i]}`, row })),
  );
  // App by app, its versions side by side.
  bars.sort((a, b) => a.j - b.j || a.i - b.i);
  const measured = bars.filter((b) => b.row !== undefined);
  return xychart(
    `${view.group}: req/s on each ${view.runtime} version (mean)`,
    measured.map((b) => b.label),
    measured.map((b) => b.row?.rps.mean ?? 0),
    "req/s",
  );
}
