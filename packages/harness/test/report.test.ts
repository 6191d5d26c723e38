// Reports: the numbers in report.md, the HTML charts (as drawn in headless Chromium) and the
// README section are checked against a synthetic results.json whose expected values are written
// out as literals, never recomputed with the report's own formatting or statistics. Only the
// last checks need real runs of this machine: that every run writes its reports, that --report
// regenerates them, and compare.

import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyze } from "../src/analysis.ts";
import { REPO_ROOT } from "../src/index.ts";
import { writeReports } from "../src/report/files.ts";
import { change, fmt, pct, pValue } from "../src/report/format.ts";
import { chartData, htmlReport } from "../src/report/html.ts";
import { headerLines, markdownReport } from "../src/report/markdown.ts";
import { END, START, updateReadme } from "../src/report/readme.ts";
import { type Results, schemaErrors, type Trial } from "../src/schema.ts";
import { formatSummary } from "../src/summary.ts";
import { runBenchmark } from "./support/run-benchmark.ts";
import {
  cleanChecks,
  syntheticRateTrial,
  syntheticResult,
  syntheticRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

const ARTIFACTS = join(REPO_ROOT, "test-artifacts");

/** One trial's numbers; the rest is a clean wrk trial. p90 = 2 × p50, p99.9 = 2 × p99. */
interface Spec {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rss: number;
  readonly checks?: Partial<Trial["checks"]>;
}

function trial(app: string, scenario: string, round: number, s: Spec): Trial {
  return {
    app,
    scenario,
    round,
    startedAt: "2026-11-21T10:00:00.000Z",
    command: ["wrk", "-c", "64"],
    result: syntheticResult(s.rps, 5, {
      mean: s.p50,
      p50: s.p50,
      p90: s.p50 * 2,
      p99: s.p99,
      p999: s.p99 * 2,
      max: 500,
    }),
    connections: 64,
    requestedSec: 5,
    cpuWindowSec: 4.9,
    server: { pid: 4242, cpuPercent: 97, peakRssMiB: s.rss },
    loadGenerator: { cpuPercent: 75, capacityCores: 1, threads: 1 },
    stealPercent: 0,
    checks: cleanChecks(60, 64, s.checks),
  };
}

const BOUND = { loadGeneratorBound: true, notes: ["wrk used 99% of its core, the server 81%"] };
const STEAL = { unsaturated: true, notes: ["CPU steal 14% during the trial"] };
const IDLE = {
  littlesLaw: { inFlight: 12, ratio: 0.19, checked: true, ok: false },
  notes: ["12 requests in flight on 64 connections"],
};
const INVALID = { valid: false, invalidReasons: ["error rate 3.10% > 0.01%"] };

/**
 * api: three apps significantly apart, one bad p99 trial (17.99, 437.65, 9.93 ms), flagged
 * trials of every kind. echo: bun-hono ties bun-bare (p ≈ 0.14), node-hono has 1 valid trial.
 * node-bare failed in both.
 */
const SYNTHETIC: Results = {
  schemaVersion: 2,
  status: "complete",
  startedAt: "2026-11-21T10:00:00.000Z",
  finishedAt: "2026-11-21T10:05:00.000Z",
  manifest: {
    tool: { name: "wrk", version: "4.2.0", path: "/usr/bin/wrk" },
    settings: {
      apps: ["bun-hono", "bun-bare", "node-hono", "node-bare"],
      scenarios: ["api", "echo"],
      durationSec: 5,
      warmupSec: 2,
      connections: 64,
      trials: 3,
      keepAlive: true,
      errorThreshold: 0.0001,
      argv: ["-n", "3"],
    },
    pinning: { enabled: true, serverCpus: "0", loadCpus: "1" },
    machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 8, os: "Debian 13", kernel: "6.1" },
    versions: { lockfile: { hono: "4.13.19" }, harnessBun: "1.4.5" },
    git: { commit: "0123456789abcdef0123", dirty: false },
  },
  apps: [
    { name: "bun-hono", runtime: "bun", framework: "hono", port: 3000, status: "ok" },
    { name: "bun-bare", runtime: "bun", framework: "bare", port: 3004, status: "ok" },
    { name: "node-hono", runtime: "node", framework: "hono", port: 3002, status: "ok" },
    {
      name: "node-bare",
      runtime: "node",
      framework: "bare",
      port: 3005,
      status: "failed",
      failure: "port 3005 is already in use by pid 42 (python3 -m http.server)\nand more output",
    },
  ],
  trials: [
    trial("bun-bare", "api", 1, { rps: 41_000, p50: 0.5, p99: 17.99, rss: 50, checks: BOUND }),
    trial("bun-bare", "api", 2, { rps: 41_200, p50: 0.7, p99: 437.65, rss: 52.5, checks: BOUND }),
    trial("bun-bare", "api", 3, { rps: 41_400, p50: 0.6, p99: 9.93, rss: 51 }),
    trial("bun-hono", "api", 1, { rps: 40_300, p50: 0.8, p99: 20, rss: 60 }),
    trial("bun-hono", "api", 2, { rps: 40_500, p50: 0.9, p99: 22, rss: 61 }),
    trial("bun-hono", "api", 3, { rps: 40_700, p50: 1, p99: 21, rss: 62, checks: STEAL }),
    trial("node-hono", "api", 1, { rps: 30_000, p50: 1.5, p99: 30, rss: 80 }),
    trial("node-hono", "api", 2, { rps: 30_100, p50: 1.6, p99: 35, rss: 82, checks: IDLE }),
    trial("node-hono", "api", 3, { rps: 29_900, p50: 1.4, p99: 40, rss: 81 }),
    trial("bun-bare", "echo", 1, { rps: 20_000, p50: 1, p99: 5, rss: 55 }),
    trial("bun-bare", "echo", 2, { rps: 20_400, p50: 1.1, p99: 6, rss: 56 }),
    trial("bun-bare", "echo", 3, { rps: 19_600, p50: 1.2, p99: 7, rss: 57 }),
    trial("bun-hono", "echo", 1, { rps: 19_400, p50: 1.1, p99: 6, rss: 65 }),
    trial("bun-hono", "echo", 2, { rps: 19_800, p50: 1.2, p99: 7, rss: 66 }),
    trial("bun-hono", "echo", 3, { rps: 19_000, p50: 1.3, p99: 8, rss: 67 }),
    trial("node-hono", "echo", 1, { rps: 10_000, p50: 2, p99: 50, rss: 90 }),
    trial("node-hono", "echo", 2, { rps: 99_999, p50: 2, p99: 50, rss: 999, checks: INVALID }),
  ],
};

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
    const header = "| app | % of bare | cost | Welch p |\n| :-- | --: | :-- | --: |\n";
    expect(md).toContain(`${header}| bun-hono | 98% | 2% | 0.013 |\n`);
    expect(md).toContain(`${header}| bun-hono | ≈97% | ≈ tie (could detect ≥ 6.1%) | 0.140 |\n`);
  });

  test("the report says how to read ranks, ≈, the CI and the flags", () => {
    expect(md).toContain("±: the 95% CI's half-width as a share of the mean.");
    expect(md).toContain("Each app's mean is over processes (fresh starts)");
    expect(md).toContain("p99 also shows its lowest–highest over samples");
    expect(md).toContain(
      "≈ marks a difference that is not significant (Welch's t-test on the process means; every pair of a table is one family, held to 5% by Holm's step-down)",
    );
    expect(md).toContain("the smallest difference the run could have detected");
    expect(md).toContain("significantly slower than the app that opened the current tie group");
    expect(md).toContain("Unsaturated: neither was saturated");
    expect(md).toContain("Idle connections: far fewer requests were in flight");
  });
});

