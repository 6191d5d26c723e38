// The HTML report: one self-contained file (Chart.js inlined, no network) with the tables of
// the Markdown report and charts of req/s (with its 95% CI), latency percentiles (median of
// trials, with their range) and peak memory. After drawing, the page writes what the chart
// instances hold and where their bars and error bars landed (read back from pixels) into
// <pre id="render-check">, so a headless browser test can check the numbers really drawn.
// What the charts draw is computed in html-charts.ts.

import { findScenario } from "@bench/contract";
import type { Analysis, GroupAnalysis, SummaryRow } from "../analysis/analysis.ts";
import { calibrationViews } from "../analysis/calibration.ts";
import { scenarioOfKey } from "../analysis/groups.ts";
import { workersRows } from "../analysis/scaling.ts";
import type { Results } from "../results/schema.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
  calibrationIntro,
} from "./calibration-table.ts";
import { CPU_COST_HEADER, CPU_COST_INTRO, cpuCostViews } from "./cpu-cost.ts";
import { CURVE_INTRO, curveViews } from "./curve.ts";
import { pct } from "./format.ts";
import { chartJsSource, PAGE_SCRIPT, REPORT_CSS } from "./html-assets.ts";
import { chartData } from "./html-charts.ts";
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
