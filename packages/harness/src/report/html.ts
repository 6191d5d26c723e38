// The HTML report: one self-contained file (Chart.js inlined, no network) with the tables of
// the Markdown report and charts of req/s (with its 95% CI), latency percentiles (median of
// trials, with their range) and peak memory. After drawing, the page writes what the chart
// instances hold and where their bars and error bars landed (read back from pixels) into
// <pre id="render-check">, so a headless browser test can check the numbers really drawn.

import { findScenario } from "@bench/contract";
import type { Analysis, GroupAnalysis, SummaryRow } from "../analysis/analysis.ts";
import { calibrationViews } from "../analysis/calibration.ts";
import { scenarioOfKey } from "../analysis/groups.ts";
import { workersRows } from "../analysis/scaling.ts";
import { IDLE_PAUSE_MS } from "../analysis/startup.ts";
import { chartQualifiers } from "../analysis/trial-flags.ts";
import type { Results } from "../results/schema.ts";
import { registryName } from "../runtimes/runtime-versions.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
  calibrationIntro,
} from "./calibration-table.ts";
import { CPU_COST_HEADER, CPU_COST_INTRO, cpuCostViews } from "./cpu-cost.ts";
import { CURVE_INTRO, curveViews } from "./curve.ts";
import { fmt, pct } from "./format.ts";
import { chartJsSource, colorOfName, PAGE_SCRIPT, REPORT_CSS } from "./html-assets.ts";
import {
  headerLines,
  READING_GUIDE,
  relativeMatrix,
  rowNotes,
  SCENARIO_HEADER,
  scenarioRow,
} from "./markdown.ts";
import { PRODUCTION_INTRO, productionViews } from "./production-table.ts";
import { PROFILES_INTRO, profileViews } from "./profiles-table.ts";
import { CAPACITY_HEADER, RATES_HEADER, ratesIntro, rateViews } from "./rates-table.ts";
import { searchInterval } from "./search-table.ts";
import {
  AGAINST_HEADER,
  AGAINST_INTRO,
  againstCells,
  againstLine,
  SIDE_HEADER,
  SIDE_INTRO,
  sideCells,
  sideNotes,
} from "./side-by-side.ts";
import { STARTUP_HEADER, STARTUP_INTRO, startupCells, startupTable } from "./startup-table.ts";
import { mddText, taxText } from "./summary.ts";
import { VERSIONS_INTRO, versionChart, versionViews } from "./versions.ts";
import {
  SCALING_INTRO,
  scalingViews,
  WORKERS_HEADER,
  WORKERS_INTRO,
  workersCells,
} from "./workers.ts";

const escapeHtml = (text: string) =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");