describe("one analysis, rendered by every view", () => {
  test("the reports, the summary and its extras render the analysis they are given", () => {
    // An analysis whose fastest mean was changed after the fact: a view that recomputed it
    // from results.json would print 41,200 again.
    const analysis = analyze(SYNTHETIC);
    const row = analysis.groups.get("api")?.rows[0];
    if (!row) throw new Error("no row");
    Object.assign(row, { rps: { ...row.rps, mean: 123_456 } });
    const dir = mkdtempSync(join(tmpdir(), "bench-analysis-"));
    const [md, html] = writeReports(join(dir, "results.json"), SYNTHETIC, analysis);
    expect(readFileSync(md as string, "utf8")).toContain("| 1 | bun-bare | 123,456 ± 200");
    expect(readFileSync(html as string, "utf8")).toContain("<td>123,456 ± 200");
    expect(formatSummary(analysis)).toContain("123,456 ± 200");
    expect(readFileSync(md as string, "utf8")).not.toContain("41,200 ± 200");
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
    expect(html).toContain("No profile: node wrote no profile");
  });
});

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

/** What the page reports it drew: the chart instances' data and the bars' pixels read back. */
interface Drawn {
  id: string;
  title: string;
  labels: string[];
  datasets: { label: string; data: unknown[]; heights: (number | null)[] }[];
  errorBars: { dataset: string; index: number; low: number; high: number }[];
  /** The y axis as drawn, and the x axis's tick labels. */
  yRange: [number, number];
  xTicks: string[];
  bars: number;
  painted: number;
}

