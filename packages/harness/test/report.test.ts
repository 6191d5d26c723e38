// Reports from real runs of this machine: the numbers in report.md and in the HTML charts must
// be results.json's; compare must flag a planted regression and stay quiet on a rerun.
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
import { REPO_ROOT } from "../src/index.ts";
import { fmt, pct } from "../src/report/format.ts";
import { END, START, updateReadme } from "../src/report/readme.ts";
import type { Results } from "../src/schema.ts";
import { incompleteBeta, spread, welch } from "../src/stats.ts";
import { runBenchmark } from "./support/run-benchmark.ts";

const ARTIFACTS = join(REPO_ROOT, "test-artifacts");
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
  "-c",
  "32",
  "-s",
  "api,echo",
  ...APPS,
];
let dirA = "";
let dirB = "";
let results: Results;

beforeAll(async () => {
  const base = mkdtempSync(join(tmpdir(), "bench-report-"));
  dirA = join(base, "a");
  dirB = join(base, "b");
  for (const dir of [dirA, dirB]) {
    const r = await bench(["-o", dir, ...RUN]);
    if (r.code !== 0) throw new Error(`benchmark run failed (${r.code}): ${r.stderr.slice(-2000)}`);
  }
  results = JSON.parse(readFileSync(join(dirA, "results.json"), "utf8"));
}, 120_000);

/** Mean and sd of the valid trials' req/s, straight from results.json. */
function measured(app: string, scenario: string) {
  return spread(
    results.trials
      .filter((t) => t.app === app && t.scenario === scenario && t.checks.valid)
      .map((t) => t.result?.rps ?? Number.NaN),
  );
}

describe("Markdown report", () => {
  test("every run writes report.md whose numbers are results.json's", () => {
    const md = readFileSync(join(dirA, "report.md"), "utf8");
    expect(md).toContain(`${TOOL} ${results.manifest.tool.version}`);
    expect(md).toContain(results.manifest.git.commit.slice(0, 12));
    for (const scenario of ["api", "echo"]) {
      expect(md).toContain(`## ${scenario} — `);
      for (const app of APPS) {
        const s = measured(app, scenario);
        expect(s.n).toBe(3);
        expect(md).toContain(`| ${app} | ${fmt(s.mean)} ± ${fmt(s.stddev)}`);
      }
      const hono = measured("bun-hono", scenario).mean;
      const bare = measured("bun-bare", scenario).mean;
      // framework tax
      expect(md).toContain(
        `| bun-hono | ${pct((hono / bare) * 100)} | ${pct(100 - (hono / bare) * 100)} |`,
      );
      // relative matrix: columns fastest first, each row as % of each column
      const order = [...APPS].sort(
        (x, y) => measured(y, scenario).mean - measured(x, scenario).mean,
      );
      for (const row of APPS) {
        const cells = order.map((col) =>
          pct((measured(row, scenario).mean / measured(col, scenario).mean) * 100),
        );
        expect(md).toContain(`| ${row} | ${cells.join(" | ")} |`);
      }
    }
  });

  test("--report regenerates the same reports from results.json", async () => {
    const before = readFileSync(join(dirA, "report.md"), "utf8");
    rmSync(join(dirA, "report.md"));
    rmSync(join(dirA, "report.html"));
    const r = await bench(["--report", join(dirA, "results.json")]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dirA, "report.md"), "utf8")).toBe(before);
    expect(existsSync(join(dirA, "report.html"))).toBe(true);
  });

  test("--report on something that is not a results.json: exit 2, says why", async () => {
    const bogus = join(dirA, "bogus.json");
    writeFileSync(bogus, '{"schemaVersion": 1}');
    const r = await bench(["--report", bogus]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not a results.json of this version");
  });
});

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

