// The history's pages and the run's history lines (report/history-report.ts): cells and
// numbers as each view shows them, from a history view of crafted sessions.

import { describe, expect, test } from "bun:test";
import { escapeHtml } from "@bench/contract";
import { historyView, type SeriesView, type SessionView } from "../src/history/view.ts";
import {
  acrossLine,
  eventLines,
  figure,
  HISTORY_END,
  HISTORY_READING,
  HISTORY_START,
  historyBmf,
  historyChart,
  historyHtml,
  historyJson,
  historyMarkdown,
  historyReadme,
  historyText,
  runHistoryLines,
  seriesTitle,
  withHistorySection,
} from "../src/report/history-report.ts";
import type { Results } from "../src/results/schema.ts";
import { session } from "./support/history-fixtures.ts";
import { syntheticRun } from "./support/synthetic.ts";

const at = (i: number) => new Date(Date.UTC(2026, 10, 28, i)).toISOString();
const view = historyView(
  [0, 0.02, -0.02, 0.01].map((w, i) => session(`s${i}`, at(i), Math.log(1000) + w)),
);
const rps = view.find((s) => s.metric === "rps") as SeriesView;
const ratio = view.find((s) => s.metric === "rps-ratio") as SeriesView;

describe("figures and titles", () => {
  test("each metric in its unit", () => {
    expect(figure({ metric: "rps" }, 86_612.4)).toBe("86,612");
    expect(figure({ metric: "cpu-us" }, 8.456)).toBe("8.46 µs");
    expect(figure({ metric: "rps-ratio" }, 0.36789)).toBe("×0.368");
    expect(figure({ metric: "cpu-ratio" }, 2.7)).toBe("×2.700");
    expect(figure({ metric: "rps" }, Number.NaN)).toBe("—");
    expect(figure({ metric: "cpu-us" }, Number.NaN)).toBe("—");
    expect(figure({ metric: "rps-ratio" }, Number.POSITIVE_INFINITY)).toBe("—");
  });

  test("a series' title names the app, its reference and what is measured", () => {
    expect(seriesTitle(rps)).toBe("bun-bare · api · req/s");
    expect(seriesTitle(ratio)).toBe("node-bare against bun-bare · api · req/s ratio");
    expect(seriesTitle({ ...rps, metric: "cpu-us" })).toBe("bun-bare · api · CPU per request");
    expect(seriesTitle({ ...ratio, metric: "cpu-ratio" })).toBe(
      "node-bare against bun-bare · api · CPU per request ratio (sharing a core)",
    );
  });

  test("the across line: the estimate, its CI, how far sessions part, the prediction", () => {
    const a = rps.across as NonNullable<SeriesView["across"]>;
    expect(acrossLine(rps)).toBe(
      `across 4 sessions over 3.0 h: ${figure(rps, a.estimate)} (95% CI ${figure(rps, a.low)}–${figure(rps, a.high)}); ` +
        `sessions part by 1.7% (each admits 1.0%); one more session: ${figure(rps, rps.prediction?.low as number)}–${figure(rps, rps.prediction?.high as number)}`,
    );
    const one = historyView([session("s0", at(0))]).find((s) => s.metric === "rps") as SeriesView;
    expect(acrossLine(one)).toBe("1 session: nothing to say across sessions yet");
  });

  test("events: steps, CHANGED runs and a slope, or none", () => {
    expect(eventLines(rps)).toEqual([]);
    const busy: SeriesView = {
      ...rps,
      changePoints: [{ run: "s2", p: 0.00123, before: 1000, after: 1300 }],
      changed: ["s2"],
      slope: { slope: 1.5, low: 1.1, high: 1.9, n: 8 },
      heldOut: { inside: 7, of: 8 },
    };
    expect(eventLines(busy)).toEqual([
      "step at s2: 1,000 → 1,300 (p = 0.0012, Otava's E-Divisive)",
      "CHANGED when new: s2",
      "held out in turn, 7 of 8 sessions fall inside the others' 95% prediction interval",
      "moves with the reference's own cost: slope 1.50 (95% CI 1.10 to 1.90) over 8 sessions (ln ratio per ln µs)",
    ]);
  });
});

