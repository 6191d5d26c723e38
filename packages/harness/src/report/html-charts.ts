// What the HTML report's charts draw, computed here from the analysis so tests can compare it
// with results.json: req/s with its 95% CI, latency percentiles with their range, memory, the
// side-by-side ratios, the throughput curve, the rates, start-up and runtime versions. html.ts
// hands the list to the page's script (html-assets.ts), which draws it.

import type { Analysis, SummaryRow } from "../analysis/analysis.ts";
import { IDLE_PAUSE_MS } from "../analysis/startup.ts";
import { chartQualifiers } from "../analysis/trial-flags.ts";
import { registryName } from "../runtimes/runtime-versions.ts";
import { curveViews } from "./curve.ts";
import { fmt } from "./format.ts";
import { colorOfName } from "./html-assets.ts";
import { rateViews } from "./rates-table.ts";
import { searchInterval } from "./search-table.ts";
import { versionChart, versionViews } from "./versions.ts";

/** An app's colour, the same on every version of its runtime ("node-hono@22.23.3"). */
const colorOf = (app: string) => colorOfName(registryName(app));

export interface ChartData {
  readonly id: string;
  readonly title: string;
  /** "line": x/y points joined, x on a linear axis titled xTitle. */
  readonly type: "bar" | "line";
  readonly labels: string[];
  readonly xTitle?: string;
  readonly xLogarithmic?: boolean;
  /** The only x ticks to label (the connection counts measured); else Chart.js picks. */
  readonly xTicks?: number[];
  readonly datasets: {
    label: string;
    data: (number | null)[] | { x: number; y: number }[];
    /** Line charts: one colour for the line, dashed or not, and its width in px. */
    color?: string;
    dashed?: boolean;
    width?: number;
    /** An error bar per bar, from low to high (the 95% CI, or the range over trials). */
    ranges?: ([number, number] | null)[];
    colors?: string[];
  }[];
  readonly yTitle: string;
  readonly logarithmic?: boolean;
}

const datum = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : null);

/** An error bar; every quantity charted is ≥ 0, so an interval reaching below 0 starts at 0. */
const bar = (low: number, high: number): [number, number] | null => {
  const l = datum(Math.max(0, low));
  const h = datum(high);
  return l === null || h === null ? null : [l, h];
};

/** What the page draws, computed here so tests can compare it with results.json. */
export function chartData(analysis: Analysis): ChartData[] {
  const { results } = analysis;
  const charts: ChartData[] = [];
  for (const [scenario, { rows }] of analysis.groups) {
    charts.push({
      id: `rps-${scenario}`,
      title: `${scenario}: requests per second (mean over processes, bars: 95% CI)`,
      type: "bar",
      labels: rows.map((r) => label(r)),
      datasets: [
        {
          label: "req/s",
          data: rows.map((r) => (r.rps.n > 0 ? datum(r.rps.mean) : null)),
          ranges: rows.map((r) => (r.ci ? bar(r.ci.low, r.ci.high) : null)),
          colors: rows.map((r) => colorOf(r.app)),
        },
      ],
      yTitle: "req/s",
    });
    charts.push({
      id: `latency-${scenario}`,
      title: `${scenario}: latency percentiles (ms, log scale; median of samples, bars: lowest–highest)`,
      type: "bar",
      labels: rows.map((r) => label(r)),
      datasets: (["p50", "p90", "p99", "p999"] as const).map((p) => ({
        label: p === "p999" ? "p99.9" : p,
        data: rows.map((r) => (r.rps.n > 0 ? datum(r.latencyMs[p]) : null)),
        ranges: rows.map((r) =>
          r.rps.n > 1 ? bar(r.latencyRangeMs[p].low, r.latencyRangeMs[p].high) : null,
        ),
      })),
      yTitle: "ms",
      logarithmic: true,
    });
  }
  const apps = results.manifest.settings.apps;
  if (analysis.groups.size > 0)
    charts.push({
      id: "memory",
      title: "Peak server memory (RSS, MiB) per scenario",
      type: "bar",
      labels: apps,
      datasets: [...analysis.groups].map(([scenario, { rows }]) => ({
        label: scenario,
        data: apps.map((app) => {
          const row = rows.find((r) => r.app === app);
          return row && row.rps.n > 0 ? datum(row.peakRssMiB) : null;
        }),
      })),
      yTitle: "MiB",
    });
  charts.push(...sideCharts(analysis));
  charts.push(...curveCharts(analysis));
  charts.push(...rateCharts(analysis));
  charts.push(...startupCharts(analysis));
  charts.push(...versionCharts(analysis));
  return charts;
}

/** --side-by-side: per scenario, each row's CPU time per request × its reference, with its CI. */
function sideCharts(analysis: Analysis): ChartData[] {
  return [...(analysis.side?.groups ?? [])].map(([scenario, group]) => {
    const rows = group.rows.filter((r) => Number.isFinite(r.ratio) && r.pairs > 0);
    return {
      id: `side-${scenario}`,
      title: `${scenario}: CPU time per request × the reference, side by side (bars: 95% CI)`,
      type: "bar" as const,
      labels: rows.map((r) =>
        r.reference ? `${r.app} (× ${r.reference})` : `${r.app} (reference)`,
      ),
      datasets: [
        {
          label: "× reference",
          data: rows.map((r) => datum(r.ratio)),
          ranges: rows.map((r) => (r.ci ? bar(r.ci.low, r.ci.high) : null)),
          colors: rows.map((r) => colorOf(r.app)),
        },
      ],
      yTitle: "× reference",
    };
  });
}