/** JSON safe inside <script>: no "</script>" can close the element early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

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
  charts.push(...rateCharts(results));
  charts.push(...startupCharts(results));
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
function rateCharts(results: Results): ChartData[] {
  const budget = results.manifest.settings.sloP99Ms ?? Number.NaN;
  const trials = results.rateTrials ?? [];
  return rateViews(results).map((v) => {
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
      const found = searchInterval(trials, app, v.scenario, budget);
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

function startupCharts(results: Results): ChartData[] {
  const rows = startupTable(results);
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

function versionsSection(analysis: Analysis): string {
  const views = versionViews(analysis);
  if (views.length === 0) return "";
  const parts = views.map(
    (v) =>
      `<h3>${escapeHtml(`${v.group} · ${v.runtime}`)}</h3>${htmlTable(v.header, v.rows)}` +
      `<div class="chart wide"><canvas id="${escapeHtml(versionChart(v).id)}"></canvas></div>`,
  );
  return `<section><h2>Runtime versions</h2><p>${escapeHtml(VERSIONS_INTRO)}</p>${parts.join("\n")}</section>`;
}

function curveSection(analysis: Analysis): string {
  const views = curveViews(analysis);
  if (views.length === 0) return "";
  const parts = views.map(
    (v) =>
      `<h3>${escapeHtml(v.scenario)}</h3>${htmlTable(v.header, v.rows)}` +
      `<div class="charts"><div class="chart"><canvas id="curve-rps-${v.scenario}"></canvas></div>` +
      `<div class="chart"><canvas id="curve-p99Ms-${v.scenario}"></canvas></div></div>`,
  );
  return `<section><h2>Throughput curve</h2><p>${escapeHtml(CURVE_INTRO)}</p>${parts.join("\n")}</section>`;
}

function ratesSection(results: Results): string {
  const views = rateViews(results);
  if (views.length === 0) return "";
  const parts = views.map(
    (v) =>
      `<h3>${escapeHtml(v.scenario)}</h3>${htmlTable(RATES_HEADER, v.rows)}${htmlTable(CAPACITY_HEADER, v.capacity)}` +
      `<div class="chart wide"><canvas id="rates-${v.scenario}"></canvas></div>`,
  );
  return `<section><h2>Latency at offered load</h2><p>${escapeHtml(ratesIntro(results))}</p>${parts.join("\n")}</section>`;
}

function productionSection(analysis: Analysis): string {
  const views = productionViews(analysis);
  if (views.length === 0) return "";
  const tables = views.map(
    (v) =>
      `${views.length > 1 ? `<h3>${escapeHtml(v.api)}</h3>` : ""}${htmlTable(v.header, v.rows)}`,
  );
  return `<section><h2>Production tax</h2><p>${escapeHtml(PRODUCTION_INTRO)}</p>${tables.join("")}</section>`;
}

function startupSection(results: Results): string {
  const rows = startupTable(results);
  if (rows.length === 0) return "";
  return `<section><h2>Start-up</h2><p>${escapeHtml(STARTUP_INTRO)}</p>${htmlTable(STARTUP_HEADER, rows.map(startupCells))}
<div class="charts"><div class="chart"><canvas id="startup"></canvas></div><div class="chart"><canvas id="startup-memory"></canvas></div></div></section>`;
}

function workersSection(analysis: Analysis): string {
  const rows = workersRows(analysis.results);
  if (rows.length === 0) return "";
  const scaling = scalingViews(analysis).map(
    (v) => `<h3>${escapeHtml(v.scenario)}</h3>${htmlTable(v.header, v.rows)}`,
  );
  const scalingPart =
    scaling.length > 0
      ? `<h3>Scaling with workers</h3><p>${escapeHtml(SCALING_INTRO)}</p>${scaling.join("\n")}`
      : "";
  return `<section><h2>Workers</h2><p>${escapeHtml(WORKERS_INTRO)}</p>${htmlTable(WORKERS_HEADER, rows.map(workersCells))}${scalingPart}</section>`;
}

/** Each flag's explanation with its samples' notes beneath it: a list, or nothing. */
function notesList(
  notes: readonly { app: string; text: string; notes: readonly string[] }[],
): string {
  if (notes.length === 0) return "";
  const item = (n: (typeof notes)[number]) => {
    const sub = n.notes.length
      ? `<ul>${n.notes.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`
      : "";
    return `<li>${escapeHtml(`${n.app}: ${n.text}`)}${sub}</li>`;
  };
  return `<ul class="notes">${notes.map(item).join("")}</ul>`;
}

/** An app's label on a chart carries its qualifiers, so a bar is never read without them. */
function label(row: SummaryRow): string {
  if (row.status === "failed") return `${row.app} (failed)`;
  const qualifiers = chartQualifiers(row);
  return qualifiers.length > 0 ? `${row.app} (${qualifiers.join(", ")})` : row.app;
}

/** A table; with no header, the first column is the row's heading (key/value tables). */
function htmlTable(header: string[] | undefined, rows: string[][], cls = ""): string {
  const head = header
    ? `<thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead>`
    : "";
  const cells = (r: string[]) =>
    r
      .map((c, i) =>
        !header && i === 0 ? `<th>${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`,
      )
      .join("");
  return `<table${cls ? ` class="${cls}"` : ""}>${head}<tbody>${rows.map((r) => `<tr>${cells(r)}</tr>`).join("")}</tbody></table>`;
}

function scenarioTables(scenario: string, group: GroupAnalysis): string {
  const { rows } = group;
  const description = findScenario(scenarioOfKey(scenario))?.description ?? "";
  const main = htmlTable(SCENARIO_HEADER, rows.map(scenarioRow), "results");
  const noteList = notesList(rowNotes(rows));
  const m = relativeMatrix(group);
  const matrix =
    m.rows.length > 1
      ? `<p>Relative throughput (the row's req/s as % of the column's; ≈: not significant):</p>${htmlTable(m.header, m.rows)}`
      : "";
  const taxed = rows.filter((r) => r.pctOfBaseline !== undefined);
  const taxItem = (r: SummaryRow) => {
    const t = taxText(r);
    const what = r.vsBaseline?.significant
      ? `${t.ofBare} of bare (cost ${t.cost})`
      : `≈ tie (${pct(r.pctOfBaseline)} of bare, could detect ${mddText(r.vsBaseline?.mdd)})`;
    return `${escapeHtml(r.app)} ${escapeHtml(what)}`;
  };
  const tax = taxed.length
    ? `<p class="tax">Framework tax (≈ tie: not significantly different from bare; the same tests as the ranks): ${taxed.map(taxItem).join(" · ")}</p>`
    : "";
  return `<section><h2>${escapeHtml(scenario)}</h2><p class="desc">${escapeHtml(description)}</p>${main}${noteList}${matrix}${tax}
<div class="charts"><div class="chart"><canvas id="rps-${scenario}"></canvas></div><div class="chart"><canvas id="latency-${scenario}"></canvas></div></div></section>`;
}

