// The terminal summary's extras (report/extras.ts): the blocks a run adds under the summary
// (capacity, start-up, workers and scaling, calibration, versions, CPU time per request), their
// headings and padded columns. Part of the mutation groups "report-text" and "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { COSTED } from "./support/report-side.ts";
import { CALIBRATED, RATED, STARTED, SYNTHETIC, WORKERS } from "./support/report-synthetic.ts";
import { syntheticVersionsRun } from "./support/synthetic.ts";

/** The offset of each line's `n`-th column (columns are two or more spaces apart). */
const columnStarts = (lines: string[], n: number) =>
  lines.map((l) => {
    const m = [...l.matchAll(/(?:^|\s{2,})(\S)/g)][n];
    return m ? (m.index ?? 0) + m[0].length - 1 : -1;
  });

describe("the terminal summary's extras", () => {
  test("a plain run has none", () => {
    expect(summaryExtras(analyze(SYNTHETIC))).toEqual([]);
  });

  test("not supported: a row per cell, with its reason, under its caption; and in the Markdown", () => {
    const unsupported = [
      { app: "bun-hono", scenario: "h2", reason: "Bun.serve speaks HTTP/1.1 only" },
      { app: "node-express", scenario: "h2", reason: "Express throws on node:http2" },
    ];
    const analysis = analyze({ ...SYNTHETIC, unsupported });
    expect(summaryExtras(analysis)).toEqual([
      [
        "== not supported (no figure: the app cannot serve the scenario)",
        "app           scenario  not supported because",
        "bun-hono      h2        Bun.serve speaks HTTP/1.1 only",
        "node-express  h2        Express throws on node:http2",
      ].join("\n"),
    ]);
    const md = markdownReport(analysis);
    expect(md).toContain(
      [
        "## Not supported",
        "",
        "Apps that cannot serve a scenario of the run, and why (the contract's reason, which verify() checks against the app at every start: the day the app serves it, the check fails and the entry goes). No figure stands in for these cells.",
        "",
        "| app | scenario | not supported because |",
        "| :-- | :-- | :-- |",
        "| bun-hono | h2 | Bun.serve speaks HTTP/1.1 only |",
        "| node-express | h2 | Express throws on node:http2 |",
      ].join("\n"),
    );
    // An empty list is no section.
    expect(markdownReport(analyze({ ...SYNTHETIC, unsupported: [] }))).not.toContain(
      "Not supported",
    );
  });

  test("capacity: a block per scenario, columns padded to their widest cell", () => {
    const [block, ...more] = summaryExtras(analyze(RATED));
    expect(more).toEqual([]);
    const lines = (block ?? "").split("\n");
    expect(lines[0]).toBe("== api: capacity at p99 ≤ 10 ms (open loop, oha --latency-correction)");
    // "node-hono" is the widest app (9): the capacity column starts at 9 + 2 on every line,
    // and the capacity cells (27 wide: "20,000 req/s (below 36,000)") push "how" to 11 + 27 + 2
    expect(lines[1]).toBe("app        capacity                     how");
    expect(columnStarts(lines.slice(1), 1)).toEqual([11, 11, 11]);
    expect(columnStarts(lines.slice(1), 2)).toEqual([40, 40, 40]);
    expect(lines[2]).toStartWith(
      "bun-bare   20,000 req/s (below 36,000)  the highest measured rate",
    );
    // nothing trails the last column
    for (const l of lines) expect(l).toBe(l.trimEnd());
  });

  test("start-up, workers and scaling, calibration, versions: each its block and heading", () => {
    const [starts] = summaryExtras(analyze(STARTED));
    expect(starts).toBe(
      [
        "== start-up: runtime start to first correct answer; RSS when ready and after 1 s idle (median, range)",
        // bun-bare: 3 starts (2 fresh), ready 30/40/90 → 40 (30–90), idle 30/31/32 (+5 ready)
        "app        starts (fresh)  ready ms       RSS ready MiB  RSS idle MiB",
        "bun-bare   3 (2)           40 (30–90)     36.0           31.0 (30.0–32.0)",
        "node-hono  2 (1)           425 (400–450)  90.0           85.0 (80.0–90.0)",
      ].join("\n"),
    );
    const [workers, scaling, ...rest] = summaryExtras(analyze(WORKERS));
    expect(rest).toEqual([]);
    expect(workers?.split("\n")[0]).toBe(
      "== workers: how many held connections; CPU and connections per worker, busiest first",
    );
    // both apps: 2 of 2 served; CPU 61/62/63 → median 62 and 30; 40 and 24 connections
    expect(workers).toContain("\na-bare  api       2 of 2               62 / 30           40 / 24");
    expect(scaling).toBe(
      [
        "== api: req/s by worker count (× the first; ≈ not significant)",
        "app     1 worker(s)  2 worker(s)",
        "a-bare  1,002        1,902 (×1.90)",
        "b-bare  1,200        1,210 (≈×1.01)",
      ].join("\n"),
    );
    const [calibration] = summaryExtras(analyze(CALIBRATED));
    expect(calibration?.split("\n")[0]).toBe(
      "== calibration: api: too few rounds for subsampled rates (the run needs more rounds than a default run)",
    );
    expect(calibration?.split("\n")[1]).toStartWith(
      "row          extra iterations  extra  expected",
    );
    // 485 iterations; bun-bare-x5's means 9,520 against 10,020: −5.0%
    expect(calibration?.split("\n")[2]).toStartWith("bun-bare-x5  485               5.0%");
    const [versions] = summaryExtras(analyze(syntheticVersionsRun()));
    expect(versions).toBe(
      [
        "== api: req/s by node version (% of the first; ≈ not significant)",
        "app        node 22.23.3  node 24.21.0",
        // node-bare 10,000 → 11,000: 110%; node-hono 8,000 both: a tie
        "node-bare  10,000        11,000 (110%)",
        "node-hono  8,000         8,000 (≈100%, could detect ≥ 23.9%)",
      ].join("\n"),
    );
  });
});

describe("Markdown: CPU time per request, one app at a time", () => {
  test("the terminal summary: a block per scenario, columns padded to their widest cell", () => {
    expect(summaryExtras(analyze(COSTED))).toEqual([
      [
        "== api: CPU time per request, one app at a time (× the cheapest; ≈ not significant)",
        // "node-bare" (9) + 2; the header's "CPU µs per request (95% CI)" (27) + 2 after that
        "app        CPU µs per request (95% CI)  × cheapest (95% CI)",
        "bun-bare   11.00 (8.52–13.48)           ×1.000 (the cheapest)",
        "node-bare  24.00 (19.03–28.97)          ×2.182 (1.804–2.560)",
      ].join("\n"),
      [
        "== echo: CPU time per request, one app at a time (× the cheapest; ≈ not significant)",
        "app       CPU µs per request (95% CI)  × cheapest (95% CI)",
        "bun-bare  11.00 (8.52–13.48)           ×1.000 (the cheapest)",
      ].join("\n"),
    ]);
  });
});