/** Per scenario, req/s and p99 against the connection count, one line per app. */
function curveCharts(analysis: Analysis): ChartData[] {
  return curveViews(analysis).flatMap((v) =>
    (["rps", "p99Ms"] as const).map((what) => ({
      id: `curve-${what}-${v.scenario}`,
      title:
        what === "rps"
          ? `${v.scenario}: req/s against connections (mean of valid trials)`
          : `${v.scenario}: p99 against connections (ms, log scale; median of valid trials)`,
      type: "line" as const,
      labels: [],
      xTitle: "connections (log scale)",
      xLogarithmic: true,
      xTicks: [
        ...new Set(v.series.flatMap((series) => series.points.map((p) => p.connections))),
      ].sort((a, b) => a - b),
      datasets: v.series.map(({ app, points }) => ({
        label: app,
        data: points
          .filter((p) => Number.isFinite(p[what]))
          .map((p) => ({ x: p.connections, y: datum(p[what]) ?? 0 })),
        color: colorOfName(app),
      })),
      yTitle: what === "rps" ? "req/s" : "ms",
      logarithmic: what === "p99Ms",
    })),
  );
}

/** Per scenario, p50 (dashed) and p99 against the offered rate, one colour per app. */
function rateCharts(analysis: Analysis): ChartData[] {
  const budget = analysis.results.manifest.settings.sloP99Ms ?? Number.NaN;
  return rateViews(analysis).map((v) => {
    const analysed = analysis.rates.find((r) => r.scenario === v.scenario);
    const xs = v.series.flatMap((s) => s.levels.map((l) => l.offeredRps));
    // The budget as a line across the chart; a search's capacity interval as a thick stretch of it.
    const budgetLine = {
      label: `p99 budget ${fmt(budget, 1)} ms`,
      data: [Math.min(...xs), Math.max(...xs)].map((x) => ({
        x: datum(x) ?? 0,
        y: datum(budget) ?? 0,
      })),
      color: "#000",
      dashed: true,
    };
    const intervals = v.series.flatMap(({ app }) => {
      const found = searchInterval(analysed?.apps.find((a) => a.app === app)?.search);
      if (!found) return [];
      const data = [found.low, found.high].map((x) => ({ x, y: datum(budget) ?? 0 }));
      return [{ label: `${app} capacity interval`, data, color: colorOfName(app), width: 6 }];
    });
    return {
      id: `rates-${v.scenario}`,
      title: `${v.scenario}: latency at offered load (ms, log scale; dashed: p50, solid: p99; searched levels included)`,
      type: "line",
      labels: [],
      xTitle: "offered req/s",
      datasets: [
        ...v.series.flatMap(({ app, levels }) =>
          (["p50", "p99"] as const).map((p) => ({
            label: `${app} ${p}`,
            data: levels.map((l) => ({
              x: datum(l.offeredRps) ?? 0,
              y: datum(p === "p50" ? l.p50Ms : l.p99Ms) ?? 0,
            })),
            color: colorOfName(app),
            dashed: p === "p50",
          })),
        ),
        budgetLine,
        ...intervals,
      ],
      yTitle: "ms",
      logarithmic: true,
    };
  });
}

function startupCharts(analysis: Analysis): ChartData[] {
  const rows = analysis.startup;
  if (rows.length === 0) return [];
  const labels = rows.map((r) => r.app);
  return [
    {
      id: "startup",
      title:
        "Start-up: runtime start to first correct answer (ms; median of starts, bars: lowest–highest)",
      type: "bar",
      labels,
      datasets: [
        {
          label: "ready ms",
          data: rows.map((r) => datum(r.readyMs.median)),
          ranges: rows.map((r) => bar(r.readyMs.min, r.readyMs.max)),
          colors: rows.map((r) => colorOf(r.app)),
        },
      ],
      yTitle: "ms",
    },
    {
      id: "startup-memory",
      title: "Memory at start (RSS, MiB; median of starts, bars: lowest–highest at idle)",
      type: "bar",
      labels,
      datasets: [
        { label: "when ready", data: rows.map((r) => datum(r.rssReadyMiB)) },
        {
          label: `after ${IDLE_PAUSE_MS / 1000} s idle`,
          data: rows.map((r) => datum(r.rssIdleMiB.median)),
          ranges: rows.map((r) => bar(r.rssIdleMiB.min, r.rssIdleMiB.max)),
        },
      ],
      yTitle: "MiB",
    },
  ];
}

function versionCharts(analysis: Analysis): ChartData[] {
  return versionViews(analysis).map((view) => {
    const chart = versionChart(view);
    return {
      id: chart.id,
      title: chart.title,
      type: "bar",
      labels: chart.labels,
      datasets: chart.datasets.map((d) => ({
        label: d.label,
        data: d.rows.map((r) => (r ? datum(r.rps.mean) : null)),
        ranges: d.rows.map((r) => (r?.ci ? bar(r.ci.low, r.ci.high) : null)),
      })),
      yTitle: "req/s",
    };
  });
}

/** An app's label on a chart carries its qualifiers, so a bar is never read without them. */
function label(row: SummaryRow): string {
  if (row.status === "failed") return `${row.app} (failed)`;
  const qualifiers = chartQualifiers(row);
  return qualifiers.length > 0 ? `${row.app} (${qualifiers.join(", ")})` : row.app;
}