/** The CPU time per request of each app, one at a time. */
function cpuCostSection(analysis: Analysis): string {
  const views = cpuCostViews(analysis);
  if (views.length === 0) return "";
  const parts = views.map(
    (v) => `<h3>${escapeHtml(v.group)}</h3>${htmlTable(CPU_COST_HEADER, v.rows)}`,
  );
  return `<section><h2>CPU time per request</h2><p>${escapeHtml(CPU_COST_INTRO)}</p>${parts.join("")}</section>`;
}

/** --side-by-side: the ratio tables, --against's verdicts, and the calibration's known answer. */
function sideSection(analysis: Analysis): string {
  if (!analysis.side) return "";
  const parts = [...analysis.side.groups].map(([scenario, group]) => {
    const list = notesList(sideNotes(group));
    return `<h3>${escapeHtml(scenario)}</h3>${htmlTable(SIDE_HEADER, group.rows.map(sideCells))}${list}<div class="chart"><canvas id="side-${escapeHtml(scenario)}"></canvas></div>`;
  });
  const against = againstCells(analysis);
  const verdicts = against.length
    ? `<h3>Against ${escapeHtml(analysis.side.against?.ref ?? "")}</h3><p>${escapeHtml(AGAINST_INTRO)}</p>${htmlTable(AGAINST_HEADER, against)}<p>${escapeHtml(againstLine(analysis) ?? "")}</p>`
    : "";
  const calibration = calibrationViews(analysis)
    .map(
      (v) =>
        `<p>${escapeHtml(calibrationCaption(v))}:</p>${htmlTable(CALIBRATION_HEADER, calibrationCells(v))}`,
    )
    .join("");
  const calibrated = calibration
    ? `<h3>Calibration</h3><p>${escapeHtml(calibrationIntro(analysis))}</p>${calibration}`
    : "";
  return `<section><h2>Side by side</h2><p>${escapeHtml(SIDE_INTRO)}</p>${parts.join("\n")}${verdicts}${calibrated}</section>`;
}

function profilesSection(results: Results): string {
  const views = profileViews(results);
  if (views.length === 0) return "";
  const parts = views.map((v) => {
    const link = v.file ? `<a href="${escapeHtml(v.file)}">${escapeHtml(v.file)}</a>. ` : "";
    const rows = v.rows.length > 0 ? htmlTable([...v.header], v.rows) : "";
    return `<h3>${escapeHtml(v.title)}</h3><p>${link}${escapeHtml(v.text)}</p>${rows}`;
  });
  return `<section><h2>Profiles</h2><p>${escapeHtml(PROFILES_INTRO)}</p>${parts.join("\n")}</section>`;
}

export function htmlReport(analysis: Analysis): string {
  const { results } = analysis;
  const chartJs = chartJsSource();
  const header = htmlTable(undefined, headerLines(results));
  const sections = [...analysis.groups]
    .map(([scenario, group]) => scenarioTables(scenario, group))
    .join("\n");
  const interrupted =
    results.status === "interrupted"
      ? '<p class="warn">Interrupted: only the trials that finished are included.</p>'
      : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmark results ${escapeHtml(results.startedAt)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
${REPORT_CSS}</style></head><body>
<h1>Benchmark results</h1>${header}${interrupted}
${READING_GUIDE.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
${sections}
${sideSection(analysis)}${productionSection(analysis)}${cpuCostSection(analysis)}
${analysis.groups.size > 0 ? '<section><h2>Memory</h2><div class="chart wide"><canvas id="memory"></canvas></div></section>' : ""}
${curveSection(analysis)}
${ratesSection(results)}
${startupSection(results)}
${workersSection(analysis)}
${versionsSection(analysis)}
${profilesSection(results)}
<pre id="render-check" hidden></pre>
<script>${chartJs}</script>
<script>const CHARTS = ${scriptJson(chartData(analysis))};${PAGE_SCRIPT}</script>
</body></html>
`;
}
