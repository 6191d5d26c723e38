// The HTML report's static assets: its style sheet, the colour of each app, the inlined Chart.js
// and the page script that draws the charts and writes the render check. Nothing here decides a
// number or a verdict, so mutation testing leaves this module out; the headless-Chromium test in
// test/report.e2e.test.ts checks what the script draws.

import { readFileSync } from "node:fs";
import { join } from "node:path";

const CHART_JS = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "chart.js",
  "dist",
  "chart.umd.js",
);

/** Chart.js's UMD build, safe to inline in a <script> element. */
export const chartJsSource = (): string =>
  readFileSync(CHART_JS, "utf8").replaceAll("</script", "<\\/script");

export const CHART_COLORS: Record<string, string> = {
  "bun-hono": "#f4a261",
  "bun-elysia": "#e76f51",
  "bun-bare": "#c9a227",
  "node-hono": "#2a9d8f",
  "node-elysia": "#264653",
  "node-bare": "#6a994e",
  "deno-hono": "#7b2cbf",
  "deno-elysia": "#3c096c",
  "deno-bare": "#9d4edd",
  "node-express": "#8d99ae",
  "node-fastify": "#1d3557",
  "bun-express": "#d4a373",
  "bun-fastify": "#bc6c25",
  "deno-express": "#c77dff",
  "deno-fastify": "#5a189a",
};

/** An app's colour on the charts by its name; grey for one not listed. */
export const colorOfName = (name: string): string => CHART_COLORS[name] ?? "#888";

export const REPORT_CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f5f5f7}.results td{white-space:nowrap}.results td:nth-child(3){white-space:normal;min-width:12rem}.charts{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.chart{height:320px}
.wide{height:360px}.desc{color:#555}.warn{color:#a00;font-weight:600}
`;

// The render check reads back from the chart instances what they hold and where they drew it:
// each bar's value from its top pixel, each error bar's ends from theirs. A bar whose data
// went missing (null) or was drawn at the wrong height shows up there, not only in CHARTS.
export const PAGE_SCRIPT = `
const errorBarsDrawn = new Map();
const errorBars = {
  id: "errorBars",
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const y = chart.scales.y;
    const drawn = [];
    chart.data.datasets.forEach((ds, i) => {
      if (!ds.ranges) return;
      chart.getDatasetMeta(i).data.forEach((bar, j) => {
        const range = ds.ranges[j];
        if (range == null || ds.data[j] == null) return;
        const top = y.getPixelForValue(range[1]), bottom = y.getPixelForValue(range[0]);
        ctx.save(); ctx.strokeStyle = "#111"; ctx.lineWidth = 1.5; ctx.beginPath();
        ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bottom);
        ctx.moveTo(bar.x - 6, top); ctx.lineTo(bar.x + 6, top);
        ctx.moveTo(bar.x - 6, bottom); ctx.lineTo(bar.x + 6, bottom);
        ctx.stroke(); ctx.restore();
        drawn.push({ dataset: ds.label, index: j, low: y.getValueForPixel(bottom), high: y.getValueForPixel(top) });
      });
    });
    errorBarsDrawn.set(chart.canvas.id, drawn);
  },
};
// Chart.js fits its axis to the bars only: widen it so no error bar runs off the chart. On a
// log scale a bar rises from the axis minimum, which Chart.js sets to the smallest value: that
// bar had no height at all (p50 0.04 ms at c=1 was missing). The minimum is the power of ten
// below every value and every error bar instead.
function rangeLimits(spec) {
  const ranges = spec.datasets.flatMap((d) => (d.ranges ?? []).filter((r) => r != null));
  const limits = ranges.length === 0 ? {} : { suggestedMax: Math.max(...ranges.map((r) => r[1])) };
  if (!spec.logarithmic) return limits;
  const values = spec.datasets
    .flatMap((d) => d.data.map((v) => (v != null && typeof v === "object" ? v.y : v)))
    .concat(ranges.map((r) => r[0]))
    .filter((v) => v > 0);
  if (values.length > 0) limits.min = 10 ** Math.floor(Math.log10(Math.min(...values) * 0.999));
  return limits;
}
// The curve's x axis labels the counts measured, not Chart.js's 1.1, 1.2 … between them.
function xScale(spec) {
  const scale = { type: spec.xLogarithmic ? "logarithmic" : "linear", title: { display: true, text: spec.xTitle } };
  if (spec.xTicks) {
    scale.afterBuildTicks = (axis) => { axis.ticks = spec.xTicks.map((value) => ({ value })); };
    // The log scale's own labels leave out mantissas like 4 (400 was blank).
    scale.ticks = { callback: (value) => Number(value).toLocaleString("en-US") };
  }
  return scale;
}
Chart.defaults.animation = false;
Chart.defaults.responsive = true;
Chart.defaults.maintainAspectRatio = false;
const drawn = [];
for (const spec of CHARTS) {
  const canvas = document.getElementById(spec.id);
  const line = spec.type === "line";
  const datasets = spec.datasets.map((d) =>
    line
      ? { ...d, showLine: true, borderColor: d.color, backgroundColor: d.color, borderDash: d.dashed ? [6, 4] : [], borderWidth: d.width ?? 2 }
      : { ...d, backgroundColor: d.colors, borderWidth: 0 });
  const x = line ? { x: xScale(spec) } : {};
  const chart = new Chart(canvas, {
    type: line ? "scatter" : spec.type,
    data: { labels: spec.labels, datasets },
    options: {
      plugins: { title: { display: true, text: spec.title }, legend: { display: spec.datasets.length > 1 } },
      scales: { ...x, y: { type: spec.logarithmic ? "logarithmic" : "linear", beginAtZero: !spec.logarithmic, ...rangeLimits(spec), title: { display: true, text: spec.yTitle } } },
    },
    plugins: [errorBars],
  });
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
  const y = chart.scales.y;
  drawn.push({
    id: spec.id,
    title: chart.options.plugins.title.text,
    labels: chart.data.labels,
    datasets: chart.data.datasets.map((d, i) => ({
      label: d.label,
      data: d.data,
      heights: chart.getDatasetMeta(i).data.map((bar, j) =>
        d.data[j] == null || !Number.isFinite(bar.y) ? null : y.getValueForPixel(bar.y)),
    })),
    errorBars: errorBarsDrawn.get(spec.id) ?? [],
    yRange: [y.min, y.max],
    xTicks: chart.scales.x.ticks.map((t) => t.label),
    bars: chart.getDatasetMeta(0).data.length,
    painted,
  });
}
document.getElementById("render-check").textContent = JSON.stringify(drawn);
`;
