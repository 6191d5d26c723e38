// The README block (report/readme.ts): the compact summary between the markers, every cell of
// it, the header line and the links. Part of the mutation group "report-text".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { compactSummary, END, START, updateReadme } from "../src/report/readme.ts";
import type { Results } from "../src/results/schema.ts";
import { fakeAnalysis, fakeRow, SYNTHETIC } from "./support/report-synthetic.ts";

describe("README section", () => {
  const readme = `# Title\n\nintro\n\n${START}\nold numbers\n${END}\n\nafter\n`;

  test("replaced between the markers by a compact summary that links the report", () => {
    const updated = updateReadme(readme, analyze(SYNTHETIC), "docs/results/x");
    expect(updated.startsWith("# Title\n\nintro\n\n")).toBe(true);
    expect(updated.endsWith(`${END}\n\nafter\n`)).toBe(true);
    expect(updated).not.toContain("old numbers");
    // the long tables stay in the report
    expect(updated).not.toContain("### Benchmark results");
    expect(updated).toContain(
      [
        "| app | api | echo |",
        "| :-- | --: | --: |",
        "| bun-hono | 40.5k ±1.2% (2)* | 19.4k ±5.1% (≈1 ≥ 6.1%) |",
        "| bun-bare | 41.2k ±1.2% (1)* | 20.0k ±5.0% (1) |",
        "| node-hono | 30.0k ±0.8% (3) | 10.0k (≈1) |",
        "| node-bare | failed | failed |",
      ].join("\n"),
    );
    expect(updated).toContain("| bun-bare | 18.0 | 6.00 |");
    expect(updated).toContain("[report.md](docs/results/x/report.md)");
    expect(updated).toContain("wrk 4.2.0 · 64 keep-alive connections");
    expect(() => updateReadme("# no markers", analyze(SYNTHETIC))).toThrow(
      /no "<!-- results:start -->"/,
    );
  });
});

/** SYNTHETIC with one more app in its settings. */
const withApp = (app: string): Results => ({
  ...SYNTHETIC,
  manifest: {
    ...SYNTHETIC.manifest,
    settings: { ...SYNTHETIC.manifest.settings, apps: [...SYNTHETIC.manifest.settings.apps, app] },
  },
});

describe("README section: every cell", () => {
  test("cells: absent, failed, unmeasured, no interval, no rank; p99's decimals switch at 10 ms", () => {
    const summary = compactSummary(
      fakeAnalysis(
        {
          api: [
            // 12,345 req/s → 12.3k; ±2.34% → ±2.3%; rank 2, not a tie
            fakeRow("bun-hono", 12_345, 10, {
              estimate: { halfWidth: 0.0234 },
              rank: { position: 2, tie: false, mdd: 0.05 },
            }),
            // a tie whose smallest detectable difference is unknown: no "≥"
            fakeRow("bun-bare", 20_000, 9.999, { rank: { position: 1, tie: true } }),
            fakeRow("node-hono", 5_000, 3, { rps: { n: 0, mean: Number.NaN } }),
            // measured, but not ranked: the number alone
            fakeRow("deno-hono", 7_000, 3),
            fakeRow("node-bare", 0, 0, { status: "failed", rps: { n: 0, mean: Number.NaN } }),
          ],
          echo: [],
        },
        withApp("deno-hono"),
      ),
      "out",
    );
    // blocks: the run, the legend, req/s, the p99 caption, p99, the links
    const blocks = summary.split("\n\n");
    expect(blocks).toHaveLength(6);
    expect(blocks[0]).toStartWith(
      "Measured 2026-11-21 10:00 UTC (complete) · Test CPU, 2 cores, 8 GiB",
    );
    expect(blocks[0]).toEndWith(
      " apps interleaved · server on CPU 0, load generator on CPU 1 · — · commit 0123456789ab.",
    );
    expect(blocks[1]).toBe(
      "**Requests per second**: mean over processes ± half-width of its 95% confidence interval, " +
        "(rank) in the scenario; ≈ marks a tie: not significantly slower than the app that opened " +
        "its group (a paired t-test on the per-round log ratios of process means from 20 rounds, " +
        "else Welch's; Holm over the table's pairs), with the " +
        "smallest difference the run could have detected (80% power). * marks an app with " +
        "load-generator-bound, generator-ceiling, unsaturated, contended or machine-full samples: " +
        "not the server's best.",
    );
    expect(blocks[3]).toBe(
      "**p99 latency, ms** (median of the samples' p99; the report shows the range):",
    );
    expect(blocks[5]).toBe(
      "Every table, flag, note and chart: [report.md](out/report.md) · [report.html](out/report.html) · [results.json](out/results.json).",
    );
    expect(summary).toContain(
      [
        "| app | api | echo |",
        "| :-- | --: | --: |",
        "| bun-hono | 12.3k ±2.3% (2) | — |",
        "| bun-bare | 20.0k (≈1) | — |",
        "| node-hono | — | — |",
        "| node-bare | failed | — |",
        "| deno-hono | 7.0k | — |",
      ].join("\n"),
    );
    // p99 10 ms and over: one decimal; under 10 ms: two (9.999 rounds up to 10.00)
    expect(summary).toContain(
      [
        "| bun-hono | 10.0 | — |",
        "| bun-bare | 10.00 | — |",
        "| node-hono | — | — |",
        "| node-bare | — | — |",
        "| deno-hono | 3.00 | — |",
      ].join("\n"),
    );
  });

  test("the header line names the run; the links are relative to the report's directory", () => {
    const updated = updateReadme(`${START}\n${END}`, analyze(SYNTHETIC));
    // SYNTHETIC's manifest: started 2026-11-21T10:00, commit 0123456789abcdef0123 (12 shown)
    expect(updated).toContain(
      "Measured 2026-11-21 10:00 UTC (complete) · Test CPU, 2 cores, 8 GiB · Debian 13 · 6.1 · " +
        "wrk 4.2.0 · 64 keep-alive connections",
    );
    expect(updated).toContain(" · commit 0123456789ab.");
    // the runtimes the apps reported, when they did
    const reported: Results = {
      ...SYNTHETIC,
      apps: SYNTHETIC.apps.map((a) => ({
        ...a,
        reportedRuntime: { name: "bun", version: "1.4.5" },
      })),
    };
    expect(updateReadme(`${START}\n${END}`, analyze(reported))).toContain(
      " · bun 1.4.5 · commit 0123456789ab.",
    );
    expect(updated).toContain(
      "[report.md](./report.md) · [report.html](./report.html) · [results.json](./results.json).",
    );
    // a database run names its engine, after the pinning
    const database = { engine: "sqlite" as const, clients: { bun: "bun:sqlite" }, settings: {} };
    expect(
      updateReadme(
        `${START}\n${END}`,
        analyze({ ...SYNTHETIC, manifest: { ...SYNTHETIC.manifest, database } }),
      ),
    ).toContain(
      "load generator on CPU 1 · database SQLite, a file per app process (bun:sqlite) · ",
    );
    expect(updated).not.toContain("database");
    expect(updated).toStartWith(
      `${START}\n<!-- Generated by ./benchmark.sh --update-readme from a results.json; edits here are overwritten. -->\n\nMeasured `,
    );
    expect(updated.endsWith(`.\n\n${END}`)).toBe(true);
  });

  test("the markers must both be there, start before end", () => {
    const a = analyze(SYNTHETIC);
    for (const readme of [`${START}\n`, `\n${END}`, `${END}\n${START}`]) {
      expect(() => updateReadme(readme, a)).toThrow(/no "<!-- results:start -->"/);
    }
  });
});