/** The dataset holds exactly `expected`, and each bar was drawn at that height. */
function expectBars(chart: Drawn | undefined, label: string, expected: (number | null)[]) {
  const dataset = chart?.datasets.find((d) => d.label === label);
  expect(dataset?.data).toEqual(expected);
  expected.forEach((value, i) => {
    if (value === null) expect(dataset?.heights[i]).toBeNull();
    else expect(dataset?.heights[i]).toBeCloseTo(value, 6);
  });
}

/** The error bars drawn on a dataset, as [bar index, low, high], in drawing order. */
function expectErrorBars(chart: Drawn | undefined, label: string, expected: number[][]) {
  const drawn = chart?.errorBars.filter((e) => e.dataset === label) ?? [];
  expect(drawn.map((e) => e.index)).toEqual(expected.map((e) => e[0] as number));
  drawn.forEach((e, i) => {
    expect(e.low).toBeCloseTo(expected[i]?.[1] as number, 2);
    expect(e.high).toBeCloseTo(expected[i]?.[2] as number, 2);
  });
}

/** Headless Chromium's flags: no network, no first-run chatter, a throw-away profile. */
const chromiumFlags = (dir: string) => [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--user-data-dir=${join(dir, "profile")}`,
  "--window-size=1280,2600",
];

/** Loads the page and returns what it wrote into <pre id="render-check"> after drawing. */
function renderCheck(chromium: string, flags: string[], html: string): Drawn[] {
  const dom = spawnSync(chromium, [...flags, "--dump-dom", `file://${html}`], {
    encoding: "utf8",
    timeout: 60_000,
  });
  const match = /<pre id="render-check" hidden="">([^<]*)<\/pre>/.exec(dom.stdout);
  expect(match).not.toBeNull();
  const text = (match?.[1] ?? "")
    .replaceAll("&quot;", '"')
    .replaceAll("&gt;", ">")
    .replaceAll("&lt;", "<")
    .replaceAll("&amp;", "&");
  return JSON.parse(text) as Drawn[];
}

