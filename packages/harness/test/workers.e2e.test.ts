// --workers: one port served by several processes. The arithmetic on synthetic samples, then
// ./benchmark.sh for real: every app with 2 workers on its real port, a worker killed
// mid-trial, and Ctrl-C. (This machine has 2 cores: what is tested is that the workers start,
// serve, are measured and stop, not how throughput scales.)

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { APPS, getApp } from "@bench/contract";
import { pidsListeningOn } from "@bench/contract/check";
import { allListening, WORKERS_ENV, workerCount } from "@bench/contract/workers";
import { analyze } from "../src/analysis/analysis.ts";
import { type Group, groupsOf, inGroup, scenarioOfKey } from "../src/analysis/groups.ts";
import { startApp } from "../src/apps/launch.ts";
import { serverProcesses } from "../src/apps/readiness.ts";
import { type Sample, workerUse } from "../src/load/measure.ts";
import { CLK_TCK, isAlive } from "../src/load/procstats.ts";
import { scalingViews } from "../src/report/workers.ts";
import { type Results, schemaErrors, type Trial } from "../src/results/schema.ts";
import { workersOf } from "../src/run/options.ts";
import {
  expectExit,
  planned,
  runBenchmark,
  startBenchmark,
  taggedProcesses,
} from "./support/run-benchmark.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
  expect(taggedProcesses()).toEqual([]);
});

function freshOut(): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-workers-"));
  outs.push(dir);
  return join(dir, "run");
}

const readResults = (out: string): Results | undefined => {
  const path = join(out, "results.json");
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Results) : undefined;
};

describe("the count", () => {
  test("BENCH_WORKERS: unset is one process; anything but a whole number >= 1 is refused", () => {
    expect(workerCount({})).toBe(1);
    expect(workerCount({ [WORKERS_ENV]: "" })).toBe(1);
    expect(workerCount({ [WORKERS_ENV]: "3" })).toBe(3);
    for (const bad of ["0", "-1", "1.5", "two"]) {
      expect(() => workerCount({ [WORKERS_ENV]: bad })).toThrow(`got "${bad}"`);
    }
    expect(allListening(3)).toBe("all 3 workers listening");
  });

  test("--workers: a count, a list, or auto (one per CPU but the generator's)", () => {
    expect(workersOf("auto", 1)).toEqual([1]);
    expect(workersOf("auto", 2)).toEqual([1]);
    expect(workersOf("auto", 16)).toEqual([15]);
    expect(workersOf("4", 2)).toEqual([4]);
    expect(workersOf("1,2,4", 2)).toEqual([1, 2, 4]);
    expect(() => workersOf("0", 2)).toThrow("--workers must be a whole number >= 1");
    expect(() => workersOf("1,,2", 2)).toThrow("--workers must be a whole number >= 1");
    expect(() => workersOf("2,2", 2)).toThrow("--workers lists a count twice, got '2,2'");
    expect(workersOf("8", 2)).toEqual([8]);
    expect(() => workersOf("1,9", 2)).toThrow(
      "--workers 9 is more than 4 per CPU (8 on this machine's 2)",
    );
  });
});

describe("per-worker figures", () => {
  const sample = (t: number, workerTicks: number[]): Sample => ({
    t,
    serverTicks: 0,
    toolTicks: 0,
    stealTicks: 0,
    serverIdleTicks: 0,
    workerTicks,
  });

  test("CPU over the window only, connections as looked up, and who is still alive", () => {
    const second = CLK_TCK; // ticks in one second of one CPU
    const samples = [
      sample(0, [0, 0]), // before the window: ignored
      sample(1000, [10, 5]),
      sample(3000, [10 + second, 5 + second / 2]),
      sample(9000, [1e6, 1e6]), // after the window: ignored
    ];
    const used = workerUse(
      samples,
      { startMs: 500, endMs: 3500 },
      [11, 12],
      new Map([[11, 30]]),
      (pid) => pid === 11,
    );
    expect(used).toEqual([
      { pid: 11, cpuPercent: 50, connections: 30, alive: true },
      { pid: 12, cpuPercent: 25, connections: 0, alive: false },
    ]);
  });

  test("fewer than two samples in the window: 0% rather than a division by zero", () => {
    const used = workerUse(
      [sample(1000, [5])],
      { startMs: 0, endMs: 2000 },
      [7],
      new Map(),
      () => true,
    );
    expect(used).toEqual([{ pid: 7, cpuPercent: 0, connections: 0, alive: true }]);
  });
});

