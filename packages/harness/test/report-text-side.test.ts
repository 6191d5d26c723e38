// Report text of the CPU time per request, one app at a time and side by side (--side-by-side,
// --against, --calibrate), on synthetic runs: the sections report.md, report.html and the
// terminal summary give them, their headings, tables, notes and verdict lines, where they sit,
// and what the side-by-side chart is given. Part of the mutation group "report-text"; the
// figures themselves are tested in cpu-cost.test.ts and ratios.test.ts, and each one shown here
// was worked out by hand (or with scipy) as noted.

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { htmlReport } from "../src/report/html.ts";
import { CHART_COLORS } from "../src/report/html-assets.ts";
import { chartData } from "../src/report/html-charts.ts";
import { markdownReport } from "../src/report/markdown.ts";
import type { PairTrial, Results, Trial } from "../src/results/schema.ts";
import { SYNTHETIC } from "./support/report-synthetic.ts";
import {
  syntheticPairTrial,
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
} from "./support/synthetic.ts";

/** A closed-loop trial whose server spent `ns` of CPU time per request. */
const costed = (app: string, scenario: string, round: number, ns: number): Trial => {
  const t = syntheticTrial(app, scenario, round, 64, 1000, 5);
  return { ...t, server: { ...t.server, cpuNsPerRequest: ns } };
};

/**
 * Three rounds, one process each: bun-bare 10, 11, 12 µs per request on api and echo, node-bare
 * 22, 24, 26 µs on api only.
 */
const COSTED = syntheticRun(
  ["bun-bare", "node-bare"],
  ["api", "echo"],
  [1, 2, 3].flatMap((r) => [
    costed("bun-bare", "api", r, 9_000 + 1_000 * r),
    costed("node-bare", "api", r, 20_000 + 2_000 * r),
    costed("bun-bare", "echo", r, 9_000 + 1_000 * r),
  ]),
);
const API_ONLY: Results = {
  ...COSTED,
  manifest: { ...COSTED.manifest, settings: { ...COSTED.manifest.settings, scenarios: ["api"] } },
  trials: COSTED.trials.filter((t) => t.scenario === "api"),
};

// bun-bare: mean 11 µs, sd 1, t(0.975, 2) = 4.3027: ± 4.3027/√3 = ± 2.48 → 8.52–13.48.
// node-bare: mean 24 µs, sd 2: ± 4.97 → 19.03–28.97; 24/11 = ×2.182, and Welch's interval
// (scipy: df 2.94, t 3.19, ± 0.378) 1.804–2.560.
const COST_TABLE =
  "| app | CPU µs per request (95% CI) | × cheapest (95% CI) |\n| :-- | --: | --: |\n" +
  "| bun-bare | 11.00 (8.52–13.48) | ×1.000 (the cheapest) |\n";
const NODE_COST = "| node-bare | 24.00 (19.03–28.97) | ×2.182 (1.804–2.560) |\n";

/** Two samples a round, the row at `ratio` × its reference's 10 µs, × 0.99, 1, 1.01 by round. */
const rounds = (reference: string, app: string, ratio: number, n = 3): PairTrial[] =>
  [0.99, 1, 1.01]
    .slice(0, n)
    .flatMap((k, r) =>
      [1, 2].map((s) => syntheticPairTrial(reference, app, r + 1, s, 10_000, 10_000 * ratio * k)),
    );

/**
 * bun-hono at 1.2 × bun-bare over three rounds; node-bare one round only (a ratio, no test);
 * deno-bare failed, so neither deno row has a pair.
 */
const SIDE: Results = (() => {
  const run = syntheticSideRun(
    [
      ["bun-bare", "bun-hono"],
      ["bun-bare", "node-bare"],
      ["deno-bare", "deno-hono"],
    ],
    [...rounds("bun-bare", "bun-hono", 1.2), ...rounds("bun-bare", "node-bare", 2, 1)],
  );
  return {
    ...run,
    apps: run.apps.map((a) =>
      a.name === "deno-bare" ? { ...a, status: "failed" as const, failure: "no deno\nmore" } : a,
    ),
  };
})();