describe("HTML report in headless Chromium", () => {
  // CI installs Debian's chromium; elsewhere a missing browser skips (visibly) rather than fails.
  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "the charts hold and draw the synthetic run's numbers, labels and error bars; screenshot saved",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const dir = mkdtempSync(join(tmpdir(), "bench-html-"));
      const html = join(dir, "report.html");
      writeFileSync(html, htmlReport(analyze(SYNTHETIC)));
      const flags = chromiumFlags(dir);
      const drawn = renderCheck(CHROMIUM, flags, html);
      const chart = (id: string) => drawn.find((c) => c.id === id);
      expect(drawn.map((c) => c.id)).toEqual([
        "rps-api",
        "latency-api",
        "rps-echo",
        "latency-echo",
        "memory",
      ]);
      for (const c of drawn) {
        expect(c.painted).toBeGreaterThan(2000); // pixels really drawn on the canvas
        expect(c.bars).toBe(4);
      }

      const api = chart("rps-api");
      expect(api?.labels).toEqual([
        "bun-bare (lower bound)",
        "bun-hono (unsaturated)",
        "node-hono",
        "node-bare (failed)",
      ]);
      expect(api?.title).toBe("api: requests per second (mean over processes, bars: 95% CI)");
      expectBars(api, "req/s", [41_200, 40_500, 30_000, null]);
      expectErrorBars(api, "req/s", [
        [0, 40_703.17, 41_696.83],
        [1, 40_003.17, 40_996.83],
        [2, 29_751.59, 30_248.41],
      ]);
      const echo = chart("rps-echo");
      expect(echo?.labels).toEqual(["bun-bare", "bun-hono", "node-hono", "node-bare (failed)"]);
      expectBars(echo, "req/s", [20_000, 19_400, 10_000, null]);
      // node-hono's single valid trial has no interval: no error bar
      expectErrorBars(echo, "req/s", [
        [0, 19_006.34, 20_993.66],
        [1, 18_406.34, 20_393.66],
      ]);

      // latency: the median trial's percentiles, the range over trials as error bars
      const latency = chart("latency-api");
      expect(latency?.labels).toEqual(api?.labels ?? []);
      expectBars(latency, "p50", [0.6, 0.9, 1.5, null]);
      expectBars(latency, "p90", [1.2, 1.8, 3, null]);
      expectBars(latency, "p99", [17.99, 21, 35, null]);
      expectBars(latency, "p99.9", [35.98, 42, 70, null]);
      expectErrorBars(latency, "p99", [
        [0, 9.93, 437.65],
        [1, 20, 22],
        [2, 30, 40],
      ]);
      expectBars(chart("latency-echo"), "p99", [6, 7, 50, null]);
      expectErrorBars(chart("latency-echo"), "p99", [
        [0, 5, 7],
        [1, 6, 8],
      ]);

      // memory: one bar per app in the run's order, one dataset per scenario; the invalid
      // trial's 999 MiB is not among them
      const memory = chart("memory");
      expect(memory?.labels).toEqual(["bun-hono", "bun-bare", "node-hono", "node-bare"]);
      expectBars(memory, "api", [62, 52.5, 82, null]);
      expectBars(memory, "echo", [67, 57, 90, null]);

      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = join(ARTIFACTS, "report.png");
      rmSync(shot, { force: true });
      spawnSync(CHROMIUM, [...flags, `--screenshot=${shot}`, `file://${html}`], {
        timeout: 60_000,
      });
      expect(statSync(shot).size).toBeGreaterThan(20_000);
    },
    120_000,
  );

  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "the latency-at-offered-load chart draws p50 and p99 against the offered rate per app",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const lat = (p50: number, p99: number) => ({
        mean: p50,
        p50,
        p90: p99,
        p99,
        p999: p99,
        max: p99,
      });
      const rated: Results = {
        ...SYNTHETIC,
        manifest: {
          ...SYNTHETIC.manifest,
          settings: { ...SYNTHETIC.manifest.settings, rates: ["50%", "90%"], sloP99Ms: 10 },
        },
        rateTrials: [
          syntheticRateTrial("50%", 20_000, lat(0.5, 4)),
          syntheticRateTrial("90%", 36_000, lat(2, 40)),
          syntheticRateTrial("50%", 15_000, lat(0.8, 6), { app: "node-hono" }),
          syntheticRateTrial("90%", 27_000, lat(30, 300), { app: "node-hono", overCapacity: true }),
        ],
      };
      const md = markdownReport(analyze(rated));
      expect(md).toContain(
        "| bun-bare | 20,000 req/s (below 36,000) | the highest measured rate that met the budget; the next one measured missed it |",
      );
      expect(md).toContain(
        "| node-hono | 90% | 27,000 | 27,000 | 30.00 | 300.00 | over capacity |",
      );
      const dir = mkdtempSync(join(tmpdir(), "bench-html-"));
      const html = join(dir, "report.html");
      writeFileSync(html, htmlReport(analyze(rated)));
      const drawn = renderCheck(CHROMIUM, chromiumFlags(dir), html);
      const chart = drawn.find((c) => c.id === "rates-api");
      expect(chart?.painted).toBeGreaterThan(2000);
      expect(chart?.datasets.map((d) => d.label)).toEqual([
        "bun-bare p50",
        "bun-bare p99",
        "node-hono p50",
        "node-hono p99",
        "p99 budget 10.0 ms",
      ]);
      const points = (label: string) => chart?.datasets.find((d) => d.label === label);
      expect(points("bun-bare p99")?.data).toEqual([
        { x: 20_000, y: 4 },
        { x: 36_000, y: 40 },
      ]);
      // Each point drawn at its value on the log axis.
      const heights = points("node-hono p99")?.heights ?? [];
      expect(heights[0]).toBeCloseTo(6, 6);
      expect(heights[1]).toBeCloseTo(300, 6);
      expect(points("node-hono p50")?.heights[1]).toBeCloseTo(30, 6);
    },
    120_000,
  );

  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "the throughput curve draws req/s and p99 against connections on a log axis",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const points: [string, number, number, number][] = [
        ["bun-bare", 1, 5_000, 0.5],
        ["bun-bare", 100, 40_000, 5],
        ["bun-bare", 400, 41_000, 20],
        ["node-bare", 1, 4_000, 0.6],
        ["node-bare", 100, 12_000, 12],
        ["node-bare", 400, 12_500, 50],
      ];
      const curve = syntheticRun(
        ["bun-bare", "node-bare"],
        ["api"],
        points.map(([app, c, rps, p99]) => syntheticTrial(app, "api", 1, c, rps, p99)),
        { connections: 400, connectionCounts: [1, 100, 400] },
      );
      const dir = mkdtempSync(join(tmpdir(), "bench-html-"));
      const html = join(dir, "report.html");
      writeFileSync(html, htmlReport(analyze(curve)));
      const drawn = renderCheck(CHROMIUM, chromiumFlags(dir), html);
      const rps = drawn.find((c) => c.id === "curve-rps-api");
      const p99 = drawn.find((c) => c.id === "curve-p99Ms-api");
      for (const c of [rps, p99]) expect(c?.painted).toBeGreaterThan(2000);
      expect(rps?.datasets.map((d) => d.label)).toEqual(["bun-bare", "node-bare"]);
      expect(rps?.datasets[0]?.data).toEqual([
        { x: 1, y: 5_000 },
        { x: 100, y: 40_000 },
        { x: 400, y: 41_000 },
      ]);
      // The x axis labels the counts measured, and only those (it read "1.10, 1.20 …", and 400
      // was blank: Chart.js's log labels skip a mantissa of 4).
      for (const c of [rps, p99]) expect(c?.xTicks).toEqual(["1", "100", "400"]);
      // On a log scale a bar rises from the axis minimum: the smallest value must lie above it
      // (a p50 equal to the minimum was drawn with no height at all).
      const logCharts = drawn.filter((c) => c.id.startsWith("latency-") || c === p99);
      expect(logCharts.length).toBe(4);
      for (const c of logCharts) {
        const values = c.datasets.flatMap((d) =>
          d.data.flatMap((v) =>
            typeof v === "number" ? [v] : v === null ? [] : [(v as { y: number }).y],
          ),
        );
        expect({ id: c.id, below: values.filter((v) => !(v > c.yRange[0])) }).toEqual({
          id: c.id,
          below: [],
        });
      }
      expect(rps?.datasets[1]?.heights[1]).toBeCloseTo(12_000, 3);
      expect(p99?.datasets[0]?.heights[0]).toBeCloseTo(0.5, 6);
      expect(p99?.datasets[1]?.heights[1]).toBeCloseTo(12, 6);
    },
    120_000,
  );

  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "the start-up charts draw each app's median ready time and memory, with their ranges",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const starts = (ready: number[], idle: number[]) =>
        ready.map((readyMs, i) => ({
          readyMs,
          rssReadyMiB: (idle[i] as number) + 5,
          rssIdleMiB: idle[i] as number,
          fresh: i > 0,
        }));
      const started: Results = {
        ...SYNTHETIC,
        apps: SYNTHETIC.apps.map((a) =>
          a.name === "bun-bare"
            ? { ...a, startups: starts([40, 30, 90], [30, 31, 32]) }
            : a.name === "node-hono"
              ? { ...a, startups: starts([400, 450], [80, 90]) }
              : a,
        ),
      };
      const dir = mkdtempSync(join(tmpdir(), "bench-html-"));
      const html = join(dir, "report.html");
      writeFileSync(html, htmlReport(analyze(started)));
      const drawn = renderCheck(CHROMIUM, chromiumFlags(dir), html);
      const chart = (id: string) => drawn.find((c) => c.id === id);
      const ready = chart("startup");
      const memory = chart("startup-memory");
      for (const c of [ready, memory]) expect(c?.painted).toBeGreaterThan(2000);
      // Fastest start first; apps that were never started (or failed to) have no bar.
      expect(ready?.labels).toEqual(["bun-bare", "node-hono"]);
      expectBars(ready, "ready ms", [40, 425]);
      expectErrorBars(ready, "ready ms", [
        [0, 30, 90],
        [1, 400, 450],
      ]);
      expectBars(memory, "when ready", [36, 90]);
      expectBars(memory, "after 1 s idle", [31, 85]);
      expectErrorBars(memory, "after 1 s idle", [
        [0, 30, 32],
        [1, 80, 90],
      ]);
    },
    120_000,
  );

  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "the runtime versions chart: per app, a bar per version with its 95% CI",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const dir = mkdtempSync(join(tmpdir(), "bench-html-"));
      const html = join(dir, "report.html");
      const versions = syntheticVersionsRun();
      writeFileSync(html, htmlReport(analyze(versions)));
      const page = readFileSync(html, "utf8");
      expect(page).toContain("<h2>Runtime versions</h2>");
      expect(page).toContain("<td>11,000 (110%)</td>");
      const chart = renderCheck(CHROMIUM, chromiumFlags(dir), html).find(
        (c) => c.id === "versions-api-node",
      );
      expect(chart?.painted).toBeGreaterThan(2000);
      expect(chart?.labels).toEqual(["node-bare", "node-hono"]);
      expectBars(chart, "node 22.23.3", [10_000, 8_000]);
      expectBars(chart, "node 24.21.0", [11_000, 8_000]);
      expect(chart?.errorBars.length).toBe(4);
      expect(markdownReport(analyze(versions))).toContain(
        "| node-hono | 8,000 | 8,000 (≈100%, could detect ≥ 22.1%) |",
      );
    },
    120_000,
  );
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
      "an app marked * had load-generator-bound samples, so its bar is a lower bound, or unsaturated, contended or machine-full samples",
    );
  });

  test("the CLI writes the file it is given", () => {
    const dir = mkdtempSync(join(tmpdir(), "readme-"));
    const path = join(dir, "README.md");
    const resultsPath = join(dir, "results.json");
    writeFileSync(path, `${START}\n${END}\n`);
    writeFileSync(resultsPath, JSON.stringify(SYNTHETIC));
    const r = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, "packages/harness/src/report/cli.ts"),
        "readme",
        resultsPath,
        "--readme",
        path,
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    const written = readFileSync(path, "utf8");
    expect(written).toContain("| bun-bare | 41.2k ±1.2% (1)* | 20.0k ±5.0% (1) |");
    // results.json beside the README: the links are relative to it
    expect(written).toContain("[report.html](./report.html)");
  });
});

