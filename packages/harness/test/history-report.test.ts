// The history's pages and the run's history lines (report/history-report.ts): cells and
// numbers as each view shows them, from a history view of crafted sessions.

import { describe, expect, test } from "bun:test";
import { historyView, type SeriesView } from "../src/history/view.ts";
import {
  acrossLine,
  eventLines,
  figure,
  HISTORY_END,
  HISTORY_START,
  historyBmf,
  historyChart,
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
  });

  test("a series' title names the app, its reference and what is measured", () => {
    expect(seriesTitle(rps)).toBe("bun-bare · api · req/s");
    expect(seriesTitle(ratio)).toBe("node-bare against bun-bare · api · req/s ratio");
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

describe("the run's history lines", () => {
  const base = syntheticRun(["bun-bare"], ["api"], []);
  const withHistory = (
    checked: NonNullable<Results["history"]>["checked"],
    earlier = 4,
  ): Results => ({
    ...base,
    history: { store: "/h.sqlite", run: "r1", testbed: "tb1", recorded: true, earlier, checked },
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
    expect(() => withHistorySection("no markers", "NEW")).toThrow(
      "the README has no <!-- history:start --> ... <!-- history:end --> section to replace",
    );
  });
});