// ln(1.2 × 0.99), ln 1.2, ln(1.2 × 1.01): mean → ×1.200, sd 0.01000, t(0.975, 2) = 4.3027
// (scipy): exp(mean ± 0.02484) = 1.171–1.230, ±2.5% of the ratio.
const SIDE_TABLE =
  "| rank | app | CPU per request (× reference, 95% CI) | ± | CPU µs per request | req/s sharing the core | pairs | valid samples |\n" +
  "| :-- | :-- | --: | --: | --: | --: | --: | --: |\n" +
  "| 1 | bun-bare | ×1.000 (the reference) | — | 10.00 | 40,000 | 3 | 8/8 |\n" +
  "| 2 | bun-hono | ×1.200 (1.171–1.230) | ±2.5% | 12.00 | 40,000 | 3 | 6/6 |\n" +
  // 2 × 10 µs × 0.99 in its one round
  "| — | node-bare ⚠️ 1 pair | — | — | 19.80 | 40,000 | 1 | 2/2 |\n" +
  "| — | deno-bare ⚠️ failed | ×1.000 (the reference) | — | — | — | 0 | 0/0 |\n" +
  "| — | deno-hono | — | — | — | — | 0 | 0/0 |";

/** bun-bare against itself at commit 1a2b3c4, `ratio` × as costly now. */
const against = (ratio: number): Results =>
  syntheticSideRun(
    [["bun-bare@1a2b3c4", "bun-bare"]],
    rounds("bun-bare@1a2b3c4", "bun-bare", ratio),
    { against: { ref: "HEAD~1", commit: "1a2b3c4d5e6f7a8b" }, threshold: 0.02 },
  );

/** bun-hono at `ratio` × bun-bare on api and echo alike. */
const onTwoScenarios = (ratio = 1.2): Results => {
  const trials = rounds("bun-bare", "bun-hono", ratio);
  const run = syntheticSideRun(
    [["bun-bare", "bun-hono"]],
    [...trials, ...trials.map((t) => ({ ...t, scenario: "echo" }))],
  );
  run.manifest.settings.scenarios = ["api", "echo"];
  return run;
};

/** onTwoScenarios as a calibration: bun-hono stands for bun-bare with 5% extra work. */
const CALIBRATED_SIDE: Results = (() => {
  const run = onTwoScenarios(1.05);
  return {
    ...run,
    manifest: {
      ...run.manifest,
      // more rounds than the run has: no subsampled rates, so no subsampling at all
      calibration: {
        app: "bun-bare",
        costPerRequestNs: 10_000,
        nsPerIteration: 1,
        subsampleRounds: 100,
      },
    },
    apps: run.apps.map((a) => ({
      ...a,
      extraWork:
        a.name === "bun-hono" ? { share: 0.05, iterations: 500 } : { share: 0, iterations: 0 },
    })),
  };
})();

/** The Markdown from `heading` up to where `until` next occurs (or the end). */
function between(md: string, heading: string, until: string): string {
  const start = md.indexOf(heading);
  const end = md.indexOf(until, start + heading.length);
  return start === -1 ? "" : md.slice(start, end === -1 ? undefined : end);
}