describe("the views", () => {
  test("terminal and Markdown: per testbed and settings, each series' sessions", () => {
    const text = historyText(view);
    expect(text.split("\n")[0]).toMatch(
      /^== testbed tb1 \(Test CPU, 2 cores, 8 GiB, kvm\) · mode one at a time$/,
    );
    expect(text).toContain("-- bun-bare · api · req/s");
    expect(text).toMatch(/s3 +abc +1,010 +/);
    expect(historyText([])).toBe(
      "history: no series (no session recorded, or none the filter keeps)",
    );
    const md = historyMarkdown(view, "/tmp/h.sqlite");
    expect(md).toContain("From /tmp/h.sqlite.");
    expect(md).toContain("### node-bare against bun-bare · api · req/s ratio");
    expect(md).toContain("| s0 | abc | 1,000 |");
  });

  test("--json: the issue's fields, natural scale, full precision", () => {
    const json = historyJson(view) as { series: Record<string, unknown>[] };
    const first = json.series[0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        "testbed",
        "mode",
        "app",
        "reference",
        "scenario",
        "metric",
        "sessions",
        "across",
        "prediction",
        "changed",
      ]),
    );
    expect(first.reference).toBeNull();
    const sessions = first.sessions as { run: string; estimate: number }[];
    expect(sessions[1]?.estimate).toBe(rps.sessions[1]?.estimate as number);
    expect(sessions[1]?.estimate).toBeCloseTo(1000 * Math.exp(0.02), 9);
    expect((first.across as { betweenSd: number }).betweenSd).toBe(rps.across?.betweenSd as number);
  });

  test("BMF: each series with an across figure, its CI", () => {
    expect(historyBmf(view)).toEqual({
      "bun-bare api tb1": {
        "rps-across-sessions": {
          value: rps.across?.estimate as number,
          lower_value: rps.across?.low as number,
          upper_value: rps.across?.high as number,
        },
      },
      "node-bare/bun-bare api tb1": {
        "rps-ratio-across-sessions": {
          value: ratio.across?.estimate as number,
          lower_value: ratio.across?.low as number,
          upper_value: ratio.across?.high as number,
        },
      },
    });
  });

  test("a chart per series: each session with its interval, the across band and prediction", () => {
    const c = historyChart(rps, 0);
    expect(c.id).toBe("history-0");
    expect(c.labels).toEqual(["s0", "s1", "s2", "s3"]);
    expect(c.datasets[0]?.data).toEqual(rps.sessions.map((s, j) => ({ x: j + 1, y: s.estimate })));
    const first = rps.sessions[0] as SeriesView["sessions"][0];
    expect(c.datasets[0]?.ranges?.[0]).toEqual([first.low, first.high]);
    expect(c.datasets.map((d) => d.label)).toEqual([
      "session (its 95% interval)",
      "across sessions",
      "95% CI across sessions",
      "",
      "one more session (95%)",
      "",
    ]);
  });
});

// A crafted history, its figures round so that every page can be read in full: two series of
// one testbed and settings (three sessions of bun-bare's req/s, two of them CHANGED, a step; one
// session of node-bare's ratio) and one series of another testbed.
const S = (run: string, commit: string, estimate: number, low: number, high: number, n = 3) =>
  ({
    run,
    startedAt: "2026-11-28T00:00:00.000Z",
    commit,
    estimate,
    low,
    high,
    log: Math.log(estimate),
    se: 0.01,
    n,
  }) satisfies SessionView;
