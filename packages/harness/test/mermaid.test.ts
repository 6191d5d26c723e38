// The Mermaid charts of report.md (report/mermaid.ts): the y axis, the * marks, a chart pair per
// scenario. Part of the mutation group "report-text"; values worked out by hand.

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { mermaidCharts, starred, xychart } from "../src/report/mermaid.ts";
import { fakeAnalysis, fakeRow, SYNTHETIC } from "./support/report-synthetic.ts";

describe("README section", () => {
  test("report.md's charts: mean req/s and median p99, * on bound or unsaturated apps", () => {
    const updated = markdownReport(analyze(SYNTHETIC));
    expect(updated.match(/```mermaid\nxychart-beta/g)).toHaveLength(4);
    expect(updated).toContain(
      [
        "```mermaid",
        "xychart-beta",
        '    title "api: req/s (mean)"',
        '    x-axis ["bun-bare*", "bun-hono*", "node-hono"]',
        '    y-axis "req/s" 0 --> 50000',
        "    bar [41200, 40500, 30000]",
        "```",
      ].join("\n"),
    );
    expect(updated).toContain(
      '    title "api: p99 latency (ms, median of samples)"\n' +
        '    x-axis ["bun-bare*", "bun-hono*", "node-hono"]\n' +
        '    y-axis "ms" 0 --> 40\n' +
        "    bar [17.99, 21, 35]\n",
    );
    expect(updated).toContain('    x-axis ["bun-bare", "bun-hono", "node-hono"]');
    expect(updated).toContain(
      "an app marked * had load-generator-bound or generator-ceiling samples, so its bar is a lower bound, or unsaturated, contended or machine-full samples",
    );
  });
});

describe("Mermaid charts", () => {
  test("the y axis tops at the next round step above 110% of the tallest bar", () => {
    // 950 → 1,045; steps of 100 (the power of ten at or below 950) → 1,100
    expect(xychart("t", ["a"], [950], "req/s")).toContain('y-axis "req/s" 0 --> 1100');
    // exactly 100 → 110; steps of 100 → 200 (the axis is never flush with the bar)
    expect(xychart("t", ["a"], [100], "ms")).toContain("0 --> 200");
    // 17.994 → 19.79; steps of 10 → 20; the bar keeps two decimals
    expect(xychart("t", ["a", "b"], [17.994, 3], "ms")).toBe(
      [
        "```mermaid",
        "xychart-beta",
        '    title "t"',
        '    x-axis ["a", "b"]',
        '    y-axis "ms" 0 --> 20',
        "    bar [17.99, 3]",
        "```",
      ].join("\n"),
    );
    // nothing measured above 0: a step of 1, a top of 0, not NaN
    expect(xychart("t", ["a"], [0], "ms")).toContain("0 --> 0\n    bar [0]");
  });

  test("* on every kind of sample that is not the server's best, one at a time", () => {
    const marks = [
      "boundTrials",
      "ceilingTrials",
      "unsaturatedTrials",
      "contendedTrials",
      "machineFullTrials",
    ];
    for (const count of marks) expect(starred(fakeRow("a", 1, 1, { [count]: 1 }))).toBe(true);
    expect(starred(fakeRow("a", 1, 1))).toBe(false);
  });

  test("a chart pair per scenario with something measured; unmeasured apps have no bar", () => {
    const charts = mermaidCharts(
      fakeAnalysis({
        none: [fakeRow("x", 0, 0, { rps: { n: 0, mean: Number.NaN } })],
        api: [
          fakeRow("a", 1000, 4, { contendedTrials: 2 }),
          fakeRow("b", 500, 9, { rps: { n: 0, mean: 500 } }),
        ],
      }),
    );
    // one scenario's two charts: the one with nothing measured is skipped, not the end
    expect(charts.match(/xychart-beta/g)).toHaveLength(2);
    expect(charts).toContain('title "api: req/s (mean)"\n    x-axis ["a*"]');
    expect(charts).toContain('title "api: p99 latency (ms, median of samples)"');
    expect(charts).toContain("    bar [4]");
    expect(charts).not.toContain("none");
    expect(mermaidCharts(fakeAnalysis({}))).toBe("");
  });
});
