// The HTML report: one self-contained file (Chart.js inlined, no network) with the tables of
// the Markdown report and charts of req/s (with its 95% CI), latency percentiles (median of
// trials, with their range) and peak memory. After drawing, the page writes what the chart
// instances hold and where their bars and error bars landed (read back from pixels) into
// <pre id="render-check">, so a headless browser test can check the numbers really drawn.
// What the charts draw is computed in html-charts.ts.

// The contract's escaping (the fortunes page's): one definition of HTML-safe text in the repository.
import { escapeHtml, findScenario } from "@bench/contract";
import type { Analysis, GroupAnalysis, SummaryRow } from "../analysis/analysis.ts";
import { scenarioOfKey } from "../analysis/groups.ts";
import { pct } from "./format.ts";
import { runHistoryLines } from "./history-report.ts";
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
import { sections as extraSections, type Section } from "./sections.ts";
import { stealLine } from "./steal-table.ts";
import { mddText, taxText } from "./summary.ts";

/** JSON safe inside <script>: no "</script>" can close the element early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

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
function htmlTable(
  header: readonly string[] | undefined,
  rows: readonly (readonly string[])[],
  cls = "",
): string {
  const head = header
    ? `<thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead>`
    : "";
  const cells = (r: readonly string[]) =>
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

/** The page's charts: one across the page, or two side by side. */
function chartsHtml(ids: readonly string[]): string {
  const canvas = (id: string) => `<canvas id="${escapeHtml(id)}"></canvas>`;
  if (ids.length === 0) return "";
  if (ids.length === 1) return `<div class="chart wide">${canvas(ids[0] as string)}</div>`;
  return `<div class="charts">${ids.map((id) => `<div class="chart">${canvas(id)}</div>`).join("")}</div>`;
}

/** A section of sections.ts: its title as h2, each part's heading as h3. */
function sectionHtml(section: Section): string {
  const parts = section.parts.map((part) => {
    const heading = part.heading ? `<h3>${escapeHtml(part.heading)}</h3>` : "";
    const link = part.link
      ? `<a href="${escapeHtml(part.link)}">${escapeHtml(part.link)}</a>. `
      : "";
    const text = link || part.text ? `<p>${link}${escapeHtml(part.text ?? "")}</p>` : "";
    const tables = part.tables.map((t) => htmlTable(t.header, t.rows)).join("");
    const after = part.after !== undefined ? `<p>${escapeHtml(part.after)}</p>` : "";
    return `${heading}${text}${tables}${after}${notesList(part.notes ?? [])}${chartsHtml(part.charts ?? [])}`;
  });
  return `<section><h2>${escapeHtml(section.title)}</h2><p>${escapeHtml(section.intro)}</p>${parts.join("\n")}</section>`;
}

export function htmlReport(analysis: Analysis): string {
  const { results } = analysis;
  const chartJs = chartJsSource();
  const history = runHistoryLines(results);
  const header = htmlTable(undefined, [
    ...headerLines(results),
    ["CPU steal", stealLine(analysis)],
    ...(history.length > 0 ? [["History", history.map((l) => l.trim()).join(" ")]] : []),
  ]);
  const memory =
    analysis.groups.size > 0
      ? '<section><h2>Memory</h2><div class="chart wide"><canvas id="memory"></canvas></div></section>'
      : "";
  // The scenarios' sections, memory, then every other section: one a line.
  const sections = [
    ...[...analysis.groups].map(([scenario, group]) => scenarioTables(scenario, group)),
    memory,
    ...extraSections(analysis).map(sectionHtml),
  ].filter(Boolean);
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
${sections.map((section) => `${section}\n`).join("")}<pre id="render-check" hidden></pre>
<script>${chartJs}</script>
<script>const CHARTS = ${scriptJson(chartData(analysis))};${PAGE_SCRIPT}</script>
</body></html>
`;
}