const api: SeriesView = {
  testbed: "tb1",
  testbedLabel: "Test CPU, 2 cores",
  mode: "one at a time",
  settingsKey: "k1",
  settings: { mode: "one at a time", workers: "1" },
  app: "bun-bare",
  reference: "",
  scenario: "api",
  metric: "rps",
  unit: "req/s",
  sessions: [
    S("r1", "0123456789abcdef", 1000.4, 990, 1010),
    S("r2", "fedcba9876543210", 1500, 1480.2, 1520.7, 5),
    S("r3", "abc", 1010, 1000, 1020),
  ],
  across: {
    estimate: 1200,
    low: 900,
    high: 1600,
    betweenSd: 0.25,
    withinSe: 0.012,
    sessionComponent: 0.06,
  },
  prediction: { low: 700, high: 2000 },
  changed: ["r2", "r3"],
  changePoints: [{ run: "r2", p: 0.00123, before: 1000, after: 1500 }],
  spanHours: 1.5,
};
const lone: SeriesView = {
  ...api,
  app: "node-bare",
  reference: "bun-bare",
  metric: "rps-ratio",
  unit: "×",
  sessions: [S("r1", "0123456789abcdef", 0.5, 0.45, 0.55)],
  across: undefined,
  prediction: undefined,
  changed: [],
  changePoints: [],
  spanHours: 0,
};
const elsewhere: SeriesView = {
  ...lone,
  testbed: "tb2",
  testbedLabel: "Other CPU",
  app: "deno-bare",
  reference: "",
  metric: "cpu-us",
  unit: "µs",
};
const crafted = [api, lone, elsewhere];

