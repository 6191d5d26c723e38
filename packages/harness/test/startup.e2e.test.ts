// Start-up figures: every start of a run is measured (runtime start to first correct answer, memory
// when ready and after an idle pause), --startup adds fresh starts, and the reports show them.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AppSpec, getApp } from "@bench/contract";
import { type StartupRow, startupRows } from "../src/analysis/startup.ts";
import { startApp } from "../src/apps/launch.ts";
import { startupCells } from "../src/report/startup-table.ts";
import { type Results, type Startup, schemaErrors } from "../src/results/schema.ts";
import { CONFORMING, fakeRoot, SLOW_START } from "./support/fake-root.ts";
import { runBenchmark, taggedProcesses } from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

async function run(
  args: string[],
): Promise<{ code: number | null; results: Results; md: string; stdout: string }> {
  const out = join(temp("bench-startup-"), "run");
  const r = await runBenchmark([
    "-o",
    out,
    "-s",
    "hello",
    "-d",
    "1",
    "-w",
    "0",
    "-n",
    "1",
    "--samples",
    "1",
    ...args,
  ]);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  return {
    code: r.code,
    results,
    md: readFileSync(join(out, "report.md"), "utf8"),
    stdout: r.stdout,
  };
}

const READY_TIMEOUT_MS = 15_000;

describe("start-up figures", () => {
  test("each start of the run and each --startup start is measured and reported", async () => {
    const { code, results, md, stdout } = await run(["--startup", "2", "bun-bare", "node-bare"]);
    expect(code).toBe(0);
    expect(schemaErrors(results)).toEqual([]);
    for (const app of results.apps) {
      const starts = app.startups ?? [];
      // One start in the round (then verified and loaded), two fresh ones.
      expect(starts.map((s) => s.fresh)).toEqual([false, true, true]);
      for (const s of starts) {
        expect(s.readyMs).toBeGreaterThan(0);
        expect(s.readyMs).toBeLessThan(READY_TIMEOUT_MS);
        expect(s.rssReadyMiB).toBeGreaterThan(1);
        expect(s.rssIdleMiB).toBeGreaterThan(1);
      }
      const [row] = startupRows([app]);
      expect(md).toContain(`| ${startupCells(row as StartupRow).join(" | ")} |`);
    }
    expect(md).toContain("## Start-up");
    // The terminal summary ends with the same figures.
    expect(stdout).toContain("== start-up: runtime start to first correct answer");
    expect(stdout).toMatch(/\nnode-bare +3 \(2\) +\d/);
    expect(taggedProcesses()).toEqual([]);
  }, 120_000);

  test("a server that listens only after 400 ms is never ready sooner", async () => {
    const root = fakeRoot({ "bun-bare": SLOW_START }, temp);
    const { code, results } = await run(["--apps-root", root, "--startup", "1", "bun-bare"]);
    expect(code).toBe(0);
    const starts = results.apps[0]?.startups ?? [];
    expect(starts).toHaveLength(2);
    for (const s of starts) expect(s.readyMs).toBeGreaterThanOrEqual(400);
  }, 60_000);

  test("the figure counts from the runtime's exec: 400 ms spent before it do not count", async () => {
    const root = fakeRoot({ "bun-bare": CONFORMING }, temp);
    // A wrapper that dawdles 400 ms, then stamps and execs, as scripts/start-app.sh does.
    const start =
      'sleep 0.4; printf "%s\\n" "$EPOCHREALTIME" >"$BENCH_EXEC_STAMP"; exec bun server.ts';
    writeFileSync(
      join(root, "apps/bun-bare/package.json"),
      JSON.stringify({ name: "bun-bare", private: true, scripts: { start: `bash -c '${start}'` } }),
    );
    const began = performance.now();
    const running = await startApp(getApp("bun-bare") as AppSpec, { root });
    const wall = performance.now() - began;
    await running.stop();
    expect(wall).toBeGreaterThanOrEqual(400);
    expect(running.readyMs).toBeGreaterThan(0);
    // The 400 ms before the exec are in the wall time and not in the figure, on any machine:
    // the bound is the sleep itself (less 2 ms for the stamp's and the clocks' rounding), not a
    // share of it that a slow start-up could eat into.
    expect(wall - (running.readyMs as number)).toBeGreaterThanOrEqual(398);
  }, 30_000);
});

const start = (readyMs: number, rssIdleMiB: number, fresh = true): Startup => ({
  readyMs,
  rssReadyMiB: rssIdleMiB + 10,
  rssIdleMiB,
  fresh,
});

test("startupRows: median and range per app; apps without starts left out", () => {
  const rows = startupRows([
    {
      name: "a",
      startups: [start(300, 40, false), start(100, 30), start(200, 50), start(900, 35)],
    },
    { name: "b" },
    { name: "c", startups: [start(50, 20)] },
  ]);
  expect(rows).toEqual([
    {
      app: "a",
      starts: 4,
      fresh: 3,
      readyMs: { median: 250, min: 100, max: 900 },
      rssReadyMiB: 47.5,
      rssIdleMiB: { median: 37.5, min: 30, max: 50 },
    },
    {
      app: "c",
      starts: 1,
      fresh: 1,
      readyMs: { median: 50, min: 50, max: 50 },
      rssReadyMiB: 30,
      rssIdleMiB: { median: 20, min: 20, max: 20 },
    },
  ]);
  expect(startupCells(rows[0] as StartupRow)).toEqual([
    "a",
    "4 (3)",
    "250 (100–900)",
    "47.5",
    "37.5 (30.0–50.0)",
  ]);
  // One start: no range to show.
  expect(startupCells(rows[1] as StartupRow)).toEqual(["c", "1 (1)", "50", "30.0", "20.0"]);
});
