// Report text on synthetic results, fast and hermetic (the mutation group "report-text" runs it
// against every mutant of the report renderers): which rows and cells report.md, report.html and
// the README block show, numbers with their uncertainty, verdict words, order, marks, escaping
// and links. Expected values are written out by hand, with how they were worked out; the
// end-to-end checks (Chromium, real runs) stay in report.e2e.test.ts.

import { describe, expect, test } from "bun:test";
import {
  type Analysis,
  analyze,
  type GroupAnalysis,
  type SummaryRow,
} from "../src/analysis/analysis.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { change, fmt, pct, pValue } from "../src/report/format.ts";
import { chartData, htmlReport } from "../src/report/html.ts";
import { CHART_COLORS } from "../src/report/html-assets.ts";
import {
  headerLines,
  markdownReport,
  noiseText,
  relativeMatrix,
  rowNotes,
  throughputCell,
} from "../src/report/markdown.ts";
import { mermaidCharts, starred, xychart } from "../src/report/mermaid.ts";
import { compactSummary, END, START, updateReadme } from "../src/report/readme.ts";
import { type Results, schemaErrors } from "../src/schema.ts";
import {
  CALIBRATED,
  CURVE,
  RATED,
  STARTED,
  SYNTHETIC,
  WORKERS,
} from "./support/report-synthetic.ts";
import {
  cleanChecks,
  syntheticRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

test("the synthetic run is a valid results.json", () => {
  expect(schemaErrors(SYNTHETIC)).toEqual([]);
});

describe("number formatting", () => {
  test("fmt: grouped thousands, fixed decimals, a dash for no number", () => {
    expect(fmt(41_200)).toBe("41,200");
    expect(fmt(1_234_567.891, 2)).toBe("1,234,567.89");
    expect(fmt(0.604, 2)).toBe("0.60");
    expect(fmt(17.5)).toBe("18");
    expect(fmt(-1_500)).toBe("-1,500");
    expect(fmt(Number.NaN)).toBe("—");
    expect(fmt(Number.POSITIVE_INFINITY)).toBe("—");
  });

  test("pct: rounds to whole percent unless told, a dash for nothing", () => {
    expect(pct(97.4)).toBe("97%");
    expect(pct(99.5)).toBe("100%");
    expect(pct(101.73)).toBe("102%");
    expect(pct(12.345, 1)).toBe("12.3%");
    expect(pct(1_250)).toBe("1,250%");
    expect(pct(undefined)).toBe("—");
    expect(pct(Number.NaN)).toBe("—");
  });

  test("change and pValue", () => {
    expect(change(0.031)).toBe("+3.1%");
    expect(change(-0.2)).toBe("−20.0%");
    expect(change(Number.NaN)).toBe("—");
    expect(pValue(0.0127)).toBe("0.013");
    expect(pValue(0.0004)).toBe("< 0.001");
    expect(pValue(1)).toBe("1.000");
  });
});

describe("Markdown report of the synthetic run", () => {
  const md = markdownReport(analyze(SYNTHETIC));

  test("the Packages row lists autocannon only when it measured", () => {
    const lockfile = { hono: "4.13.19", autocannon: "8.0.0" };
    const packagesRow = (tool: "wrk" | "autocannon") => {
      const m = SYNTHETIC.manifest;
      const results = {
        ...SYNTHETIC,
        manifest: {
          ...m,
          tool: { ...m.tool, name: tool },
          versions: { ...m.versions, lockfile },
        },
      };
      return headerLines(results).find(([label]) => label === "Packages (bun.lock)")?.[1];
    };
    expect(packagesRow("wrk")).toBe("hono 4.13.19");
    expect(packagesRow("autocannon")).toBe("hono 4.13.19, autocannon 8.0.0");
  });

  test("the scenario table: rank, mean ± sd with its tags, 95% CI, median p50 and p99 (range)", () => {
    expect(md).toContain(
      [
        "| rank | app | req/s (mean ± sd) | 95% CI | ± | CoV | p50 ms | p99 ms (range) | peak RSS MiB | server CPU | load gen CPU | processes | valid samples |",
        "| :-- | :-- | :-- | --: | --: | :-- | --: | --: | --: | --: | --: | --: | --: |",
        "| 1 | bun-bare | 41,200 ± 200 ⚠️ load-generator bound 2/3 | 40,703–41,697 | ±1.2% | 0.5% excellent | 0.60 | 17.99 (9.93–437.65) | 52.5 | 97% | 75% | 3 | 3/3 |",
        "| 2 | bun-hono | 40,500 ± 200 ⚠️ unsaturated 1/3 | 40,003–40,997 | ±1.2% | 0.5% excellent | 0.90 | 21.00 (20.00–22.00) | 62.0 | 97% | 75% | 3 | 3/3 |",
        "| 3 | node-hono | 30,000 ± 100 ⚠️ idle connections 1/3 | 29,752–30,248 | ±0.8% | 0.3% excellent | 1.50 | 35.00 (30.00–40.00) | 82.0 | 97% | 75% | 3 | 3/3 |",
        "| — | node-bare | — ❌ failed | — | — | — | — | — | — | — | — | 0 | 0/0 |",
      ].join("\n"),
    );
    // echo: ties share the rank and say what they could have detected; one process has no
    // CI and no range
    expect(md).toContain(
      "| ≈1 (could detect ≥ 6.1%) | bun-hono | 19,400 ± 400 | 18,406–20,394 | ±5.1% | 2.1% excellent | 1.20 | 7.00 (6.00–8.00) | 67.0 | 97% | 75% | 3 | 3/3 |",
    );
    expect(md).toContain(
      "| ≈1 | node-hono | 10,000 ⚠️ invalid 1/2 excluded ⚠️ 1 process | too few samples | — | — | 2.00 | 50.00 | 90.0 | 97% | 75% | 1 | 1/2 |",
    );
  });

  test("flags explained below the table, each with the trials' notes", () => {
    expect(md).toContain(
      [
        "Notes:",
        "",
        "- bun-bare: LOAD-GENERATOR BOUND 2/3: a lower bound (the load generator was saturated, the server was not)",
        "  - wrk used 99% of its core, the server 81%",
        "- bun-hono: UNSATURATED 1/3: neither the server nor the load generator was saturated (not the server's best)",
        "  - CPU steal 14% during the trial",
        "- node-hono: IDLE CONNECTIONS 1/3: in-flight requests well below the connections: connections waited without a counted request (unserved by the server, or paced by the load generator; see the notes)",
        "  - 12 requests in flight on 64 connections",
        "- node-bare: FAILED: port 3005 is already in use by pid 42 (python3 -m http.server)",
        "",
      ].join("\n"),
    );
    expect(md).toContain(
      "- node-hono: INVALID 1/2 (error rate 3.10% > 0.01%): excluded\n" +
        "- node-hono: 1 process with valid samples: too few samples for a CI, and every comparison is a tie (≈)\n",
    );
    expect(md).not.toContain("and more output"); // only the failure's first line
  });

  test("relative throughput: ≈ on every pair that is not significantly different", () => {
    expect(md).toContain(
      [
        "|  | bun-bare | bun-hono | node-hono |",
        "| :-- | --: | --: | --: |",
        "| bun-bare | 100% | 102% | 137% |",
        "| bun-hono | 98% | 100% | 135% |",
        "| node-hono | 73% | 74% | 100% |",
      ].join("\n"),
    );
    expect(md).toContain(
      [
        "| bun-bare | 100% | ≈103% | ≈200% |",
        "| bun-hono | ≈97% | 100% | ≈194% |",
        "| node-hono | ≈50% | ≈52% | 100% |",
      ].join("\n"),
    );
  });

  test("framework tax: a cost where the difference is significant, ≈ tie where not", () => {
    const header = "| app | % of bare | cost | p |\n| :-- | --: | :-- | --: |\n";
    // Three rounds: too few to pair, so Welch's test on the process means.
    expect(md).toContain(`${header}| bun-hono | 98% | 2% | 0.013 |\n`);
    expect(md).toContain(`${header}| bun-hono | ≈97% | ≈ tie (could detect ≥ 6.1%) | 0.140 |\n`);
  });

  test("the report says how to read ranks, ≈, the CI and the flags", () => {
    expect(md).toContain("±: the 95% CI's half-width as a share of the mean.");
    expect(md).toContain("Each app's mean is over processes (fresh starts)");
    expect(md).toContain("p99 also shows its lowest–highest over samples");
    expect(md).toContain(
      "≈ marks a difference that is not significant (a paired t-test on the per-round log ratios of the process means where two apps share 20 rounds or more, as a default run's do; Welch's t-test on the process means where they share fewer; every pair of a table is one family, held to 5% by Holm's step-down)",
    );
    expect(md).toContain("the smallest difference the run could have detected");
    expect(md).toContain("significantly slower than the app that opened the current tie group");
    expect(md).toContain(
      "Generator ceiling: the load generator used 95% or more of what it can, or connections waited on it while the server's core had idle time: a lower bound of the server's capacity, whatever the server's own CPU.",
    );
    expect(md).toContain("Unsaturated: neither was saturated");
    expect(md).toContain("Idle connections: far fewer requests were in flight");
  });
});

describe("intervals that reach below zero", () => {
  // Three processes at 100, 1,000 and 10,000 req/s: mean 3,700, its 95% CI −9,851 to 17,251.
  const wild = syntheticRun(
    ["bun-bare"],
    ["api"],
    [100, 1_000, 10_000].map((rps, i) => syntheticTrial("bun-bare", "api", i + 1, 50, rps, 5)),
  );

  test("the chart's error bar starts at 0; the table keeps the interval as computed", () => {
    const rows = analyze(wild).groups.get("api")?.rows ?? [];
    expect(rows[0]?.ci?.low).toBeLessThan(0);
    const rps = chartData(analyze(wild)).find((c) => c.id === "rps-api");
    expect(rps?.datasets[0]?.ranges?.[0]?.[0]).toBe(0);
    expect(rps?.datasets[0]?.ranges?.[0]?.[1]).toBeCloseTo(rows[0]?.ci?.high ?? 0, 1);
  });

  test("with two processes there is no interval to draw at all: too few samples", () => {
    const two = { ...wild, trials: wild.trials.slice(0, 2) };
    const rps = chartData(analyze(two)).find((c) => c.id === "rps-api");
    expect(rps?.datasets[0]?.ranges).toEqual([null]);
    expect(markdownReport(analyze(two))).toContain("| too few samples |");
  });
});

describe("HTML report", () => {
  const html = htmlReport(analyze(SYNTHETIC));

  test("tables and the framework-tax line carry ranks, CIs and ties", () => {
    expect(html).toContain(
      "<tr><td>1</td><td>bun-bare</td><td>41,200 ± 200 ⚠️ load-generator bound 2/3</td><td>40,703–41,697</td>",
    );
    expect(html).toContain("<td>17.99 (9.93–437.65)</td>");
    expect(html).toContain("): bun-hono 98% of bare (cost 2%)</p>");
    expect(html).toContain("): bun-hono ≈ tie (97% of bare, could detect ≥ 6.1%)</p>");
    expect(html).toContain("<td>bun-hono</td><td>≈97%</td><td>100%</td><td>≈194%</td>");
    expect(html).toContain(
      "<li>bun-hono: UNSATURATED 1/3: neither the server nor the load generator was saturated (not the server's best)<ul><li>CPU steal 14% during the trial</li></ul></li>",
    );
  });
});

describe("profiles in the reports (--profile)", () => {
  const top = [
    { function: "writeUtf8String", location: "", samples: 452, percent: 17.4 },
    { function: "json", location: "hono/dist/context.js:336", samples: 129, percent: 4.96 },
  ];
  const summary = { totalMs: 4000, samples: 2821, idleSamples: 225, coverage: 0.7, top };
  const PROFILED: Results = {
    ...SYNTHETIC,
    profiles: [
      {
        app: "bun-hono",
        scenario: "api",
        startedAt: "2026-11-22T12:00:00.000Z",
        file: "profiles/bun-hono-api.cpuprofile",
        rps: 3593.4,
        p99Ms: 749.61,
        summary,
      },
      {
        app: "bun-bare",
        scenario: "api",
        startedAt: "2026-11-22T12:00:00.000Z",
        file: "profiles/bun-bare-api.cpuprofile",
        summary: { ...summary, coverage: 0.02 },
      },
      {
        app: "node-bare",
        scenario: "api",
        startedAt: "2026-11-22T12:00:00.000Z",
        unavailable: "node wrote no profile at profiles/node-bare-api.cpuprofile",
      },
    ],
  };

  test("the profiled run still conforms to the schema", () => {
    expect(schemaErrors(PROFILED)).toEqual([]);
  });

  test("Markdown: a section per profile with its link, trial figures and hottest functions", () => {
    const md = markdownReport(analyze(PROFILED));
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("Profiles");
    const section = md.slice(md.indexOf("## Profiles"));
    expect(section).toContain("not in any figure above");
    expect(section).toContain(
      "### bun-hono · api\n\n[profiles/bun-hono-api.cpuprofile](profiles/bun-hono-api.cpuprofile). " +
        "Profiled trial: 3,593 req/s, p99 749.6 ms (not counted). 2,821 samples over 4.0 s, 2,596 of them busy (not idle).\n",
    );
    expect(section).toContain("| 1 | writeUtf8String | (native) | 452 | 17.4% |");
    expect(section).toContain("| 2 | json | hono/dist/context.js:336 | 129 | 5.0% |");
    // Only the sparse profile gets the warning that native work is missing.
    expect(section.match(/The sampler saw only/g)).toHaveLength(1);
    expect(section).toContain("The sampler saw only 2% of the time");
    expect(section).toContain(
      "### node-bare · api\n\nNo profile: node wrote no profile at profiles/node-bare-api.cpuprofile.",
    );
    // blank lines around headings and tables; no table for a profile that has none
    expect(md).toContain("```\n\n## Profiles\n\nOne extra trial per app and scenario");
    expect(section).toContain("the runtime was not idle.\n\n### bun-hono · api\n\n[profiles/");
    expect(section).toContain("(not idle).\n\n| # | function | where | self samples | share |\n");
    expect(md).toEndWith(
      "No profile: node wrote no profile at profiles/node-bare-api.cpuprofile.\n",
    );
  });

  test("HTML: the same, with the profile linked", () => {
    const html = htmlReport(analyze(PROFILED));
    expect(html).toContain("<h2>Profiles</h2>");
    expect(html).toContain(
      '<h3>bun-hono · api</h3><p><a href="profiles/bun-hono-api.cpuprofile">profiles/bun-hono-api.cpuprofile</a>. Profiled trial: 3,593 req/s',
    );
    expect(html).toContain(
      "<td>2</td><td>json</td><td>hono/dist/context.js:336</td><td>129</td><td>5.0%</td>",
    );
    expect(html).toContain(
      "<table><thead><tr><th>#</th><th>function</th><th>where</th><th>self samples</th><th>share</th></tr></thead>",
    );
    // one profile after another; no link and no table where there is no profile
    expect(html).toContain("</table>\n<h3>bun-bare · api</h3>");
    expect(html).toContain(
      "\n<h3>node-bare · api</h3><p>No profile: node wrote no profile at profiles/node-bare-api.cpuprofile.</p></section>",
    );
  });
});

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

describe("format: the edges", () => {
  test("a change of exactly 0 is +0.0%; a p-value of exactly 0.001 is shown, not '< 0.001'", () => {
    expect(change(0)).toBe("+0.0%");
    expect(change(Number.POSITIVE_INFINITY)).toBe("—");
    expect(pValue(0.001)).toBe("0.001");
    expect(pValue(Number.NaN)).toBe("—");
    expect(pct(Number.POSITIVE_INFINITY)).toBe("—");
    // the default is whole numbers: 2.5 rounds half away from zero (toLocaleString)
    expect(fmt(2.5)).toBe("3");
    expect(pct(2.5)).toBe("3%");
  });
});

/** A summary row with only what the charts and the README read; everything else absent. */
function fakeRow(app: string, mean: number, p99: number, patch: object = {}): SummaryRow {
  return {
    app,
    status: "ok",
    rps: { n: 3, mean, stddev: 0, cov: 0 },
    latencyMs: { p99 },
    estimate: {},
    boundTrials: 0,
    unsaturatedTrials: 0,
    contendedTrials: 0,
    machineFullTrials: 0,
    ceilingTrials: 0,
    flags: [],
    notes: [],
    ...patch,
  } as unknown as SummaryRow;
}

/** An analysis of SYNTHETIC's settings whose groups are the given rows, per scenario. */
function fakeAnalysis(
  groups: Record<string, SummaryRow[]>,
  results: Results = SYNTHETIC,
): Analysis {
  return {
    results,
    groups: new Map(Object.entries(groups).map(([k, rows]) => [k, { rows } as GroupAnalysis])),
    production: [],
  } as unknown as Analysis;
}

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

/** The Markdown section under `heading`, up to the next heading of the same or a higher level. */
function mdSection(md: string, heading: string): string {
  const start = md.indexOf(`${heading}\n`);
  if (start === -1) return "";
  const level = heading.split(" ")[0] as string;
  const next = md.slice(start + heading.length).search(new RegExp(`\\n#{1,${level.length}} `));
  return next === -1 ? md.slice(start) : md.slice(start, start + heading.length + next);
}

describe("Markdown: the header, the levels and every section", () => {
  test("the header table: date and status, machine, load, commit, command", () => {
    expect(headerLines(SYNTHETIC)).toEqual([
      ["Date", "2026-11-21 10:00 UTC (complete)"],
      ["Machine", "Test CPU, 2 cores, 8 GiB · Debian 13 · 6.1"],
      [
        "Load",
        expect.stringMatching(/^wrk 4\.2\.0 · 64 keep-alive connections · .*, apps interleaved$/),
      ],
      ["Server processes", "1 process per app"],
      ["Pinning", "server on CPU 0, load generator on CPU 1"],
      ["Runtimes (as the apps reported)", "—"],
      ["Packages (bun.lock)", "hono 4.13.19"],
      ["Commit", "0123456789ab"],
      ["Command", "./benchmark.sh -n 3"],
    ]);
    const interrupted: Results = {
      ...SYNTHETIC,
      status: "interrupted",
      manifest: {
        ...SYNTHETIC.manifest,
        settings: { ...SYNTHETIC.manifest.settings, argv: [] },
        git: { commit: "fedcba9876543210", dirty: true },
      },
      // two apps on one runtime version, one on another: each named once, sorted
      apps: SYNTHETIC.apps.map((a, i) => ({
        ...a,
        ...(i < 3
          ? {
              reportedRuntime:
                i === 0 ? { name: "node", version: "24.1.0" } : { name: "bun", version: "1.4.5" },
            }
          : {}),
      })),
    };
    const lines = new Map(headerLines(interrupted).map(([k, v]) => [k, v]));
    expect(lines.get("Date")).toBe("2026-11-21 10:00 UTC (interrupted)");
    expect(lines.get("Commit")).toBe("fedcba987654 (uncommitted changes)");
    expect(lines.get("Command")).toBe("./benchmark.sh");
    expect(lines.get("Runtimes (as the apps reported)")).toBe("bun 1.4.5, node 24.1.0");
    const md = markdownReport(analyze(interrupted));
    expect(md).toContain(
      "| Commit | fedcba987654 (uncommitted changes) |\n| Command | ./benchmark.sh |\n\n**Interrupted**: only the trials that finished are included.\n\n",
    );
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("Interrupted");
  });

  test("with the apps on another host (--server-host) the header names both machines", () => {
    const m = SYNTHETIC.manifest;
    const serverHost = {
      name: "bench-server",
      address: "10.77.0.2",
      machine: { ...m.machine, cpuModel: "Big CPU", cores: 8 },
      git: m.git,
      rttMs: 0.1234,
      linkMbps: {},
    };
    const [, machines] = headerLines({ ...SYNTHETIC, manifest: { ...m, serverHost } });
    expect(machines).toEqual([
      "Machines",
      "server bench-server (10.77.0.2): Big CPU, 8 cores, 8 GiB · Debian 13 · 6.1 · " +
        "load generator: Test CPU, 2 cores, 8 GiB · Debian 13 · 6.1 · round trip 0.123 ms",
    ]);
  });

  test("a key/value header table with no header row text; headings one level per depth", () => {
    const md = markdownReport(analyze(SYNTHETIC));
    expect(md).toStartWith(
      "# Benchmark results\n\n|  |  |\n| :-- | :-- |\n| Date | 2026-11-21 10:00 UTC (complete) |\n",
    );
    expect(md).toEndWith("```\n");
    expect(md).toContain(
      "\n## api — GET /api/test — a small JSON object built per request\n\n| rank |",
    );
    expect(md).toContain("\n## Charts\n\nCharts (an app marked *");
    const embedded = markdownReport(analyze(SYNTHETIC), 2);
    expect(embedded).toStartWith("## Benchmark results\n");
    expect(embedded).toContain("\n### api — GET /api/test");
    expect(embedded).toContain("\n### Charts\n");
    // the reading guide, paragraph by paragraph
    expect(md).toContain(
      "5–10% noisy, > 10% unreliable.\n\nLatency: the median over valid samples",
    );
  });

  test("a scenario the contract does not know has no description; one app, no matrix", () => {
    const custom = syntheticRun(
      ["bun-bare"],
      ["custom"],
      [1, 2, 3].map((r) => syntheticTrial("bun-bare", "custom", r, 64, 1000 + r, 5)),
    );
    const md = markdownReport(analyze(custom));
    expect(md).toContain("\n## custom\n\n| rank |");
    expect(md).not.toContain("Relative throughput");
    expect(md).not.toContain("Notes:");
    expect(md).not.toContain("Framework tax");
    expect(md).not.toContain("Noise (CoV");
  });

  test("cells escape the table's pipe and keep to one line", () => {
    const top = [{ function: "a|b\nc", location: "x.js:1", samples: 3, percent: 1 }];
    const profiled: Results = {
      ...SYNTHETIC,
      profiles: [
        {
          app: "bun-hono",
          scenario: "api",
          startedAt: "2026-11-22T12:00:00.000Z",
          summary: { totalMs: 1000, samples: 10, idleSamples: 0, coverage: 0.7, top },
        },
      ],
    };
    const md = markdownReport(analyze(profiled));
    expect(md).toContain("| 1 | a\\|b c | x.js:1 | 3 | 1.0% |");
    // the profile table: rank right-aligned, names left, counts right
    expect(md).toContain("| --: | :-- | :-- | --: | --: |");
    // no file: no link before the text
    // 10 samples over 1,000 ms, none idle
    expect(md).toContain("### bun-hono · api\n\n10 samples over 1.0 s, 10 of them busy");
  });

  test("noise: each app's variance components, the round's share when there is one", () => {
    const group = {
      rows: [
        fakeRow("a", 1, 1, { estimate: { components: { within: 0.012, between: 0.0345 } } }),
        fakeRow("b", 1, 1),
        fakeRow("c", 1, 1, { estimate: { components: { within: 0.1, between: 0 } } }),
      ],
      roundCov: 0.005,
    } as unknown as GroupAnalysis;
    expect(noiseText(group)).toBe(
      "Noise (CoV of one sample): a 1.2% within a process, 3.5% between processes; " +
        "c 10.0% within a process, 0.0% between processes. Shared by every app of a round: 0.5%.",
    );
    expect(noiseText({ ...group, roundCov: undefined } as GroupAnalysis)).toEndWith(
      "0.0% between processes.",
    );
    expect(noiseText({ rows: [fakeRow("b", 1, 1)] } as unknown as GroupAnalysis)).toBeUndefined();
    // in the report, right after the scenario's section
    const analysis = analyze(SYNTHETIC);
    const api = analysis.groups.get("api") as GroupAnalysis;
    const components = { within: 0.01, between: 0.02 };
    const rows = api.rows.map((r, i) =>
      i === 0 ? ({ ...r, estimate: { ...r.estimate, components } } as unknown as SummaryRow) : r,
    );
    analysis.groups.set("api", { ...api, rows, roundCov: undefined });
    expect(markdownReport(analysis)).toContain(
      "\n\nNoise (CoV of one sample): bun-bare 1.0% within a process, 2.0% between processes.\n\n## echo",
    );
  });

  test("notes: the trials' notes hang under a row's last flag; a row with notes only gets them too", () => {
    const flag = (tag: string) => ({ tag, text: `${tag} text` });
    const rows = [
      fakeRow("a", 1, 1, { flags: [flag("ONE"), flag("TWO")], notes: ["n1", "n2"] }),
      fakeRow("b", 1, 1, { notes: ["n3"] }),
      fakeRow("c", 1, 1),
    ];
    expect(rowNotes(rows)).toEqual([
      { app: "a", text: "ONE text", notes: [] },
      { app: "a", text: "TWO text", notes: ["n1", "n2"] },
      { app: "b", text: "notes", notes: ["n3"] },
    ]);
    // the req/s cell: the number, then each flag's tag
    const tagged = fakeRow("a", 1, 1, {
      rps: { n: 3, mean: 1234, stddev: 5, cov: 0 },
      flags: [flag("FAILED"), flag("INVALID 1/3"), flag("CONTENDED 2/3")],
    });
    expect(throughputCell(tagged)).toBe(
      "1,234 ± 5 ❌ failed ⚠️ invalid 1/3 excluded ⚠️ contended 2/3",
    );
  });

  test("relative throughput: row over column, ≈ unless the pair differs significantly", () => {
    const group = {
      rows: [
        fakeRow("a", 300, 1),
        fakeRow("b", 200, 1),
        fakeRow("c", 100, 1),
        fakeRow("d", 50, 1, { rps: { n: 0, mean: 50 } }),
      ],
      // only a and c differ significantly, whichever way round they are asked
      between: (x: string, y: string) => ({ significant: [x, y].sort().join() === "a,c" }),
    } as unknown as GroupAnalysis;
    // 300/200 = 150%, 300/100 = 300%, 200/300 = 67%, 100/300 = 33%, 100/200 = 50%
    expect(relativeMatrix(group)).toEqual({
      header: ["", "a", "b", "c"],
      rows: [
        ["a", "100%", "≈150%", "300%"],
        ["b", "≈67%", "100%", "≈200%"],
        ["c", "33%", "≈50%", "100%"],
      ],
    });
  });

  test("the sections of the other measurements: headings, intros and aligned tables", () => {
    const rated = markdownReport(analyze(RATED));
    const rates = mdSection(rated, "## Latency at offered load");
    expect(rates).toContain("budget: p99 within 10.0 ms (--slo-p99)");
    expect(rates).toContain(
      "### api\n\n| app | rate | offered req/s | achieved req/s | p50 ms | p99 ms | budget |\n" +
        "| :-- | --: | --: | --: | --: | --: | :-- |\n" +
        "| bun-bare | 50% | 20,000 | 20,000 | 0.50 | 4.00 | within |\n",
    );
    expect(rates).toContain(
      "| node-hono | 90% | 27,000 | 27,000 | 30.00 | 300.00 | over capacity |\n\n" +
        "| app | capacity at the p99 budget | how it was found |\n| :-- | --: | :-- |\n",
    );
    const curve = mdSection(markdownReport(analyze(CURVE)), "## Throughput curve");
    expect(curve).toContain("One closed-loop trial per connection count");
    // a column per count right-aligned; the peak and past-the-peak columns are words
    expect(curve).toContain(
      "### api\n\n| app | c=1 | c=100 | c=400 | peak | past the peak |\n| :-- | --: | --: | --: | :-- | :-- |\n" +
        "| bun-bare | 5,000 (0.5) | 40,000 (5.0) | 41,000 (20.0) | c=400 | peak at the largest count measured |",
    );
    const started = mdSection(markdownReport(analyze(STARTED)), "## Start-up");
    expect(started).toContain(
      "\n\n| app | starts (fresh) | ready ms | RSS ready MiB | RSS idle MiB |\n| :-- | --: | --: | --: | --: |\n" +
        "| bun-bare | 3 (2) | 40 (30–90) | 36.0 | 31.0 (30.0–32.0) |\n",
    );
    const workersMd = markdownReport(analyze(WORKERS));
    expect(mdSection(workersMd, "## Workers")).toContain(
      "| app | scenario | workers that served | CPU % per worker | connections per worker | primary RSS MiB | tree peak RSS MiB |\n" +
        "| :-- | :-- | --: | --: | --: | --: | --: |\n| a-bare | api | 2 of 2 | 62 / 30 | 40 / 24 | 20.0 | 50.0 |",
    );
    expect(mdSection(workersMd, "## Scaling with workers")).toContain(
      "\n\n### api\n\n| app | 1 worker(s) | 2 worker(s) |\n| :-- | --: | --: |\n| a-bare | 1,002 | 1,902 (×1.90) |",
    );
    const versions = mdSection(
      markdownReport(analyze(syntheticVersionsRun())),
      "## Runtime versions",
    );
    expect(versions).toContain(
      "### api · node\n\n| app | node 22.23.3 | node 24.21.0 |\n| :-- | --: | --: |\n| node-bare | 10,000 | 11,000 (110%) |",
    );
    expect(versions).toContain(
      '\n\n```mermaid\nxychart-beta\n    title "api: req/s on each node version (mean)"',
    );
    const calibrated = mdSection(markdownReport(analyze(CALIBRATED)), "## Calibration");
    expect(calibrated).toContain("bun-bare against itself (+0%: A/A");
    expect(calibrated).toContain(
      "\n\napi: too few rounds for subsampled rates (the run needs more rounds than a default run):\n\n" +
        "| row | extra iterations | extra | expected | measured (95% CI) | verdict | detectable | called different |\n" +
        "| :-- | --: | --: | --: | --: | :-- | --: | --: |\n| bun-bare-x5 | 485 | 5.0% |",
    );
    // none of them in a plain run
    const plain = markdownReport(analyze(SYNTHETIC));
    for (const h of [
      "Latency at offered",
      "Throughput curve",
      "Start-up",
      "Workers",
      "Scaling",
      "Runtime versions",
      "Calibration",
      "Production tax",
      "Profiles",
    ]) {
      expect(plain).not.toContain(`## ${h}`);
    }
  });

  test("the production tax: one table, or a subheading per api when there are several", () => {
    const trials = (app: string, scenario: string, mean: number, workers: number) =>
      [0.99, 1.01, 1].map((k, i) => ({
        ...syntheticTrial(app, scenario, i + 1, 64, mean * k, 2),
        ...(workers > 1 ? { workers } : {}),
      }));
    const stages = (counts: number[]) =>
      syntheticRun(
        ["bun-bare"],
        ["api", "auth"],
        counts.flatMap((w) => [
          ...trials("bun-bare", "api", 100_000, w),
          ...trials("bun-bare", "auth", 60_000, w),
        ]),
        counts.length > 1 ? { workers: 2, workerCounts: counts } : {},
      );
    const one = mdSection(markdownReport(analyze(stages([1]))), "## Production tax");
    // bun-bare's auth: 60,000 of 100,000 = 60% of its api
    expect(one).toContain(
      "\n\n| app | api req/s | framework tax (of bare) | auth |\n| :-- | --: | --: | --: |\n| bun-bare | 100,000 | — | 60% |",
    );
    expect(one).not.toContain("###");
    expect(markdownReport(analyze(stages([1])))).toContain(
      "\n\n## Production tax\n\nEach middleware stage's mean req/s",
    );
    expect(one).toContain("a share of such an api, or such a stage, is off by as much.\n\n| app |");
    const two = mdSection(markdownReport(analyze(stages([1, 2]))), "## Production tax");
    expect(two).toContain("\n\n### api (w=1)\n\n| app | api req/s |");
    expect(two).toContain("\n\n### api (w=2)\n\n| app | api req/s |");
  });
});

describe("HTML: tables, sections, escaping", () => {
  const html = htmlReport(analyze(SYNTHETIC));

  test("the header as a key/value table, the reading guide escaped, a section per scenario", () => {
    expect(html).toStartWith(
      '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Benchmark results 2026-11-21T10:00:00.000Z</title>',
    );
    expect(html).toContain(
      "<h1>Benchmark results</h1><table><tbody><tr><th>Date</th><td>2026-11-21 10:00 UTC (complete)</td></tr><tr><th>Machine</th>",
    );
    // "< 3% excellent" in the guide is text, not a tag
    expect(html).toContain(
      "with its verdict: &lt; 3% excellent, 3–5% acceptable, 5–10% noisy, &gt; 10% unreliable.</p>\n<p>Latency:",
    );
    expect(html).toContain(
      '<section><h2>api</h2><p class="desc">GET /api/test — a small JSON object built per request</p><table class="results"><thead><tr><th>rank</th><th>app</th>',
    );
    expect(html).toContain(
      '<div class="charts"><div class="chart"><canvas id="rps-echo"></canvas></div><div class="chart"><canvas id="latency-echo"></canvas></div></div></section>',
    );
    expect(html).toContain(
      '<section><h2>Memory</h2><div class="chart wide"><canvas id="memory"></canvas></div></section>',
    );
    expect(html).not.toContain('class="warn"');
    // nothing of the other measurements in a plain run
    for (const h of [
      "Production tax",
      "Throughput curve",
      "Latency at offered load",
      "Start-up",
      "Workers",
      "Runtime versions",
      "Profiles",
    ]) {
      expect(html).not.toContain(`<h2>${h}</h2>`);
    }
    // the chart data sits in a script of its own, after Chart.js
    expect(html).toContain('</script>\n<script>const CHARTS = [{"id":"rps-api",');
    expect(html).toEndWith("</script>\n</body></html>\n");
  });

  test("an interrupted run says so; notes, matrix and tax only where there is something", () => {
    const interrupted = htmlReport(analyze({ ...SYNTHETIC, status: "interrupted" }));
    expect(interrupted).toContain(
      '</tbody></table><p class="warn">Interrupted: only the trials that finished are included.</p>\n<p>Only valid samples count.',
    );
    // a flag without the trials' notes: no nested list
    expect(html).toContain(
      "<li>node-bare: FAILED: port 3005 is already in use by pid 42 (python3 -m http.server)</li></ul>",
    );
    expect(html).toContain(
      '<ul class="notes"><li>bun-bare: LOAD-GENERATOR BOUND 2/3: a lower bound (the load generator was saturated, the server was not)<ul><li>wrk used 99% of its core, the server 81%</li></ul></li>',
    );
    expect(html).toContain(
      "</ul><p>Relative throughput (the row's req/s as % of the column's; ≈: not significant):</p><table><thead><tr><th></th><th>bun-bare</th>",
    );
    expect(html).toContain(
      '<p class="tax">Framework tax (≈ tie: not significantly different from bare; the same tests as the ranks): bun-hono 98% of bare (cost 2%)</p>',
    );
    const custom = htmlReport(
      analyze(
        syntheticRun(
          ["bun-bare"],
          ["custom"],
          [1, 2, 3].map((r) => syntheticTrial("bun-bare", "custom", r, 64, 1000 + r, 5)),
        ),
      ),
    );
    expect(custom).toContain('<section><h2>custom</h2><p class="desc"></p><table class="results">');
    expect(custom).toContain('</tbody></table>\n<div class="charts">');
    expect(custom).not.toContain("Relative throughput");
    expect(custom).not.toContain('class="notes"');
    expect(custom).not.toContain('class="tax"');
  });

  test("text from results.json is escaped: tags, ampersands and quotes", () => {
    const top = [{ function: '<b>&"x"', location: "", samples: 3, percent: 1 }];
    const profiled: Results = {
      ...SYNTHETIC,
      startedAt: "2026-11-21T10:00:00.000Z<i>",
      profiles: [
        {
          app: "bun-hono",
          scenario: "api",
          startedAt: "2026-11-22T12:00:00.000Z",
          file: 'p"<x>.cpuprofile',
          summary: { totalMs: 1000, samples: 10, idleSamples: 0, coverage: 0.7, top },
        },
      ],
    };
    const page = htmlReport(analyze(profiled));
    expect(page).toContain("<title>Benchmark results 2026-11-21T10:00:00.000Z&lt;i&gt;</title>");
    expect(page).toContain("<td>&lt;b&gt;&amp;&quot;x&quot;</td>");
    expect(page).toContain(
      '<h3>bun-hono · api</h3><p><a href="p&quot;&lt;x&gt;.cpuprofile">p&quot;&lt;x&gt;.cpuprofile</a>. 10 samples over 1.0 s',
    );
    expect(page).toContain("<section><h2>Profiles</h2><p>One extra trial per app");
    // the chart data cannot close its script early: "<" is written as \u003c
    const scenario = syntheticRun(
      ["bun-bare"],
      ["a</script>"],
      [1, 2].map((r) => syntheticTrial("bun-bare", "a</script>", r, 64, 1000, 5)),
    );
    const script = htmlReport(analyze(scenario)).split("<script>const CHARTS = ")[1] ?? "";
    expect(script).toContain('"id":"rps-a\\u003c/script>"');
    expect(script.indexOf("</script>")).toBe(script.lastIndexOf("</script>"));
  });

  test("the sections of the other measurements, each with its tables and canvases", () => {
    const curve = htmlReport(analyze(CURVE));
    expect(curve).toContain(
      "<section><h2>Throughput curve</h2><p>One closed-loop trial per connection count",
    );
    expect(curve).toContain(
      "<h3>api</h3><table><thead><tr><th>app</th><th>c=1</th><th>c=100</th><th>c=400</th><th>peak</th><th>past the peak</th></tr></thead><tbody><tr><td>bun-bare</td><td>5,000 (0.5)</td>",
    );
    expect(curve).toContain(
      '<div class="charts"><div class="chart"><canvas id="curve-rps-api"></canvas></div><div class="chart"><canvas id="curve-p99Ms-api"></canvas></div></div></section>',
    );
    const rated = htmlReport(analyze(RATED));
    expect(rated).toContain(
      "<section><h2>Latency at offered load</h2><p>Open-loop trials (--rates)",
    );
    expect(rated).toContain(
      "<h3>api</h3><table><thead><tr><th>app</th><th>rate</th><th>offered req/s</th>",
    );
    expect(rated).toContain(
      "</tbody></table><table><thead><tr><th>app</th><th>capacity at the p99 budget</th><th>how it was found</th></tr></thead><tbody><tr><td>bun-bare</td><td>20,000 req/s (below 36,000)</td>",
    );
    expect(rated).toContain(
      '<div class="chart wide"><canvas id="rates-api"></canvas></div></section>',
    );
    const started = htmlReport(analyze(STARTED));
    expect(started).toContain("<section><h2>Start-up</h2><p>Every start of an app is measured");
    expect(started).toContain(
      "<tbody><tr><td>bun-bare</td><td>3 (2)</td><td>40 (30–90)</td><td>36.0</td><td>31.0 (30.0–32.0)</td></tr>",
    );
    expect(started).toContain(
      '<div class="charts"><div class="chart"><canvas id="startup"></canvas></div><div class="chart"><canvas id="startup-memory"></canvas></div></div></section>',
    );
    const workers = htmlReport(analyze(WORKERS));
    expect(workers).toContain(
      "<section><h2>Workers</h2><p>Each app served its port from several processes",
    );
    expect(workers).toContain(
      "<tr><td>a-bare</td><td>api</td><td>2 of 2</td><td>62 / 30</td><td>40 / 24</td><td>20.0</td><td>50.0</td></tr>",
    );
    expect(workers).toContain(
      "</tbody></table><h3>Scaling with workers</h3><p>Each app at every worker count of the run (--workers)",
    );
    expect(workers).toContain(
      "<h3>api</h3><table><thead><tr><th>app</th><th>1 worker(s)</th><th>2 worker(s)</th></tr></thead><tbody><tr><td>a-bare</td><td>1,002</td><td>1,902 (×1.90)</td></tr>",
    );
    // workers at one count only: the table, no scaling part
    const oneCount = htmlReport(
      analyze({
        ...WORKERS,
        manifest: {
          ...WORKERS.manifest,
          settings: { ...WORKERS.manifest.settings, workerCounts: undefined },
        },
      }),
    );
    expect(oneCount).toContain("<section><h2>Workers</h2>");
    expect(oneCount).not.toContain("Scaling with workers");
    expect(oneCount).toContain("<td>50.0</td></tr></tbody></table></section>");
    const versions = htmlReport(analyze(syntheticVersionsRun()));
    expect(versions).toContain(
      "<section><h2>Runtime versions</h2><p>Each app on every version of its runtime",
    );
    expect(versions).toContain(
      "<h3>api · node</h3><table><thead><tr><th>app</th><th>node 22.23.3</th><th>node 24.21.0</th></tr></thead><tbody><tr><td>node-bare</td><td>10,000</td><td>11,000 (110%)</td></tr>",
    );
    expect(versions).toContain(
      '<div class="chart wide"><canvas id="versions-api-node"></canvas></div></section>',
    );
  });

  test("the production tax: one table, or a heading per api when there are several", () => {
    const trials = (scenario: string, mean: number, workers: number) =>
      [0.99, 1.01, 1].map((k, i) => ({
        ...syntheticTrial("bun-bare", scenario, i + 1, 64, mean * k, 2),
        ...(workers > 1 ? { workers } : {}),
      }));
    const stages = (counts: number[]) =>
      syntheticRun(
        ["bun-bare"],
        ["api", "auth"],
        counts.flatMap((w) => [...trials("api", 100_000, w), ...trials("auth", 60_000, w)]),
        counts.length > 1 ? { workers: 2, workerCounts: counts } : {},
      );
    const one = htmlReport(analyze(stages([1])));
    expect(one).toContain("<section><h2>Production tax</h2><p>Each middleware stage");
    // 60,000 of 100,000: 60%
    expect(one).toContain(
      "</p><table><thead><tr><th>app</th><th>api req/s</th><th>framework tax (of bare)</th><th>auth</th></tr></thead><tbody><tr><td>bun-bare</td><td>100,000</td><td>—</td><td>60%</td></tr></tbody></table></section>",
    );
    const two = htmlReport(analyze(stages([1, 2])));
    expect(two).toContain("<h3>api (w=1)</h3><table>");
    expect(two).toContain("</table><h3>api (w=2)</h3><table>");
  });
});

/** An app's colour in the palette (the palette itself is static, in html-assets.ts). */
const colour = (app: string) => CHART_COLORS[app] as string;

describe("HTML: what the charts are given", () => {
  const charts = (results: Results) => chartData(analyze(results));
  const chart = (results: Results, id: string) => charts(results).find((c) => c.id === id);

  test("req/s and latency per scenario: labels with their qualifiers, null for no number", () => {
    const api = chart(SYNTHETIC, "rps-api");
    expect(api?.title).toBe("api: requests per second (mean over processes, bars: 95% CI)");
    expect(api?.type).toBe("bar");
    expect(api?.yTitle).toBe("req/s");
    expect(api?.labels).toEqual([
      "bun-bare (lower bound)",
      "bun-hono (unsaturated)",
      "node-hono",
      "node-bare (failed)",
    ]);
    // 41,000/41,200/41,400 → 41,200, sd 200; t(0.975, 2 df) = 4.3027: ± 4.3027 × 200/√3 = ± 496.83
    expect(api?.datasets[0]?.data).toEqual([41_200, 40_500, 30_000, null]);
    expect(api?.datasets[0]?.ranges?.[0]).toEqual([40_703.17, 41_696.83]);
    expect(api?.datasets[0]?.ranges?.[3]).toBeNull();
    expect(api?.datasets[0]?.colors).toEqual(
      ["bun-bare", "bun-hono", "node-hono", "node-bare"].map(colour),
    );
    const latency = chart(SYNTHETIC, "latency-echo");
    expect(latency?.title).toBe(
      "echo: latency percentiles (ms, log scale; median of samples, bars: lowest–highest)",
    );
    expect(latency?.logarithmic).toBe(true);
    expect(latency?.yTitle).toBe("ms");
    expect(latency?.datasets.map((d) => d.label)).toEqual(["p50", "p90", "p99", "p99.9"]);
    // echo's p99s: bun-bare 5, 6, 7; bun-hono 6, 7, 8; node-hono one valid trial (50): no range
    const p99 = latency?.datasets[2];
    expect(p99?.data).toEqual([6, 7, 50, null]);
    expect(p99?.ranges).toEqual([[5, 7], [6, 8], null, null]);
    expect(latency?.datasets[0]?.data).toEqual([1.1, 1.2, 2, null]);
    expect(latency?.datasets[3]?.data).toEqual([12, 14, 100, null]);
  });

  test("every qualifier on a label, in order; an unknown app is grey", () => {
    const run = syntheticRun(
      ["x-bare"],
      ["api"],
      [1, 2, 3, 4].map((r) => ({
        ...syntheticTrial("x-bare", "api", r, 64, 1000, 5),
        checks: cleanChecks(
          60,
          64,
          [
            { loadGeneratorBound: true },
            { unsaturated: true },
            { contended: true },
            { machineFull: true },
          ][r - 1],
        ),
      })),
    );
    const rps = chart(run, "rps-api");
    expect(rps?.labels).toEqual(["x-bare (lower bound, unsaturated, contended, machine full)"]);
    expect(rps?.datasets[0]?.colors).toEqual(["#888"]);
    for (const only of ["contended", "machineFull", "generatorCeiling"] as const) {
      const one = syntheticRun(
        ["x-bare"],
        ["api"],
        [
          {
            ...syntheticTrial("x-bare", "api", 1, 64, 1000, 5),
            checks: cleanChecks(60, 64, { [only]: true }),
          },
        ],
      );
      const label = {
        contended: "contended",
        machineFull: "machine full",
        generatorCeiling: "lower bound",
      };
      expect(chart(one, "rps-api")?.labels).toEqual([`x-bare (${label[only]})`]);
    }
  });

  test("memory: one bar per app in the run's order, one dataset per scenario", () => {
    const memory = chart(SYNTHETIC, "memory");
    expect(memory?.title).toBe("Peak server memory (RSS, MiB) per scenario");
    expect(memory?.labels).toEqual(["bun-hono", "bun-bare", "node-hono", "node-bare"]);
    // the highest valid trial's RSS; node-hono's invalid 999 MiB is not among them
    expect(memory?.datasets).toEqual([
      { label: "api", data: [62, 52.5, 82, null] },
      { label: "echo", data: [67, 57, 90, null] },
    ]);
    expect(memory?.yTitle).toBe("MiB");
    expect(charts(SYNTHETIC).map((c) => c.id)).toEqual([
      "rps-api",
      "latency-api",
      "rps-echo",
      "latency-echo",
      "memory",
    ]);
  });

  test("the throughput curve: req/s and p99 (log) against the connection counts measured", () => {
    const rps = chart(CURVE, "curve-rps-api");
    const p99 = chart(CURVE, "curve-p99Ms-api");
    expect(rps?.title).toBe("api: req/s against connections (mean of valid trials)");
    expect(p99?.title).toBe("api: p99 against connections (ms, log scale; median of valid trials)");
    for (const c of [rps, p99]) {
      expect(c?.type).toBe("line");
      expect(c?.labels).toEqual([]);
      expect(c?.xTitle).toBe("connections (log scale)");
      expect(c?.xLogarithmic).toBe(true);
      expect(c?.xTicks).toEqual([1, 100, 400]);
    }
    expect(rps?.logarithmic).toBe(false);
    expect(p99?.logarithmic).toBe(true);
    expect(rps?.yTitle).toBe("req/s");
    expect(p99?.yTitle).toBe("ms");
    expect(rps?.datasets).toEqual([
      {
        label: "bun-bare",
        data: [
          { x: 1, y: 5_000 },
          { x: 100, y: 40_000 },
          { x: 400, y: 41_000 },
        ],
        color: colour("bun-bare"),
      },
      {
        label: "node-bare",
        data: [
          { x: 1, y: 4_000 },
          { x: 100, y: 12_000 },
          { x: 400, y: 12_500 },
        ],
        color: colour("node-bare"),
      },
    ]);
    expect(p99?.datasets[1]?.data).toEqual([
      { x: 1, y: 0.6 },
      { x: 100, y: 12 },
      { x: 400, y: 50 },
    ]);
    // a count where an app has no valid trial has no point (not a point at 0)
    const gap = {
      ...CURVE,
      trials: CURVE.trials.map((t) =>
        t.app === "node-bare" && t.connections === 100
          ? { ...t, checks: { ...t.checks, valid: false, invalidReasons: ["x"] } }
          : t,
      ),
    };
    expect(chart(gap, "curve-rps-api")?.datasets[1]?.data).toEqual([
      { x: 1, y: 4_000 },
      { x: 400, y: 12_500 },
    ]);
    // the counts, sorted as numbers (100 after 9, not before it)
    const unsorted = syntheticRun(
      ["bun-bare"],
      ["api"],
      [100, 9, 1].map((c) => syntheticTrial("bun-bare", "api", 1, c, 1000 * c, 5)),
      { connections: 100, connectionCounts: [100, 9, 1] },
    );
    expect(chart(unsorted, "curve-rps-api")?.xTicks).toEqual([1, 9, 100]);
  });

  test("latency at offered load: p50 dashed and p99 per app, the budget across, a search's interval", () => {
    const rates = chart(RATED, "rates-api");
    expect(rates?.title).toBe(
      "api: latency at offered load (ms, log scale; dashed: p50, solid: p99; searched levels included)",
    );
    expect(rates?.type).toBe("line");
    expect(rates?.xTitle).toBe("offered req/s");
    expect(rates?.logarithmic).toBe(true);
    expect(rates?.yTitle).toBe("ms");
    expect(rates?.labels).toEqual([]);
    const byLabel = (label: string) => rates?.datasets.find((d) => d.label === label);
    expect(byLabel("bun-bare p50")).toEqual({
      label: "bun-bare p50",
      data: [
        { x: 20_000, y: 0.5 },
        { x: 36_000, y: 2 },
      ],
      color: colour("bun-bare"),
      dashed: true,
    });
    expect(byLabel("node-hono p99")?.data).toEqual([
      { x: 15_000, y: 6 },
      { x: 27_000, y: 300 },
    ]);
    expect(byLabel("node-hono p99")?.dashed).toBe(false);
    // the budget from the lowest offered rate of any app (15,000) to the highest (36,000)
    expect(byLabel("p99 budget 10.0 ms")).toEqual({
      label: "p99 budget 10.0 ms",
      data: [
        { x: 15_000, y: 10 },
        { x: 36_000, y: 10 },
      ],
      color: "#000",
      dashed: true,
    });
    expect(rates?.datasets).toHaveLength(5);
    // searched: within at the lower rate, over at the higher: the interval between them
    const searched = {
      ...RATED,
      rateTrials: RATED.rateTrials?.map((t) => ({ ...t, requested: "search" })),
    };
    const found = chart(searched, "rates-api")?.datasets.slice(5);
    expect(found).toEqual([
      {
        label: "bun-bare capacity interval",
        data: [
          { x: 20_000, y: 10 },
          { x: 36_000, y: 10 },
        ],
        color: colour("bun-bare"),
        width: 6,
      },
      {
        label: "node-hono capacity interval",
        data: [
          { x: 15_000, y: 10 },
          { x: 27_000, y: 10 },
        ],
        color: colour("node-hono"),
        width: 6,
      },
    ]);
  });

  test("start-up: fastest first, median ready time and memory with their ranges", () => {
    const ready = chart(STARTED, "startup");
    expect(ready?.title).toBe(
      "Start-up: runtime start to first correct answer (ms; median of starts, bars: lowest–highest)",
    );
    expect(ready?.yTitle).toBe("ms");
    expect(ready?.labels).toEqual(["bun-bare", "node-hono"]);
    // bun-bare 30, 40, 90 → 40; node-hono 400, 450 → 425
    expect(ready?.datasets).toEqual([
      {
        label: "ready ms",
        data: [40, 425],
        ranges: [
          [30, 90],
          [400, 450],
        ],
        colors: [colour("bun-bare"), colour("node-hono")],
      },
    ]);
    const memory = chart(STARTED, "startup-memory");
    expect(memory?.title).toBe(
      "Memory at start (RSS, MiB; median of starts, bars: lowest–highest at idle)",
    );
    expect(memory?.yTitle).toBe("MiB");
    // ready RSS = idle + 5: 35, 36, 37 → 36; 85, 95 → 90
    expect(memory?.datasets).toEqual([
      { label: "when ready", data: [36, 90] },
      {
        label: "after 1 s idle",
        data: [31, 85],
        ranges: [
          [30, 32],
          [80, 90],
        ],
      },
    ]);
    expect(chart(SYNTHETIC, "startup")).toBeUndefined();
  });

  test("runtime versions: a dataset per version, a bar per app with its 95% CI", () => {
    const run = syntheticVersionsRun();
    const versions = chart(run, "versions-api-node");
    expect(versions?.title).toBe(
      "api: req/s on each node version (mean over processes, bars: 95% CI)",
    );
    expect(versions?.yTitle).toBe("req/s");
    expect(versions?.labels).toEqual(["node-bare", "node-hono"]);
    expect(versions?.datasets.map((d) => [d.label, d.data])).toEqual([
      ["node 22.23.3", [10_000, 8_000]],
      ["node 24.21.0", [11_000, 8_000]],
    ]);
    // node-bare on 22: 9,900/10,000/10,100, sd 100: ± 4.3027 × 100/√3 = ± 248.41
    expect(versions?.datasets[0]?.ranges?.[0]).toEqual([9_751.59, 10_248.41]);
    // a version's app colour is its registry name's ("node-bare@22.23.3" is node-bare)
    expect(chart(run, "rps-api")?.datasets[0]?.colors?.[0]).toBe(colour("node-bare"));
    // an app measured on one version only: no bar (null) on the other
    const missing = {
      ...run,
      trials: run.trials.filter((t) => t.app !== "node-hono@24.21.0"),
    };
    const partial = chart(missing, "versions-api-node");
    expect(partial?.datasets[1]?.data).toEqual([11_000, null]);
    expect(partial?.datasets[1]?.ranges?.[1]).toBeNull();
  });
});

describe("Markdown: blocks stand apart", () => {
  // Markdown needs a blank line before and after a heading, a table and a paragraph, or it runs
  // them together: each block below is checked with what comes right before and after it.
  test("the scenario sections: notes, the matrix, the framework tax, then the next section", () => {
    const md = markdownReport(analyze(SYNTHETIC));
    expect(md).toContain("| 3/3 |\n| — | node-bare | — ❌ failed |");
    expect(md).toContain("| 0 | 0/0 |\n\nNotes:\n\n- bun-bare: LOAD-GENERATOR BOUND");
    expect(md).toContain(
      "(python3 -m http.server)\n\nRelative throughput (the row's req/s as % of the column's; ≈: not significant):\n\n|  | bun-bare |",
    );
    expect(md).toContain(
      "| node-hono | 73% | 74% | 100% |\n\nFramework tax (the framework app's req/s as % of its runtime's bare baseline; " +
        "≈ tie: not significant, with the smallest difference the run could have detected):\n\n| app | % of bare |",
    );
    expect(md).toContain("| bun-hono | 98% | 2% | 0.013 |\n\n## echo — POST /api/echo");
    expect(md).toContain(
      "| 0.140 |\n\n## Charts\n\nCharts (an app marked * had load-generator-bound or generator-ceiling samples, so its bar is a lower bound, " +
        "or unsaturated, contended or machine-full samples, where neither the server nor the load generator was saturated, " +
        "something else had the CPU, or both shared full cores: not the server's best; ties and confidence intervals are in " +
        "the tables):\n\n```mermaid\nxychart-beta\n",
    );
    // one chart after another
    expect(md).toContain(
      '    bar [41200, 40500, 30000]\n```\n\n```mermaid\nxychart-beta\n    title "api: p99',
    );
    // the reading guide: what a sample, a bound and a contended run are
    expect(md).toContain(
      "each process (a fresh start of the app) takes several after its warm-up, and the processes of different apps are interleaved round by round.",
    );
    expect(md).toContain(
      "\n\nLoad-generator bound: the load generator was saturated and the server was not, so the req/s is a lower bound. ",
    );
    expect(md).toContain(
      " Contended: the server's core was busy with something other than the server, or CPU steal was high (not the server's best).",
    );
  });

  test("nothing measured: no charts", () => {
    const failed: Results = {
      ...SYNTHETIC,
      trials: [],
      apps: SYNTHETIC.apps.map((a) => ({ ...a, status: "failed" as const, failure: "no" })),
    };
    const md = markdownReport(analyze(failed));
    expect(md).not.toContain("Charts");
    expect(md).toEndWith("- node-bare: FAILED: no\n");
  });

  test("the sections of the other measurements: a blank line around each heading and table", () => {
    const rated = markdownReport(analyze(RATED));
    expect(rated).toContain("\n\n## Latency at offered load\n\nOpen-loop trials (--rates)");
    expect(rated).toContain(
      " p99.9 ≤ budget and unsent + 0.1% of the answered ≤ 1% of the scheduled.\n\n### api\n\n| app | rate |",
    );
    const curve = markdownReport(analyze(CURVE));
    expect(curve).toContain(
      "```\n\n## Throughput curve\n\nOne closed-loop trial per connection count",
    );
    expect(curve).toContain(
      " gives its confidence interval and p99 range.\n\n### api\n\n| app | c=1 |",
    );
    const started = markdownReport(analyze(STARTED));
    expect(started).toContain("```\n\n## Start-up\n\nEvery start of an app is measured");
    expect(started).toContain(
      " the others are the starts of the measured rounds.\n\n| app | starts (fresh) |",
    );
    expect(started).toEndWith("| 85.0 (80.0–90.0) |\n");
    const workers = markdownReport(analyze(WORKERS));
    expect(workers).toContain(
      "```\n\n## Workers\n\nEach app served its port from several processes",
    );
    expect(workers).toContain(
      " so an uneven spread is a finding, not noise.\n\n| app | scenario |",
    );
    expect(workers).toContain(
      "| 50.0 |\n\n## Scaling with workers\n\nEach app at every worker count",
    );
    expect(workers).toContain(
      " (the Pinning line says whether it had).\n\n### api\n\n| app | 1 worker(s) |",
    );
    const versions = markdownReport(analyze(syntheticVersionsRun()));
    expect(versions).toContain(
      "```\n\n## Runtime versions\n\nEach app on every version of its runtime",
    );
    expect(versions).toContain(
      " only the runtime differs.\n\n### api · node\n\n| app | node 22.23.3 |",
    );
    expect(versions).toContain("could detect ≥ 23.9%) |\n\n```mermaid\n");
    const calibrated = markdownReport(analyze(CALIBRATED));
    expect(calibrated).toContain("```\n\n## Calibration\n\nbun-bare against itself");
    expect(calibrated).toContain(" for the others the detection rate.\n\napi: too few rounds");
  });
});

describe("HTML: lists, joins and the chart specs' kinds", () => {
  test("two notes under a flag, flags one after another, two apps in the framework tax", () => {
    const notes: Results = {
      ...SYNTHETIC,
      trials: SYNTHETIC.trials.map((t, i) =>
        i === 2 ? { ...t, checks: { ...t.checks, notes: ["another note"] } } : t,
      ),
    };
    const html = htmlReport(analyze(notes));
    expect(html).toContain(
      "<ul><li>wrk used 99% of its core, the server 81%</li><li>another note</li></ul></li><li>bun-hono: UNSATURATED 1/3",
    );
    // bun-hono 30,000 of bun-bare's 40,000: 75%, cost 25%; node-hono equal to node-bare: a tie
    const apps = ["bun-bare", "bun-hono", "node-bare", "node-hono"];
    const means = [40_000, 30_000, 20_000, 20_000];
    const taxed = syntheticRun(
      apps,
      ["api"],
      apps.flatMap((a, j) =>
        [0.99, 1.01, 1].map((k, i) =>
          syntheticTrial(a, "api", i + 1, 64, (means[j] as number) * k, 5),
        ),
      ),
    );
    expect(htmlReport(analyze(taxed))).toMatch(
      /\): bun-hono 75% of bare \(cost 25%\) · node-hono ≈ tie \(100% of bare, could detect ≥ \d+\.\d%\)<\/p>/,
    );
    expect(markdownReport(analyze(taxed))).toMatch(
      /\| bun-hono \| 75% \| 25% \| < 0\.001 \|\n\| node-hono \| ≈100% \| ≈ tie \(could detect ≥ \d+\.\d%\) \| 1\.000 \|\n/,
    );
  });

  test("sections one per line; a section that has nothing to show is not there at all", () => {
    const html = htmlReport(analyze(SYNTHETIC));
    expect(html).toContain("</canvas></div></div></section>\n<section><h2>echo</h2>");
    expect(html).toContain("</div></div></section>\n\n<section><h2>Memory</h2>");
    expect(html).toContain(
      '<canvas id="memory"></canvas></div></section>\n\n\n\n\n\n\n<pre id="render-check" hidden></pre>',
    );
    expect(html).toContain(
      "<td>./benchmark.sh -n 3</td></tr></tbody></table>\n<p>Only valid samples count.",
    );
  });

  test("every chart's kind, title and labels", () => {
    const charts = chartData(analyze(SYNTHETIC));
    expect(charts.map((c) => [c.id, c.type])).toStrictEqual([
      ["rps-api", "bar"],
      ["latency-api", "bar"],
      ["rps-echo", "bar"],
      ["latency-echo", "bar"],
      ["memory", "bar"],
    ]);
    const [rps, latency] = charts;
    expect(rps?.datasets.map((d) => d.label)).toEqual(["req/s"]);
    // the latency chart's bars carry the same qualifiers as the req/s chart's
    expect(latency?.labels).toEqual([
      "bun-bare (lower bound)",
      "bun-hono (unsaturated)",
      "node-hono",
      "node-bare (failed)",
    ]);
    const started = chartData(analyze(STARTED));
    expect(started.map((c) => [c.id, c.type]).slice(-2)).toStrictEqual([
      ["startup", "bar"],
      ["startup-memory", "bar"],
    ]);
    const versions = chartData(analyze(syntheticVersionsRun()));
    expect(versions.at(-1)?.type).toBe("bar");
  });
});
