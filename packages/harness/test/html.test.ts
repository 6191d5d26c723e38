// report.html's page (report/html.ts) on synthetic results, fast and hermetic (the mutation
// groups "reports" and "report-text" run it): the header table and reading guide, a section and
// table per scenario with ranks, intervals, ties, flags and notes, the framework and production
// tax, escaping of what comes from results.json, the profiles linked, the sections of the other
// measurements with their canvases, the CPU time per request, --side-by-side, --against and
// --calibrate. What the charts are given to draw is html-charts.test.ts's.
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { htmlReport } from "../src/report/html.ts";
import { markdownReport } from "../src/report/markdown.ts";
import type { Results } from "../src/results/schema.ts";
import {
  against,
  CALIBRATED_SIDE,
  COSTED,
  onTwoScenarios,
  SIDE,
  SIDE_TABLE,
} from "./support/report-side.ts";
import {
  CALIBRATED,
  CURVE,
  HISTORY_ROW,
  PROFILED,
  RATED,
  STARTED,
  SYNTHETIC,
  WITH_HISTORY,
  WORKERS,
} from "./support/report-synthetic.ts";
import { syntheticRun, syntheticTrial, syntheticVersionsRun } from "./support/synthetic.ts";

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
      "<li>bun-hono: UNSATURATED 1/3: neither the server nor the load generator was saturated (not the server&#39;s best)<ul><li>CPU steal 14% during the trial</li></ul></li>",
    );
  });
});