describe("HTML report in headless Chromium", () => {
  // CI installs Debian's chromium; elsewhere a missing browser skips (visibly) rather than fails.
  test.skipIf(!CHROMIUM && process.env.CI !== "true")(
    "renders every chart with the right apps and values; screenshot saved",
    () => {
      if (!CHROMIUM) throw new Error("chromium is not installed (apt-get install chromium)");
      const html = join(dirA, "report.html");
      const profile = mkdtempSync(join(tmpdir(), "chromium-"));
      const flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
        "--window-size=1280,2600",
      ];
      const dom = spawnSync(CHROMIUM, [...flags, "--dump-dom", `file://${html}`], {
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
      const drawn = JSON.parse(text) as {
        id: string;
        labels: string[];
        datasets: { label: string; data: (number | null)[] }[];
        bars: number;
        painted: number;
      }[];
      expect(drawn.map((c) => c.id).sort()).toEqual(
        ["latency-api", "latency-echo", "memory", "rps-api", "rps-echo"].sort(),
      );
      for (const chart of drawn) {
        expect(chart.painted).toBeGreaterThan(2000); // pixels really drawn on the canvas
        expect(chart.bars).toBe(APPS.length);
      }
      for (const scenario of ["api", "echo"]) {
        const rps = drawn.find((c) => c.id === `rps-${scenario}`);
        const apps = rps?.labels.map((l) => l.replace(/ \(.*\)$/, "")) ?? [];
        expect([...apps].sort()).toEqual([...APPS].sort());
        apps.forEach((app, i) => {
          expect(rps?.datasets[0]?.data[i]).toBeCloseTo(measured(app, scenario).mean, 1);
        });
      }
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
});

// 2-second trials on a shared 2-core machine drift by several percent from run to run: the
// tests use a 10% threshold, and show that a planted 20% slowdown still stands out at it.
describe("compare", () => {
  test("two runs of the same build: no regression, exit 0", async () => {
    const r = await bench([
      "--compare",
      join(dirA, "results.json"),
      join(dirB, "results.json"),
      "--threshold",
      "10",
    ]);
    expect(r.stdout).toContain("no regression");
    expect(r.code).toBe(0);
  });

  test("a planted 20% regression is flagged, exit 1", async () => {
    const planted = JSON.parse(readFileSync(join(dirB, "results.json"), "utf8")) as Results;
    for (const t of planted.trials) {
      if (t.app === "bun-bare" && t.scenario === "api" && t.result) {
        Object.assign(t.result, { rps: t.result.rps * 0.8 });
        Object.assign(t.result.latencyMs, { p99: t.result.latencyMs.p99 * 1.25 });
      }
    }
    const path = join(dirB, "planted.json");
    writeFileSync(path, JSON.stringify(planted));
    const r = await bench(["--compare", join(dirB, "results.json"), path, "--threshold", "10"]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    const regressions = lines.filter((l) => l.includes("REGRESSION"));
    expect(regressions).toHaveLength(1);
    expect(regressions[0]).toMatch(/^api\s+bun-bare\s.*−20\.0%.*\+25\.0%/);
    expect(r.stdout).toContain("1 regression(s)");
  });

  test("--threshold is checked: exit 2 for nonsense", async () => {
    const a = join(dirA, "results.json");
    expect((await bench(["--compare", a, a, "--threshold", "lots"])).code).toBe(2);
    expect((await bench(["--threshold", "5"])).code).toBe(2);
  });
});

describe("README section", () => {
  test("replaced between the markers, with the report and Mermaid charts", () => {
    const readme = `# Title\n\nintro\n\n${START}\nold numbers\n${END}\n\nafter\n`;
    const updated = updateReadme(readme, results);
    expect(updated.startsWith("# Title\n\nintro\n\n")).toBe(true);
    expect(updated.endsWith(`${END}\n\nafter\n`)).toBe(true);
    expect(updated).not.toContain("old numbers");
    expect(updated).toContain("### Benchmark results");
    expect(updated.match(/```mermaid\nxychart-beta/g)).toHaveLength(4);
    const api = measured("bun-bare", "api").mean;
    expect(updated).toContain(`${Math.round(api * 100) / 100}`);
    expect(() => updateReadme("# no markers", results)).toThrow(/no "<!-- results:start -->"/);
  });

  test("the CLI writes the file it is given", () => {
    const path = join(mkdtempSync(join(tmpdir(), "readme-")), "README.md");
    writeFileSync(path, `${START}\n${END}\n`);
    const r = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, "packages/harness/src/report/cli.ts"),
        "readme",
        join(dirA, "results.json"),
        "--readme",
        path,
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    expect(readFileSync(path, "utf8")).toContain("xychart-beta");
  });
});

describe("Welch's t-test", () => {
  test("the incomplete beta function at known points", () => {
    expect(incompleteBeta(0.5, 3, 3)).toBeCloseTo(0.5, 8);
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 8);
    expect(incompleteBeta(0.2, 2, 1)).toBeCloseTo(0.04, 8);
  });

  test("p-values match the t distribution", () => {
    // df = 1 (Cauchy): P(|T| > 1) = 0.5
    expect(incompleteBeta(1 / (1 + 1), 0.5, 0.5)).toBeCloseTo(0.5, 8);
    const r = welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
    expect(r?.t).toBeCloseTo(1.8974, 4);
    expect(r?.df).toBeCloseTo(5.8824, 4);
    expect(r?.p).toBeCloseTo(0.10753, 4); // numerical integration of the t density
    expect(welch([1, 2], [1])).toBeUndefined();
    expect(welch([5, 5, 5], [5, 5, 5])?.p).toBe(1);
    expect(welch([100, 101, 99], [80, 81, 79])?.p).toBeLessThan(0.001);
  });
});