// The rest needs real runs of ./benchmark.sh on this machine; they start only for the tests
// that use them, so the synthetic tests above run on their own (bun test -t).
const APPS = ["bun-hono", "bun-bare"];
const bench = runBenchmark;

// wrk where there is one: autocannon saturates first, and a load-generator-bound run is noisier.
const TOOL = existsSync("/usr/bin/wrk") ? "wrk" : "autocannon";
const RUN = [
  "--tool",
  TOOL,
  "-d",
  "2",
  "-w",
  "1",
  "-n",
  "3",
  "--samples",
  "1",
  "-c",
  "32",
  "-s",
  "api,echo",
  ...APPS,
];
let dirA = "";
let results: Results;
let runs: Promise<void> | undefined;

/** One real run, made once for every test that needs it. */
function realRun(): Promise<void> {
  runs ??= (async () => {
    dirA = join(mkdtempSync(join(tmpdir(), "bench-report-")), "a");
    const r = await bench(["-o", dirA, ...RUN]);
    if (r.code !== 0) throw new Error(`benchmark run failed (${r.code}): ${r.stderr.slice(-2000)}`);
    results = JSON.parse(readFileSync(join(dirA, "results.json"), "utf8"));
  })();
  return runs;
}

describe("reports of a real run", () => {
  beforeAll(realRun, 120_000);

  test("every run writes report.md and report.html from its results.json", () => {
    const md = readFileSync(join(dirA, "report.md"), "utf8");
    expect(md).toBe(markdownReport(analyze(results)));
    expect(md).toContain(`${TOOL} ${results.manifest.tool.version}`);
    expect(md).toContain(results.manifest.git.commit.slice(0, 12));
    for (const scenario of ["api", "echo"]) {
      expect(md).toContain(`## ${scenario} — `);
      // A rank, or a tie with what the run could have detected: which one is the machine's call.
      const rank = "≈?\\d+(?: \\(could detect ≥ [\\d.]+%\\))?";
      for (const app of APPS)
        expect(md).toMatch(new RegExp(`\\| ${rank} \\| ${app} \\| [\\d,]+ ± `));
    }
    expect(existsSync(join(dirA, "report.html"))).toBe(true);
  });

  test("--report regenerates the same reports from results.json", async () => {
    const before = readFileSync(join(dirA, "report.md"), "utf8");
    rmSync(join(dirA, "report.md"));
    rmSync(join(dirA, "report.html"));
    const r = await bench(["--report", join(dirA, "results.json")]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dirA, "report.md"), "utf8")).toBe(before);
    // the regenerated HTML is the report of that results.json, not just some file
    expect(readFileSync(join(dirA, "report.html"), "utf8")).toBe(htmlReport(analyze(results)));
  });

  test("--report on something that is not a results.json: exit 2, says why", async () => {
    const bogus = join(dirA, "bogus.json");
    writeFileSync(bogus, '{"schemaVersion": 1}');
    const r = await bench(["--report", bogus]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not a results.json of this version");
  });
});

