// The history's views (./benchmark.sh history): the terminal text, the Markdown and HTML pages
// with a chart per series, --json and --export bmf. Every figure is history/view.ts's; this
// module lays it out.

import { escapeHtml } from "@bench/contract";
import type { SeriesView } from "../history/view.ts";
import type { HistoryCheck, Results } from "../results/schema.ts";
import type { Bmf } from "./bmf.ts";
import { fmt } from "./format.ts";
import { chartJsSource, PAGE_SCRIPT, REPORT_CSS } from "./html-assets.ts";
import type { ChartData } from "./html-charts.ts";
import { alignColumns } from "./text-table.ts";

/** A figure in its metric's unit: req/s whole, ratios to 3 decimals, µs to 2. */
export function figure(s: Pick<SeriesView, "metric">, value: number): string {
  if (!Number.isFinite(value)) return "—";
  if (s.metric === "rps") return fmt(value);
  if (s.metric === "cpu-us") return `${fmt(value, 2)} µs`;
  return `×${fmt(value, 3)}`;
}

/** "bun-bare · api · req/s", "node-bare ÷ bun-bare · api · × req/s". */
export function seriesTitle(s: SeriesView): string {
  const what = s.reference ? `${s.app} against ${s.reference}` : s.app;
  const metric = {
    rps: "req/s",
    "rps-ratio": "req/s ratio",
    "cpu-us": "CPU per request",
    "cpu-ratio": "CPU per request ratio (sharing a core)",
  }[s.metric];
  return `${what} · ${s.scenario} · ${metric}`;
}

/** The setting lines of a testbed and settings group. */
export function groupTitle(s: SeriesView): string {
  const settings = Object.entries(s.settings)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return `testbed ${s.testbed} (${s.testbedLabel}) · ${settings}`;
}

const pct = (logSd: number) => `${fmt(logSd * 100, 1)}%`;

/** One line of what the sessions say together, or why they say nothing yet. */
export function acrossLine(s: SeriesView): string {
  const n = s.sessions.length;
  if (!s.across || !s.prediction) return `1 session: nothing to say across sessions yet`;
  const a = s.across;
  return (
    `across ${n} sessions over ${fmt(s.spanHours, 1)} h: ${figure(s, a.estimate)} ` +
    `(95% CI ${figure(s, a.low)}–${figure(s, a.high)}); sessions part by ${pct(a.betweenSd)} ` +
    `(each admits ${pct(a.withinSe)}); one more session: ${figure(s, s.prediction.low)}–${figure(s, s.prediction.high)}`
  );
}

/** Change points, CHANGED runs and the slope, or nothing when there are none. */
export function eventLines(s: SeriesView): string[] {
  const out: string[] = [];
  for (const c of s.changePoints) {
    out.push(
      `step at ${c.run}: ${figure(s, c.before)} → ${figure(s, c.after)} (p = ${c.p.toPrecision(2)}, Otava's E-Divisive)`,
    );
  }
  if (s.changed.length > 0) out.push(`CHANGED when new: ${s.changed.join(", ")}`);
  if (s.heldOut) {
    out.push(
      `held out in turn, ${s.heldOut.inside} of ${s.heldOut.of} sessions fall inside the others' 95% prediction interval`,
    );
  }
  if (s.slope) {
    out.push(
      `moves with the reference's own cost: slope ${fmt(s.slope.slope, 2)} (95% CI ${fmt(s.slope.low, 2)} to ${fmt(s.slope.high, 2)}) over ${s.slope.n} sessions (ln ratio per ln µs)`,
    );
  }
  return out;
}

const sessionCells = (s: SeriesView) =>
  s.sessions.map((x) => [
    x.run,
    x.commit.slice(0, 12),
    figure(s, x.estimate),
    `${figure(s, x.low)}–${figure(s, x.high)}`,
    String(x.n),
    s.changed.includes(x.run) ? "CHANGED" : "",
  ]);

const SESSION_HEADER = ["session", "commit", "estimate", "its 95% interval", "n", ""];