describe("several worker counts", () => {
  const trial = (app: string, workers: number, rps: number, round: number): Trial => {
    const t = syntheticTrial(app, "api", round, 64, rps, 5);
    return workers > 1 ? { ...t, workers } : t;
  };
  const run = (trials: Trial[]) =>
    syntheticRun(["a-bare", "b-bare"], ["api"], trials, { workers: 2, workerCounts: [1, 2] });

  test("each count is a group of its own: trials of 1 and 2 workers never mix", () => {
    const results = run([trial("a-bare", 1, 1000, 1), trial("a-bare", 2, 1900, 1)]);
    const groups = groupsOf(results);
    expect(groups.map((g) => g.key)).toEqual(["api (w=1)", "api (w=2)"]);
    const [one, two] = groups as [Group, Group];
    expect(results.trials.map((t) => [inGroup(t, one), inGroup(t, two)])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(groups.map((g) => scenarioOfKey(g.key))).toEqual(["api", "api"]);
    expect(scenarioOfKey("api (c=10)")).toBe("api");
  });

  test("the scaling table: mean req/s per count, × the first, ≈ when not significant", () => {
    const results = run([
      ...[1, 2, 3].flatMap((round) => [
        trial("a-bare", 1, 1000 + round, round),
        trial("a-bare", 2, 1900 + round, round), // ×1.90, far beyond the noise
        trial("b-bare", 1, 1000 + 100 * round, round),
        trial("b-bare", 2, 1010 + 100 * round, round), // ×1.01 within ±100: a tie
      ]),
    ]);
    const [view] = scalingViews(analyze(results));
    expect(view?.header).toEqual(["app", "1 worker(s)", "2 worker(s)"]);
    expect(view?.rows).toEqual([
      ["a-bare", "1,002", "1,902 (×1.90)"],
      ["b-bare", "1,200", "1,210 (≈×1.01)"],
    ]);
    // One count only: no table.
    expect(
      scalingViews(
        analyze({
          ...results,
          manifest: {
            ...results.manifest,
            settings: { ...results.manifest.settings, workerCounts: undefined },
          },
        }),
      ),
    ).toEqual([]);
  });
});

describe("command line", () => {
  test("a bad count, and --workers with --profile: usage, exit 2, nothing started", async () => {
    for (const [args, message] of [
      [
        ["--workers", "0"],
        "--workers must be a whole number >= 1, a comma-separated list of them, or auto, got '0'",
      ],
      [
        ["--workers", "many"],
        "--workers must be a whole number >= 1, a comma-separated list of them, or auto, got 'many'",
      ],
      [["--workers", "2", "--profile"], "--profile profiles one process"],
      [["--workers", "1,2,1"], "--workers lists a count twice, got '1,2,1'"],
      [["--workers", "1,2", "-c", "1,10"], "take a list one at a time, not both"],
    ] as const) {
      const out = freshOut();
      const r = await runBenchmark(["-o", out, ...args]);
      expectExit(r, 2);
      expect(r.stderr).toContain(message);
      expect(readResults(out)).toBeUndefined();
    }
  }, 60_000);
});

const QUICK = ["--duration", "2", "--warmup", "0", "--samples", "1", "--connections", "32"];

describe("every app with 2 workers, for real", () => {
  test("two worker processes each serve connections; the tree is measured; nothing is left", async () => {
    const out = freshOut();
    const r = await runBenchmark(["-o", out, ...QUICK, "--trials", "1", "--workers", "2"]);
    const results = readResults(out) as Results;
    expect(schemaErrors(results)).toEqual([]);
    expect(results.manifest.settings.workers).toBe(2);
    if (availableParallelism() >= 3) expect(results.manifest.pinning.serverCpus).toBe("0-1");
    else expect(results.manifest.pinning.note).toContain("2 workers on");
    expect(
      planned(results.trials)
        .map((t) => t.app)
        .sort(),
    ).toEqual(APPS.map((a) => a.name).sort());
    for (const trial of results.trials) {
      const workers = trial.server.workers ?? [];
      expect(workers).toHaveLength(2);
      expect(new Set(workers.map((w) => w.pid)).size).toBe(2);
      expect(workers.map((w) => w.pid)).not.toContain(trial.server.pid);
      for (const w of workers) {
        // Node's round robin and the kernel's reusePort hash both give each of two workers
        // some of 32 connections (all on one by chance: 2 in 2^31 for the hash).
        expect(w.connections).toBeGreaterThan(0);
        expect(w.cpuPercent).toBeGreaterThan(0);
        expect(w.alive).toBe(true);
      }
      expect(trial.server.primaryRssMiB).toBeGreaterThan(0);
      expect(trial.server.peakRssMiB).toBeGreaterThan(trial.server.primaryRssMiB as number);
      // Sharing the cores, a server and a generator that filled them make a full machine: never
      // "load-generator bound" (with 2 workers on 2 cores that is what a busy wrk meant before).
      const cores = results.manifest.pinning.enabled ? 0 : results.manifest.machine.cores;
      const filled = trial.server.cpuPercent + trial.loadGenerator.cpuPercent >= 0.9 * 100 * cores;
      if (cores > 0 && filled && trial.checks.valid && trial.cpuWindowSec > 0) {
        expect(trial.checks.loadGeneratorBound).toBe(false);
      }
    }
    // 1 exactly when a trial was judged invalid (a busy machine can do that), else 0
    expect(r.code).toBe(results.trials.every((t) => t.checks.valid) ? 0 : 1);
    expect(taggedProcesses()).toEqual([]);
    for (const app of APPS) expect(pidsListeningOn(app.port)).toEqual([]);
  }, 180_000);
});

describe("--workers 1,2, for real", () => {
  test("each count in turn, interleaved and reversed by round, then the scaling table", async () => {
    const out = freshOut();
    const r = await runBenchmark(["-o", out, ...QUICK, "-n", "2", "--workers", "1,2", "node-bare"]);
    const results = readResults(out) as Results;
    expect(schemaErrors(results)).toEqual([]);
    expect(results.manifest.settings.workerCounts).toEqual([1, 2]);
    // Round 1: one worker, then two; round 2 the other way round.
    expect(planned(results.trials).map((t) => [t.round, t.workers ?? 1])).toEqual([
      [1, 1],
      [1, 2],
      [2, 2],
      [2, 1],
    ]);
    for (const t of results.trials) {
      expect(t.server.workers?.length ?? 1).toBe(t.workers ?? 1);
    }
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("## Scaling with workers");
    expect(report).toMatch(/\| node-bare \| [\d,]+ \| [\d,]+ \(≈?×\d\.\d\d\) \|/);
    expect(r.stdout).toContain("== api: req/s by worker count");
    expect(r.code).toBe(results.trials.every((t) => t.checks.valid) ? 0 : 1);
    expect(taggedProcesses()).toEqual([]);
  }, 120_000);
});

/** The workers serving `name` right now, found by its port; none while it starts. */
function servingWorkers(name: string): number[] {
  const found = serverProcesses(getApp(name), 0, 2);
  return typeof found === "string" ? [] : found.workers;
}

describe("a worker that dies", () => {
  test("invalidates its trial, and the run goes on with the next round", async () => {
    let killed: number | undefined;
    const out = freshOut();
    const { done } = startBenchmark(
      ["-o", out, ...QUICK, "--trials", "2", "--workers", "2", "node-bare"],
      {},
      (stderr) => {
        if (killed === undefined && stderr.includes("round 1, sample")) {
          killed = servingWorkers("node-bare")[0];
          if (killed !== undefined) process.kill(killed, "SIGKILL");
        }
      },
    );
    const r = await done;
    expect(killed).toBeNumber();
    const results = readResults(out) as Results;
    expectExit(r, 1);
    const [first, second] = planned(results.trials);
    expect(first?.checks.valid).toBe(false);
    expect(first?.checks.invalidReasons.join()).toContain(`worker ${killed} of 2 exited`);
    expect(first?.server.workers?.find((w) => w.pid === killed)?.alive).toBe(false);
    // Round 2 started the app afresh, with both workers.
    expect(second?.round).toBe(2);
    expect(second?.server.workers?.every((w) => w.alive && w.pid !== killed)).toBe(true);
    expect(results.apps.find((a) => a.name === "node-bare")?.status).toBe("ok");
    expect(taggedProcesses()).toEqual([]);
  }, 120_000);
});

describe("a primary killed outright", () => {
  // SIGKILL cannot be passed on: the workers must notice the primary is gone (node:cluster's
  // do; deno-bare's kept serving the port, and the next run failed with "port in use").
  for (const name of ["bun-bare", "node-bare", "deno-bare"]) {
    test(`${name}: its workers exit too, and the port is free`, async () => {
      const app = getApp(name);
      const running = await startApp(app, { workers: 2 });
      let workers: number[] = [];
      try {
        const found = serverProcesses(app, running.pid, 2);
        if (typeof found === "string") throw new Error(found);
        workers = found.workers;
        expect(workers).toHaveLength(2);
        process.kill(found.root, "SIGKILL");
        const deadline = Date.now() + 5000;
        while (workers.some(isAlive) && Date.now() < deadline) await Bun.sleep(50);
        expect(workers.filter(isAlive)).toEqual([]);
        expect(pidsListeningOn(app.port)).toEqual([]);
      } finally {
        for (const pid of workers.filter(isAlive)) process.kill(pid, "SIGKILL");
        await running.stop();
      }
    }, 30_000);
  }
});

describe("Ctrl-C with workers", () => {
  // bun-bare: reusePort workers with a socket each; node-bare: Node's round robin; deno-bare:
  // processes the primary started itself (no node:cluster), reusePort like Bun's.
  for (const name of ["bun-bare", "node-bare", "deno-bare"]) {
    test(`${name}: SIGINT mid-trial stops the primary and every worker, exits 130`, async () => {
      let seen: number[] = [];
      const out = freshOut();
      const { done } = startBenchmark(
        [
          "-o",
          out,
          "--duration",
          "20",
          "--warmup",
          "0",
          "--trials",
          "1",
          "--samples",
          "1",
          "--workers",
          "2",
          name,
        ],
        {},
        (stderr, pid) => {
          if (seen.length === 0 && stderr.includes("round 1, sample")) {
            seen = servingWorkers(name);
            if (seen.length === 2) process.kill(pid, "SIGINT");
          }
        },
      );
      const r = await done;
      expect(seen).toHaveLength(2);
      expectExit(r, 130);
      expect(readResults(out)?.status).toBe("interrupted");
      for (const pid of seen) expect(isAlive(pid)).toBe(false);
      expect(taggedProcesses()).toEqual([]);
      expect(pidsListeningOn(getApp(name).port)).toEqual([]);
    }, 120_000);
  }
});