describe("the pages of a crafted history, in full", () => {
  test("the terminal: a block per testbed and settings, a table and its lines per series", () => {
    expect(historyText(crafted).split("\n")).toEqual([
      "== testbed tb1 (Test CPU, 2 cores) · mode one at a time, workers 1",
      "",
      "-- bun-bare · api · req/s",
      "session  commit        estimate  its 95% interval  n",
      "r1       0123456789ab  1,000     990–1,010         3",
      "r2       fedcba987654  1,500     1,480–1,521       5  CHANGED",
      "r3       abc           1,010     1,000–1,020       3  CHANGED",
      "across 3 sessions over 1.5 h: 1,200 (95% CI 900–1,600); sessions part by 25.0% (each admits 1.2%); one more session: 700–2,000",
      "step at r2: 1,000 → 1,500 (p = 0.0012, Otava's E-Divisive)",
      "CHANGED when new: r2, r3",
      "",
      "-- node-bare against bun-bare · api · req/s ratio",
      "session  commit        estimate  its 95% interval  n",
      "r1       0123456789ab  ×0.500    ×0.450–×0.550     3",
      "1 session: nothing to say across sessions yet",
      "",
      "== testbed tb2 (Other CPU) · mode one at a time, workers 1",
      "",
      "-- deno-bare · api · CPU per request",
      "session  commit        estimate  its 95% interval  n",
      "r1       0123456789ab  0.50 µs   0.45 µs–0.55 µs   3",
      "1 session: nothing to say across sessions yet",
      "",
    ]);
  });

  test("Markdown: the same as tables, the lines as a list", () => {
    const md = historyMarkdown(crafted, "/h.sqlite");
    expect(md.endsWith("1 session: nothing to say across sessions yet\n")).toBe(true);
    expect(md.split("\n")).toEqual([
      "# History",
      "",
      `From /h.sqlite. ${HISTORY_READING}`,
      "",
      "## testbed tb1 (Test CPU, 2 cores) · mode one at a time, workers 1",
      "",
      "### bun-bare · api · req/s",
      "",
      "| session | commit | estimate | its 95% interval | n |  |",
      "| --- | --- | --- | --- | --- | --- |",
      "| r1 | 0123456789ab | 1,000 | 990–1,010 | 3 |  |",
      "| r2 | fedcba987654 | 1,500 | 1,480–1,521 | 5 | CHANGED |",
      "| r3 | abc | 1,010 | 1,000–1,020 | 3 | CHANGED |",
      "",
      "across 3 sessions over 1.5 h: 1,200 (95% CI 900–1,600); sessions part by 25.0% (each admits 1.2%); one more session: 700–2,000",
      "- step at r2: 1,000 → 1,500 (p = 0.0012, Otava's E-Divisive)",
      "- CHANGED when new: r2, r3",
      "",
      "### node-bare against bun-bare · api · req/s ratio",
      "",
      "| session | commit | estimate | its 95% interval | n |  |",
      "| --- | --- | --- | --- | --- | --- |",
      "| r1 | 0123456789ab | ×0.500 | ×0.450–×0.550 | 3 |  |",
      "",
      "1 session: nothing to say across sessions yet",
      "",
      "## testbed tb2 (Other CPU) · mode one at a time, workers 1",
      "",
      "### deno-bare · api · CPU per request",
      "",
      "| session | commit | estimate | its 95% interval | n |  |",
      "| --- | --- | --- | --- | --- | --- |",
      "| r1 | 0123456789ab | 0.50 µs | 0.45 µs–0.55 µs | 3 |  |",
      "",
      "1 session: nothing to say across sessions yet",
      "",
    ]);
  });

  test("Markdown: a pipe in a cell is escaped, not a column", () => {
    const piped = { ...lone, sessions: [S("r|1", "abc", 0.5, 0.45, 0.55)] };
    expect(historyMarkdown([piped], "/h.sqlite")).toContain(
      "\n| r\\|1 | abc | ×0.500 | ×0.450–×0.550 | 3 |  |\n",
    );
  });

  test("HTML: per group a section, per series its title, chart and lines, escaped", () => {
    const page = historyHtml(crafted, "/h & co.sqlite");
    expect(
      page.startsWith(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>History</title>\n',
      ),
    ).toBe(true);
    const body = page.slice(page.indexOf("<h1>"), page.indexOf('<pre id="render-check"'));
    const chart = (i: number) => `<div class="chart"><canvas id="history-${i}"></canvas></div>`;
    expect(body.split("\n")).toEqual([
      `<h1>History</h1><p>From /h &amp; co.sqlite. ${escapeHtml(HISTORY_READING)}</p>`,
      "<section><h2>testbed tb1 (Test CPU, 2 cores) · mode one at a time, workers 1</h2>" +
        `<h3>bun-bare · api · req/s</h3>${chart(0)}` +
        "<p>across 3 sessions over 1.5 h: 1,200 (95% CI 900–1,600); sessions part by 25.0% (each admits 1.2%); one more session: 700–2,000</p>" +
        "<p>step at r2: 1,000 → 1,500 (p = 0.0012, Otava&#39;s E-Divisive)</p>" +
        "<p>CHANGED when new: r2, r3</p>" +
        `<h3>node-bare against bun-bare · api · req/s ratio</h3>${chart(1)}` +
        "<p>1 session: nothing to say across sessions yet</p></section>",
      "<section><h2>testbed tb2 (Other CPU) · mode one at a time, workers 1</h2>" +
        `<h3>deno-bare · api · CPU per request</h3>${chart(2)}` +
        "<p>1 session: nothing to say across sessions yet</p></section>",
      "",
    ]);
  });

  test("HTML: the charts' data in the page's script, no < of the data in it", () => {
    const tagged = {
      ...api,
      sessions: [S("</script>", "abc", 1000, 990, 1010)],
      across: undefined,
      prediction: undefined,
    };
    const page = historyHtml([tagged, lone], "/h.sqlite");
    const script = page.slice(page.indexOf("const CHARTS = "), page.lastIndexOf("</script>"));
    expect(script).not.toContain("</script>");
    expect(script).toContain('"labels":["\\u003c/script>"]');
    const json = script.slice("const CHARTS = ".length, script.indexOf(";"));
    expect(JSON.parse(json)).toEqual([historyChart(tagged, 0), historyChart(lone, 1)]);
  });

  test("a chart: each session, the across estimate and CI, the prediction, as flat lines", () => {
    const flat = (y: number) => [
      { x: 1, y },
      { x: 3, y },
    ];
    expect(historyChart(api, 2)).toEqual({
      id: "history-2",
      title: "bun-bare · api · req/s",
      type: "line",
      labels: ["r1", "r2", "r3"],
      xTitle: "session (in time order)",
      xTicks: [1, 2, 3],
      datasets: [
        {
          label: "session (its 95% interval)",
          data: [
            { x: 1, y: 1000.4 },
            { x: 2, y: 1500 },
            { x: 3, y: 1010 },
          ],
          color: "#1d3557",
          ranges: [
            [990, 1010],
            [1480.2, 1520.7],
            [1000, 1020],
          ],
        },
        { label: "across sessions", data: flat(1200), color: "#e76f51", dashed: false, width: 1 },
        {
          label: "95% CI across sessions",
          data: flat(900),
          color: "#e76f51",
          dashed: true,
          width: 1,
        },
        { label: "", data: flat(1600), color: "#e76f51", dashed: true, width: 1 },
        {
          label: "one more session (95%)",
          data: flat(700),
          color: "#8d99ae",
          dashed: true,
          width: 1,
        },
        { label: "", data: flat(2000), color: "#8d99ae", dashed: true, width: 1 },
      ],
      yTitle: "req/s",
    });
    // one session: its point alone, no across lines
    expect(historyChart(lone, 0).datasets).toEqual([
      {
        label: "session (its 95% interval)",
        data: [{ x: 1, y: 0.5 }],
        color: "#1d3557",
        ranges: [[0.45, 0.55]],
      },
    ]);
    // two sessions: the flat lines span both
    const two = { ...api, sessions: api.sessions.slice(0, 2) };
    expect(historyChart(two, 0).datasets[1]?.data).toEqual([
      { x: 1, y: 1200 },
      { x: 2, y: 1200 },
    ]);
  });

  test("--json: every field, absent figures as null", () => {
    const full: SeriesView = {
      ...api,
      slope: { slope: 0.5, low: 0.1, high: 0.9, n: 8 },
      heldOut: { inside: 7, of: 8 },
    };
    const session = (x: SessionView) => ({
      run: x.run,
      startedAt: x.startedAt,
      commit: x.commit,
      estimate: x.estimate,
      low: x.low,
      high: x.high,
      se: x.se,
      n: x.n,
    });
    expect(historyJson([full, lone])).toEqual({
      series: [
        {
          testbed: "tb1",
          testbedLabel: "Test CPU, 2 cores",
          mode: "one at a time",
          settings: { mode: "one at a time", workers: "1" },
          app: "bun-bare",
          reference: null,
          scenario: "api",
          metric: "rps",
          unit: "req/s",
          sessions: api.sessions.map(session),
          across: api.across,
          prediction: { low: 700, high: 2000 },
          changed: ["r2", "r3"],
          changePoints: api.changePoints,
          slope: { slope: 0.5, low: 0.1, high: 0.9, n: 8 },
          heldOut: { inside: 7, of: 8 },
          spanHours: 1.5,
        },
        {
          testbed: "tb1",
          testbedLabel: "Test CPU, 2 cores",
          mode: "one at a time",
          settings: { mode: "one at a time", workers: "1" },
          app: "node-bare",
          reference: "bun-bare",
          scenario: "api",
          metric: "rps-ratio",
          unit: "×",
          sessions: lone.sessions.map(session),
          across: null,
          prediction: null,
          changed: [],
          changePoints: [],
          slope: null,
          heldOut: null,
          spanHours: 0,
        },
      ],
    });
  });

  test("BMF: only the series with an across-session figure", () => {
    expect(historyBmf(crafted)).toEqual({
      "bun-bare api tb1": {
        "rps-across-sessions": { value: 1200, lower_value: 900, upper_value: 1600 },
      },
    });
  });
});