describe("Markdown: CPU time per request, one app at a time", () => {
  test("a table per scenario under its own heading when there are several", () => {
    const md = markdownReport(analyze(COSTED));
    expect(between(md, "## CPU time per request", "## Charts")).toBe(
      "## CPU time per request\n\n" +
        "The server's CPU time per request, each app measured alone: every thread's schedstat time " +
        "over the load window divided by the requests answered in it, the mean over processes with " +
        "its 95% CI. × cheapest: the ratio to the cheapest app of the table, from the per-round log " +
        "ratios (paired t) where the two share 20 rounds or more, else the ratio of the means (Welch's " +
        "t), one Holm family per table; ≈ marks a ratio not significantly different " +
        "from 1, with the smallest difference the run could have detected. A server that is not " +
        "saturated spends more per request than a saturated one (fewer requests share each wake-up).\n\n" +
        `### api\n\n${COST_TABLE}${NODE_COST}\n### echo\n\n${COST_TABLE}\n`,
    );
    // after the scenarios' tables and notes (echo has no node-bare), a blank line apart
    expect(md).toContain("- node-bare: not measured\n\n## CPU time per request\n\n");
    expect(md.indexOf("\n## CPU time per request")).toBeGreaterThan(md.indexOf("\n## echo"));
  });

  test("one scenario: its table straight under the intro; a run without the figure has none", () => {
    const md = markdownReport(analyze(API_ONLY));
    expect(md).toContain(
      `(fewer requests share each wake-up).\n\n${COST_TABLE}${NODE_COST}\n## Charts`,
    );
    expect(md).not.toContain("### api");
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("CPU time per request");
  });

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

describe("HTML: CPU time per request, one app at a time", () => {
  test("a heading and a table per scenario, after the scenarios and before memory", () => {
    const html = htmlReport(analyze(COSTED));
    const head =
      "<table><thead><tr><th>app</th><th>CPU µs per request (95% CI)</th><th>× cheapest (95% CI)</th></tr></thead>" +
      "<tbody><tr><td>bun-bare</td><td>11.00 (8.52–13.48)</td><td>×1.000 (the cheapest)</td></tr>";
    expect(html).toContain(
      "</section>\n<section><h2>CPU time per request</h2><p>The server's CPU time per request, each app measured alone:",
    );
    expect(html).toContain(
      `(fewer requests share each wake-up).</p><h3>api</h3>${head}` +
        "<tr><td>node-bare</td><td>24.00 (19.03–28.97)</td><td>×2.182 (1.804–2.560)</td></tr></tbody></table>" +
        `<h3>echo</h3>${head}</tbody></table></section>\n<section><h2>Memory</h2>`,
    );
    expect(htmlReport(analyze(SYNTHETIC))).not.toContain("CPU time per request");
  });
});

describe("Markdown: side by side", () => {
  const md = markdownReport(analyze(SIDE));

  test("the intro, a table per scenario with its description, the flags explained below", () => {
    expect(md).toContain(
      "\n\n## Side by side\n\nSide by side: the two apps of each pair served at the same moment",
    );
    expect(md).toContain(
      "(80% power). Lower is cheaper.\n\n### api — GET /api/test — a small JSON object built per request\n\n" +
        `${SIDE_TABLE}\n\nNotes:\n\n` +
        "- node-bare: 1 pair of processes with valid samples: too few for a CI\n" +
        "- deno-bare: FAILED: no deno\n",
    );
    expect(md).not.toContain("Against");
    // a side-by-side run has no closed-loop tables, charts or memory
    expect(md).not.toContain("## Charts");
  });

  test("a flag's samples' notes under it; a scenario the contract does not know; no flag, no notes", () => {
    const noted = syntheticSideRun(
      [["bun-bare", "bun-hono"]],
      rounds("bun-bare", "bun-hono", 1.2).map((t, i) => ({
        ...t,
        scenario: "custom",
        checks: i === 0 ? { ...t.checks, unsaturated: true, notes: ["steal 9%"] } : t.checks,
      })),
    );
    noted.manifest.settings.scenarios = ["custom"];
    const md = markdownReport(analyze(noted));
    // the first sample is both rows': each has an unsaturated one of its 6
    expect(md).toContain("\n\n### custom\n\n| rank |");
    expect(md).toContain(
      " |\n\nNotes:\n\n" +
        "- bun-bare: UNSATURATED 1/6: the servers did not fill their core (see the notes)\n  - steal 9%\n" +
        "- bun-hono: UNSATURATED 1/6: the servers did not fill their core (see the notes)\n  - steal 9%\n",
    );
    const clean = markdownReport(analyze(onTwoScenarios()));
    expect(clean).not.toContain("Notes:");
    // one scenario after another, each with its heading
    expect(clean).toContain("| 6/6 |\n\n### echo — POST /api/echo");
  });

  test("--against: its section, each app's verdict and the run's one line", () => {
    const slower = markdownReport(analyze(against(1.2)));
    expect(slower).toContain(
      "| 6/6 |\n\n### Against HEAD~1\n\nEach app as this checkout has it, against the same app at the commit",
    );
    // the change is the ratio's, 1.200 (1.171–1.230), less 1
    expect(slower).toMatch(
      /A slower app makes the run exit 1\.\n\n\| app \| scenario \| CPU per request, this checkout vs the commit \(95% CI\) \| p \(1-sided\) \| detectable \| verdict \|\n\| :-- \| :-- \| --: \| --: \| --: \| :-- \|\n\| bun-bare \| api \| \+20\.0% \(\+17\.1% to \+23\.0%\) \| < 0\.001 \| ≥ \d\.\d% \| SLOWER \|\n\n/,
    );
    expect(slower).toEndWith(
      "\n\nSLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: bun-bare (api)\n",
    );
    expect(markdownReport(analyze(against(1)))).toEndWith(
      "| no change beyond the threshold |\n\nno app slower than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more\n",
    );
  });

  test("with --calibrate, the side-by-side calibration follows it", () => {
    const calibrated = markdownReport(analyze(CALIBRATED_SIDE));
    expect(calibrated).toContain(
      "| 6/6 |\n\n## Calibration\n\nSide by side (--side-by-side): bun-bare against itself",
    );
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
      "(80% power). Lower is cheaper.</p><h3>api</h3><table><thead><tr><th>rank</th><th>app</th><th>CPU per request (× reference, 95% CI)</th>",
    );
    expect(html).toContain(`<tr><td>1</td><td>${cells}</td><td>8/8</td></tr>`);
    expect(html).toContain(
      '</tbody></table><ul class="notes"><li>node-bare: 1 pair of processes with valid samples: too few for a CI</li>' +
        '<li>deno-bare: FAILED: no deno</li></ul><div class="chart"><canvas id="side-api"></canvas></div></section>\n\n',
    );
    expect(html).not.toContain("<h2>Memory</h2>");
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
      '<ul class="notes"><li>bun-bare: UNSATURATED 1/6: the servers did not fill their core (see the notes)<ul><li>steal &lt;9%&gt;</li></ul></li>',
    );
    expect(page).toContain('<canvas id="side-api"></canvas></div>\n<h3>echo</h3><table>');
  });

  test("--against: its heading, the verdicts and the run's one line", () => {
    const page = htmlReport(analyze(against(1.2)));
    expect(page).toContain(
      '<canvas id="side-api"></canvas></div><h3>Against HEAD~1</h3><p>Each app as this checkout has it,',
    );
    expect(page).toContain(
      " A slower app makes the run exit 1.</p><table><thead><tr><th>app</th><th>scenario</th>",
    );
    expect(page).toContain(
      "<td>SLOWER</td></tr></tbody></table><p>SLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: bun-bare (api)</p></section>",
    );
  });

  test("--calibrate: each scenario's known answer inside the section", () => {
    const page = htmlReport(analyze(CALIBRATED_SIDE));
    const caption = (s: string) =>
      `<p>${s}: too few rounds for subsampled rates (the run needs more rounds than a default run):</p><table><thead><tr><th>row</th><th>extra iterations</th>`;
    expect(page).toContain(
      '<canvas id="side-echo"></canvas></div><h3>Calibration</h3><p>Side by side (--side-by-side): bun-bare against itself',
    );
    expect(page).toContain(`the detection rate.</p>${caption("api")}`);
    // 500 iterations of 1 ns on bun-bare's 10 µs: 5.0%
    expect(page).toContain("<tr><td>bun-hono</td><td>500</td><td>5.0%</td>");
    expect(page).toContain(`</tbody></table>${caption("echo")}`);
    expect(page).toContain("</td></tr></tbody></table></section>\n");
  });
});

describe("HTML: the side-by-side chart", () => {
  test("a bar per row with a ratio and a pair, its CI as the error bar", () => {
    const charts = chartData(analyze(SIDE));
    expect(charts.map((c) => c.id)).toEqual(["side-api"]);
    expect(charts[0]).toEqual({
      id: "side-api",
      title: "api: CPU time per request × the reference, side by side (bars: 95% CI)",
      type: "bar",
      // node-bare has no ratio (one pair), deno-bare no pair (it failed)
      labels: ["bun-bare (reference)", "bun-hono (× bun-bare)"],
      datasets: [
        {
          label: "× reference",
          data: [1, 1.2],
          ranges: [null, [1.17, 1.23]],
          colors: ["bun-bare", "bun-hono"].map((app) => CHART_COLORS[app] as string),
        },
      ],
      yTitle: "× reference",
    });
  });
});
