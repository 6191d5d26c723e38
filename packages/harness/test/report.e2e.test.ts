// Reports: the numbers in report.md, the HTML charts (as drawn in headless Chromium) and the
// README section are checked against a synthetic results.json whose expected values are written
// out as literals, never recomputed with the report's own formatting or statistics. Only the
// last checks need real runs of this machine: that every run writes its reports, that --report
// regenerates them, and compare.

import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { analyze } from "../src/analysis/analysis.ts";
import { REPO_ROOT } from "../src/index.ts";
import { bmfOf } from "../src/report/bmf.ts";
import { writeReports } from "../src/report/files.ts";
import { htmlReport } from "../src/report/html.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { END, START } from "../src/report/readme.ts";
import { formatSummary } from "../src/report/summary.ts";
import type { Results } from "../src/results/schema.ts";
import { RATED, SYNTHETIC } from "./support/report-synthetic.ts";
import { expectExit, runBenchmark } from "./support/run-benchmark.ts";
import { syntheticRun, syntheticTrial, syntheticVersionsRun } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const ARTIFACTS = join(REPO_ROOT, "test-artifacts");

describe("one analysis, rendered by every view", () => {
  test("the reports, the summary and its extras render the analysis they are given", () => {
    // An analysis whose fastest mean was changed after the fact: a view that recomputed it
    // from results.json would print 41,200 again.
    const analysis = analyze(SYNTHETIC);
    const row = analysis.groups.get("api")?.rows[0];
    if (!row) throw new Error("no row");
    Object.assign(row, { rps: { ...row.rps, mean: 123_456 } });
    const dir = temp("bench-analysis-");
    const [md, html] = writeReports(join(dir, "results.json"), SYNTHETIC, analysis);
    expect(readFileSync(md as string, "utf8")).toContain("| 1 | bun-bare | 123,456 ± 200");
    expect(readFileSync(html as string, "utf8")).toContain("<td>123,456 ± 200");
    expect(formatSummary(analysis)).toContain("123,456 ± 200");
    expect(readFileSync(md as string, "utf8")).not.toContain("41,200 ± 200");
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
      const dir = temp("bench-html-");
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
      const md = markdownReport(analyze(RATED));
      expect(md).toContain(
        "| bun-bare | 20,000 req/s (below 36,000) | the highest measured rate that met the budget; the next one measured missed it |",
      );
      expect(md).toContain(
        "| node-hono | 90% | 27,000 | 27,000 | 30.00 | 300.00 | over capacity |",
      );
      const dir = temp("bench-html-");
      const html = join(dir, "report.html");
      writeFileSync(html, htmlReport(analyze(RATED)));
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
      const dir = temp("bench-html-");
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
      const dir = temp("bench-html-");
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
      const dir = temp("bench-html-");
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
        "| node-hono | 8,000 | 8,000 (≈100%, could detect ≥ 23.9%) |",
      );
    },
    120_000,
  );
});

describe("README section", () => {
  test("the CLI writes the file it is given", () => {
    const dir = temp("readme-");
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
    dirA = join(temp("bench-report-"), "a");
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

  test("--report regenerates the same reports and summary from results.json", async () => {
    const before = readFileSync(join(dirA, "report.md"), "utf8");
    const summary = readFileSync(join(dirA, "summary.txt"), "utf8");
    rmSync(join(dirA, "report.md"));
    rmSync(join(dirA, "report.html"));
    rmSync(join(dirA, "summary.txt"));
    const r = await bench(["--report", join(dirA, "results.json")]);
    expectExit(r, 0);
    expect(readFileSync(join(dirA, "report.md"), "utf8")).toBe(before);
    expect(readFileSync(join(dirA, "summary.txt"), "utf8")).toBe(summary);
    // the regenerated HTML is the report of that results.json, not just some file
    expect(readFileSync(join(dirA, "report.html"), "utf8")).toBe(htmlReport(analyze(results)));
  });

  test("--report --export bmf: an earlier run's figures for a continuous-benchmarking service", async () => {
    const file = join(dirA, "bmf.json");
    const r = await bench(["--report", join(dirA, "results.json"), "--export", "bmf", file]);
    expectExit(r, 0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(
      JSON.parse(JSON.stringify(bmfOf(analyze(results)))),
    );
  });

  test("--report on something that is not a results.json: exit 2, says why", async () => {
    const bogus = join(dirA, "bogus.json");
    writeFileSync(bogus, '{"schemaVersion": 1}');
    const r = await bench(["--report", bogus]);
    expectExit(r, 2);
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
    expectExit(r, 0);
  });

  test("a planted 20% drop on one app: flagged, exit 1", async () => {
    const r = await bench([
      "--compare",
      fixed("base.json", 1),
      fixed("planted.json", 0.8, "bun-bare"),
    ]);
    expectExit(r, 1);
    const regressions = r.stdout.split("\n").filter((l) => l.includes("REGRESSION"));
    expect(regressions).toHaveLength(1);
    expect(regressions[0]).toMatch(/^api\s+bun-bare\s.*−20\.0%/);
    expect(r.stdout).toContain("1 regression(s)");
  });

  test("--threshold is checked: exit 2 for nonsense", async () => {
    const a = join(dirA, "results.json");
    expect((await bench(["--compare", a, a, "--threshold", "lots"])).code).toBe(2);
    expect((await bench(["--threshold", "5"])).code).toBe(2);
  }, 60_000);
});