describe("the run's history lines", () => {
  const base = syntheticRun(["bun-bare"], ["api"], []);
  const withHistory = (
    checked: NonNullable<Results["history"]>["checked"],
    earlier = 4,
    recorded = true,
  ): Results => ({
    ...base,
    history: { store: "/h.sqlite", run: "r1", testbed: "tb1", recorded, earlier, checked },
  });
  const check = (changed: boolean) => ({
    app: "bun-bare",
    scenario: "api",
    metric: "rps",
    estimate: 52_100,
    low: 60_000,
    high: 72_000,
    earlier: 4,
    p: 0.000412,
    changed,
  });

  test("none without a history; where it was recorded and what the check said", () => {
    expect(runHistoryLines(base)).toEqual([]);
    const head =
      "history: session r1 of testbed tb1 recorded in /h.sqlite; 4 earlier session(s) of this testbed and settings";
    expect(runHistoryLines(withHistory([], 2))).toEqual([
      "history: session r1 of testbed tb1 recorded in /h.sqlite; 2 earlier session(s) of this testbed and settings; no figure has 3 earlier sessions to be checked against yet",
    ]);
    expect(runHistoryLines(withHistory([check(false)]))).toEqual([
      `${head}; 1 figure(s) checked against them: none CHANGED`,
    ]);
    expect(
      runHistoryLines(withHistory([check(true), { ...check(false), app: "node-bare" }])),
    ).toEqual([
      `${head}; 2 figure(s) checked against them (Holm over them, 5%):`,
      "  CHANGED: bun-bare · api · rps 52,100, predicted 60,000–72,000 from 4 earlier sessions (p = 0.00041)",
    ]);
  });

  test("a session already in the store; a CHANGED ratio names its reference", () => {
    const ratioCheck = {
      ...check(true),
      app: "node-bare",
      reference: "bun-bare",
      metric: "rps-ratio",
      estimate: 0.48,
      low: 0.4,
      high: 0.45,
    };
    expect(runHistoryLines(withHistory([ratioCheck], 4, false))).toEqual([
      "history: session r1 of testbed tb1 already in /h.sqlite; 4 earlier session(s) of this testbed and settings; 1 figure(s) checked against them (Holm over them, 5%):",
      "  CHANGED: node-bare against bun-bare · api · rps-ratio ×0.480, predicted ×0.400–×0.450 from 4 earlier sessions (p = 0.00041)",
    ]);
  });
});