// The statistics of --compare are tested on synthetic data in compare.test.ts; here the path
// through benchmark.sh is, on a real results.json whose req/s are set to fixed values, so no
// verdict depends on this machine's noise.
describe("compare through benchmark.sh", () => {
  beforeAll(realRun, 120_000);

  /** The real run with every trial's req/s replaced: 1000, 1010, 990 (× factor). */
  function fixed(name: string, factor: number, app?: string): string {
    const run = JSON.parse(readFileSync(join(dirA, "results.json"), "utf8")) as Results;
    const values = [1000, 1010, 990];
    for (const [i, t] of run.trials.entries()) {
      if (!t.result) continue;
      const slower = app === undefined || (t.app === app && t.scenario === "api");
      Object.assign(t.result, { rps: (values[i % 3] as number) * (slower ? factor : 1) });
    }
    const path = join(dirA, name);
    writeFileSync(path, JSON.stringify(run));
    return path;
  }

  test("a run against itself: no regression, exit 0", async () => {
    const same = fixed("same.json", 1);
    const r = await bench(["--compare", same, same]);
    expect(r.stdout).toContain("no regression");
    expect(r.code).toBe(0);
  });

  test("a planted 20% drop on one app: flagged, exit 1", async () => {
    const r = await bench([
      "--compare",
      fixed("base.json", 1),
      fixed("planted.json", 0.8, "bun-bare"),
    ]);
    expect(r.code).toBe(1);
    const regressions = r.stdout.split("\n").filter((l) => l.includes("REGRESSION"));
    expect(regressions).toHaveLength(1);
    expect(regressions[0]).toMatch(/^api\s+bun-bare\s.*−20\.0%/);
    expect(r.stdout).toContain("1 regression(s)");
  });

  test("--threshold is checked: exit 2 for nonsense", async () => {
    const a = join(dirA, "results.json");
    expect((await bench(["--compare", a, a, "--threshold", "lots"])).code).toBe(2);
    expect((await bench(["--threshold", "5"])).code).toBe(2);
  });
});