/** Series in groups of one testbed and settings, in view order. */
function grouped(series: readonly SeriesView[]): SeriesView[][] {
  const groups = new Map<string, SeriesView[]>();
  for (const s of series) {
    const key = `${s.testbed}\u0000${s.settingsKey}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()];
}

/** The terminal's history: per testbed and settings, each series, its sessions and its verdicts. */
export function historyText(series: readonly SeriesView[]): string {
  if (series.length === 0)
    return "history: no series (no session recorded, or none the filter keeps)";
  const out: string[] = [];
  for (const group of grouped(series)) {
    out.push(`== ${groupTitle(group[0] as SeriesView)}`);
    for (const s of group) {
      out.push("", `-- ${seriesTitle(s)}`);
      out.push(...alignColumns([SESSION_HEADER, ...sessionCells(s)]));
      out.push(acrossLine(s), ...eventLines(s));
    }
    out.push("");
  }
  return out.join("\n");
}

/** --json: the history as data, natural scale (betweenSd on the log scale), full precision. */
export function historyJson(series: readonly SeriesView[]): unknown {
  return {
    series: series.map((s) => ({
      testbed: s.testbed,
      testbedLabel: s.testbedLabel,
      mode: s.mode,
      settings: s.settings,
      app: s.app,
      reference: s.reference || null,
      scenario: s.scenario,
      metric: s.metric,
      unit: s.unit,
      sessions: s.sessions.map((x) => ({
        run: x.run,
        startedAt: x.startedAt,
        commit: x.commit,
        estimate: x.estimate,
        low: x.low,
        high: x.high,
        se: x.se,
        n: x.n,
      })),
      across: s.across ?? null,
      prediction: s.prediction ?? null,
      changed: s.changed,
      changePoints: s.changePoints,
      slope: s.slope ?? null,
      heldOut: s.heldOut ?? null,
      spanHours: s.spanHours,
    })),
  };
}

/** --export bmf: each series' across-session estimate with its 95% CI (Bencher Metric Format). */
export function historyBmf(series: readonly SeriesView[]): Bmf {
  const out: Bmf = {};
  for (const s of series) {
    if (!s.across) continue;
    const name = `${s.reference ? `${s.app}/${s.reference}` : s.app} ${s.scenario} ${s.testbed}`;
    out[name] = {
      ...out[name],
      [`${s.metric}-across-sessions`]: {
        value: s.across.estimate,
        lower_value: s.across.low,
        upper_value: s.across.high,
      },
    };
  }
  return out;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The Markdown page: the same as the terminal's, as tables. */
export function historyMarkdown(series: readonly SeriesView[], where: string): string {
  const out = ["# History", "", `From ${where}. ${HISTORY_READING}`];
  for (const group of grouped(series)) {
    out.push("", `## ${groupTitle(group[0] as SeriesView)}`);
    for (const s of group) {
      out.push("", `### ${seriesTitle(s)}`, "");
      out.push(
        `| ${SESSION_HEADER.map(cell).join(" | ")} |`,
        `| ${SESSION_HEADER.map(() => "---").join(" | ")} |`,
      );
      for (const row of sessionCells(s)) out.push(`| ${row.map(cell).join(" | ")} |`);
      out.push("", acrossLine(s), ...eventLines(s).map((l) => `- ${l}`));
    }
  }
  return `${out.join("\n")}\n`;
}

// Stryker disable StringLiteral: the page's prose, read by people
export const HISTORY_READING =
  "A session is one finished run; each series keeps one figure of one testbed and settings, " +
  "never pooled with another. Each session's own interval speaks for its hour; the across-" +
  "session estimate is the mean of the sessions' log estimates, its 95% CI Student's t over " +
  "the sessions (Kalibera & Jones's top level), and one more session should land in the " +
  'prediction interval (t·s·√(1 + 1/n)). "Sessions part by" is their standard deviation, ' +
  '"each admits" the root mean square of their own standard errors. CHANGED: a session ' +
  "outside what its earlier sessions predicted, when it was new (Holm over its run's figures). " +
  "Steps: change points by Apache Otava's E-Divisive means with a t-test (docs/history.md).";
// Stryker restore StringLiteral

/** A series as a chart: each session with its interval, the across-session CI and prediction. */
export function historyChart(s: SeriesView, i: number): ChartData {
  const points = s.sessions.map((x, j) => ({ x: j + 1, y: x.estimate }));
  const flat = (y: number | undefined) =>
    y === undefined
      ? []
      : [
          { x: 1, y },
          { x: Math.max(2, s.sessions.length), y },
        ];
  const line = (label: string, y: number | undefined, color: string, dashed = false) =>
    y === undefined ? [] : [{ label, data: flat(y), color, dashed, width: 1 }];
  return {
    id: `history-${i}`,
    title: seriesTitle(s),
    type: "line",
    labels: s.sessions.map((x) => x.run),
    xTitle: "session (in time order)",
    xTicks: s.sessions.map((_, j) => j + 1),
    datasets: [
      {
        label: "session (its 95% interval)",
        data: points,
        color: "#1d3557",
        ranges: s.sessions.map((x) => [x.low, x.high] as [number, number]),
      },
      ...line("across sessions", s.across?.estimate, "#e76f51"),
      ...line("95% CI across sessions", s.across?.low, "#e76f51", true),
      ...line("", s.across?.high, "#e76f51", true),
      ...line("one more session (95%)", s.prediction?.low, "#8d99ae", true),
      ...line("", s.prediction?.high, "#8d99ae", true),
    ],
    yTitle: s.unit,
  };
}