describe("the README's history section", () => {
  test("a row per series with enough sessions: across estimate, CI, spread, sessions, testbed", () => {
    const section = historyReadme(view, 4);
    const a = rps.across as NonNullable<SeriesView["across"]>;
    expect(section.split("\n")).toEqual([
      HISTORY_START,
      "<!-- Generated by ./benchmark.sh history --update-readme; edits here are overwritten. -->",
      "",
      "| series | across sessions (95% CI) | sessions part by | sessions | testbed |",
      "| :-- | --: | --: | --: | :-- |",
      `| bun-bare · api · req/s | ${figure(rps, a.estimate)} (${figure(rps, a.low)}–${figure(rps, a.high)}) | ±1.7% | 4 over 3.0 h | Test CPU, 2 cores, 8 GiB, kvm |`,
      expect.stringMatching(/^\| node-bare against bun-bare · api · req\/s ratio \| ×0\.368 /),
      "",
      HISTORY_END,
    ]);
    expect(historyReadme(view, 5)).not.toContain("| bun-bare");
  });

  test("replaced between its markers, the rest kept; none to replace: an error", () => {
    const readme = `intro\n${HISTORY_START}\nold\n${HISTORY_END}\nrest\n`;
    expect(withHistorySection(readme, "NEW")).toBe("intro\nNEW\nrest\n");
    // the markers at the very start and end
    expect(withHistorySection(`${HISTORY_START}old${HISTORY_END}`, "NEW")).toBe("NEW");
    const missing =
      "the README has no <!-- history:start --> ... <!-- history:end --> section to replace";
    expect(() => withHistorySection(`intro\n${HISTORY_START}\nold\n`, "NEW")).toThrow(missing);
    expect(() => withHistorySection(`${HISTORY_END}\nold\n${HISTORY_START}\n`, "NEW")).toThrow(
      missing,
    );
    expect(() => withHistorySection("no markers", "NEW")).toThrow(
      "the README has no <!-- history:start --> ... <!-- history:end --> section to replace",
    );
  });
});