describe("profiles in the reports (--profile)", () => {
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
      "with its quality: &lt; 3% excellent, 3–5% acceptable, 5–10% noisy, &gt; 10% unreliable.</p>\n<p>Latency:",
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

  test("a database scenario's engine is in the header, as in the Markdown", () => {
    const database = {
      engine: "postgresql" as const,
      version: "16.4",
      clients: { bun: "Bun.sql", node: "postgres.js" },
      settings: {},
    };
    const page = htmlReport(
      analyze({ ...SYNTHETIC, manifest: { ...SYNTHETIC.manifest, database } }),
    );
    expect(page).toContain(
      "<tr><th>Database</th><td>PostgreSQL 16.4, a database per app process (Bun.sql, postgres.js)</td></tr>",
    );
    expect(html).not.toContain("<th>Database</th>");
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
      "</tbody></table></section>\n<section><h2>Scaling with workers</h2><p>Each app at every worker count of the run (--workers)",
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

  test("--calibrate one app at a time: its known answer in a section, as in the Markdown", () => {
    const page = htmlReport(analyze(CALIBRATED));
    expect(page).toContain("<section><h2>Calibration</h2><p>");
    expect(page).toContain(
      "<p>api: too few rounds for subsampled rates (the run needs more rounds than a default run):</p>" +
        "<table><thead><tr><th>row</th><th>extra iterations</th><th>extra</th>",
    );
    expect(page).toContain("<tr><td>bun-bare-x5</td><td>485</td><td>5.0%</td>");
    expect(htmlReport(analyze(SYNTHETIC))).not.toContain("Calibration");
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
    expect(two).toContain("</table>\n<h3>api (w=2)</h3><table>");
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
    expect(html).toContain("</div></div></section>\n<section><h2>Memory</h2>");
    expect(html).toContain(
      '<canvas id="memory"></canvas></div></section>\n<pre id="render-check" hidden></pre>',
    );
    expect(html).toContain(
      "<td>./benchmark.sh -n 3</td></tr><tr><th>CPU steal</th><td>CPU steal on the server&#39;s core: median 0.0%, worst 0.0% over 17 samples · none at ≥ 15% (--max-steal)</td></tr></tbody></table>\n<p>Only valid samples count.",
    );
  });
});

describe("HTML: CPU time per request, one app at a time", () => {
  test("a heading and a table per scenario, after the scenarios and memory", () => {
    const html = htmlReport(analyze(COSTED));
    const head =
      "<table><thead><tr><th>app</th><th>CPU µs per request (95% CI)</th><th>× cheapest (95% CI)</th></tr></thead>" +
      "<tbody><tr><td>bun-bare</td><td>11.00 (8.52–13.48)</td><td>×1.000 (the cheapest)</td></tr>";
    expect(html).toContain(
      "</section>\n<section><h2>CPU time per request</h2><p>The server&#39;s CPU time per request, each app measured alone:",
    );
    expect(html).toContain(
      `(fewer requests share each wake-up).</p><h3>api</h3>${head}` +
        "<tr><td>node-bare</td><td>24.00 (19.03–28.97)</td><td>×2.182 (1.804–2.560)</td></tr></tbody></table>" +
        `\n<h3>echo</h3>${head}</tbody></table></section>\n<pre id="render-check"`,
    );
    expect(htmlReport(analyze(SYNTHETIC))).not.toContain("CPU time per request");
  });
});

describe("HTML: side by side", () => {
  const html = htmlReport(analyze(SIDE));

  test("the intro, a table per scenario, its flags and its chart; no memory section", () => {
    const cells = SIDE_TABLE.split("\n")[2]?.split(" | ").slice(1, -1).join("</td><td>");
    expect(html).toContain(
      "\n<section><h2>Side by side</h2><p>Side by side: the two apps of each pair served at the same moment",
    );
    expect(html).toContain(
      "(80% power). Lower is cheaper.</p><h3>api — GET /api/test — a small JSON object built per request</h3><table><thead><tr><th>rank</th><th>app</th><th>CPU per request (× reference, 95% CI)</th>",
    );
    expect(html).toContain(`<tr><td>1</td><td>${cells}</td><td>10/10</td></tr>`);
    expect(html).toContain(
      '</tbody></table><ul class="notes"><li>node-bare: 1 pair of processes with valid samples: too few for a CI</li>' +
        '<li>deno-bare: FAILED: no deno</li></ul><div class="chart wide"><canvas id="side-api"></canvas></div></section>\n<pre',
    );
    expect(html).not.toContain("<h2>Memory</h2>");
    // no scenario tables and no memory: the reading guide's last paragraph, then this section
    expect(html).toContain("</p>\n<section><h2>Side by side</h2>");
    expect(html).not.toContain("Against");
    expect(html).not.toContain("Calibration");
  });

  test("one scenario after another; a row's notes nested under its flag", () => {
    const noted = onTwoScenarios();
    noted.pairTrials = noted.pairTrials?.map((t, i) =>
      i === 0 ? { ...t, checks: { ...t.checks, unsaturated: true, notes: ["steal <9%>"] } } : t,
    );
    const page = htmlReport(analyze(noted));
    expect(page).toContain(
      '<ul class="notes"><li>bun-bare: UNSATURATED 1/8: the servers did not fill their core (see the notes)<ul><li>steal &lt;9%&gt;</li></ul></li>',
    );
    expect(page).toContain(
      '<canvas id="side-api"></canvas></div>\n<h3>echo — POST /api/echo — parse and re-serialize a ~1 KB JSON body</h3><table>',
    );
  });

  test("--against: its heading, the verdicts and the run's one line", () => {
    const page = htmlReport(analyze(against(1.2)));
    expect(page).toContain(
      '<canvas id="side-api"></canvas></div>\n<h3>Against HEAD~1</h3><p>Each app as this checkout has it,',
    );
    expect(page).toMatch(/ exit 1[^<]*<\/p><table><thead><tr><th>app<\/th><th>scenario<\/th>/);
    expect(page).toContain(
      "<td>SLOWER</td></tr></tbody></table><p>SLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: bun-bare (api)</p></section>",
    );
  });

  test("--calibrate: each scenario's known answer, in a section after the side-by-side one", () => {
    const page = htmlReport(analyze(CALIBRATED_SIDE));
    const caption = (s: string) =>
      `<p>${s}: too few rounds for subsampled rates (the run needs more rounds than a default run):</p><table><thead><tr><th>row</th><th>extra iterations</th>`;
    expect(page).toContain(
      '<canvas id="side-echo"></canvas></div></section>\n<section><h2>Calibration</h2><p>Side by side (--side-by-side): bun-bare against itself',
    );
    expect(page).toContain(`the detection rate.</p>${caption("api")}`);
    // 500 iterations of 1 ns on bun-bare's 10 µs: 5.0%
    expect(page).toContain("<tr><td>bun-hono</td><td>500</td><td>5.0%</td>");
    expect(page).toContain(`</tbody></table>\n${caption("echo")}`);
    expect(page).toContain("</td></tr></tbody></table></section>\n");
  });
});

describe("HTML: the run's history check in the header", () => {
  test("one row: the lines joined, each without its indent; none without a history", () => {
    expect(htmlReport(analyze(WITH_HISTORY))).toContain(`<tr><th>History</th><td>${HISTORY_ROW} `);
    expect(htmlReport(analyze(SYNTHETIC))).not.toContain("<th>History</th>");
  });
});