const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

/** The HTML page: per group its series, each a chart and its lines. */
export function historyHtml(series: readonly SeriesView[], where: string): string {
  const charts = series.map(historyChart);
  const body = grouped(series)
    .map((group) => {
      const parts = group.map((s) => {
        const i = series.indexOf(s);
        const lines = [acrossLine(s), ...eventLines(s)]
          .map((l) => `<p>${escapeHtml(l)}</p>`)
          .join("");
        return `<h3>${escapeHtml(seriesTitle(s))}</h3><div class="chart"><canvas id="history-${i}"></canvas></div>${lines}`;
      });
      return `<section><h2>${escapeHtml(groupTitle(group[0] as SeriesView))}</h2>${parts.join("")}</section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>History</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
${REPORT_CSS}</style></head><body>
<h1>History</h1><p>${escapeHtml(`From ${where}. ${HISTORY_READING}`)}</p>
${body}
<pre id="render-check" hidden></pre>
<script>${chartJsSource()}</script>
<script>const CHARTS = ${scriptJson(charts)};${PAGE_SCRIPT}</script>
</body></html>
`;
}

/** A checked figure as a line of the run's summary. */
function checkedText(c: HistoryCheck): string {
  const s = { metric: c.metric as SeriesView["metric"] };
  const what = `${c.app}${c.reference ? ` against ${c.reference}` : ""} · ${c.scenario} · ${c.metric}`;
  return (
    `${what} ${figure(s, c.estimate)}, predicted ${figure(s, c.low)}–${figure(s, c.high)} ` +
    `from ${c.earlier} earlier sessions (p = ${c.p.toPrecision(2)})`
  );
}

/**
 * The run's summary lines on its history: where it was recorded, and each figure CHANGED
 * against its earlier sessions (which changes nothing of the run's exit status).
 */
export function runHistoryLines(results: Results): string[] {
  const h = results.history;
  if (!h) return [];
  const head =
    `history: session ${h.run} of testbed ${h.testbed} ${h.recorded ? "recorded in" : "already in"} ` +
    `${h.store}; ${h.earlier} earlier session(s) of this testbed and settings`;
  if (h.checked.length === 0) {
    return [`${head}; no figure has 3 earlier sessions to be checked against yet`];
  }
  const changed = h.checked.filter((c) => c.changed);
  if (changed.length === 0) {
    return [`${head}; ${h.checked.length} figure(s) checked against them: none CHANGED`];
  }
  return [
    `${head}; ${h.checked.length} figure(s) checked against them (Holm over them, 5%):`,
    ...changed.map((c) => `  CHANGED: ${checkedText(c)}`),
  ];
}

export const HISTORY_START = "<!-- history:start -->";
export const HISTORY_END = "<!-- history:end -->";

/**
 * The README's figures across sessions: one row per series (its across-session estimate with
 * the 95% CI, how many sessions over how many hours, the testbed), a series with fewer than
 * `minSessions` left out; generated, so the README's headline always comes from the history.
 */
export function historyReadme(series: readonly SeriesView[], minSessions: number): string {
  const kept = series.filter((s) => s.across && s.sessions.length >= minSessions);
  const rows = kept.map((s) => {
    const a = s.across as NonNullable<SeriesView["across"]>;
    return `| ${seriesTitle(s)} | ${figure(s, a.estimate)} (${figure(s, a.low)}–${figure(s, a.high)}) | ±${fmt(a.betweenSd * 100, 1)}% | ${s.sessions.length} over ${fmt(s.spanHours, 1)} h | ${s.testbedLabel} |`;
  });
  return [
    HISTORY_START,
    "<!-- Generated by ./benchmark.sh history --update-readme; edits here are overwritten. -->",
    "",
    "| series | across sessions (95% CI) | sessions part by | sessions | testbed |",
    "| :-- | --: | --: | --: | :-- |",
    ...rows,
    "",
    HISTORY_END,
  ].join("\n");
}

/** README text with its history section replaced (or an error when it has no markers). */
export function withHistorySection(readme: string, section: string): string {
  const start = readme.indexOf(HISTORY_START);
  const end = readme.indexOf(HISTORY_END);
  if (start < 0 || end < start) {
    throw new Error(`the README has no ${HISTORY_START} ... ${HISTORY_END} section to replace`);
  }
  return readme.slice(0, start) + section + readme.slice(end + HISTORY_END.length);
}
