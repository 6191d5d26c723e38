// open-loop.ts without a server: runRates and runSearch against a fake RateContext whose load,
// floor, death and interruption are plain functions of the offered rate. Which rates are offered
// (shares of a valid closed-loop trial only), what a trial records, when the runs stop, and the
// order of a search's rates, each derived by hand from the rules in rates.ts and search.ts.
import { describe, expect, test } from "bun:test";
import { findScenario, type Scenario } from "@bench/contract";
import type { LoadRun } from "../src/load/measure.ts";
import type { LatencyMs } from "../src/load/parse.ts";
import { type RateContext, runRates, runSearch } from "../src/rates/open-loop.ts";
import type { RateSpec } from "../src/rates/rates.ts";
import type { RateTrial, Search, Trial } from "../src/results/schema.ts";
import { syntheticResult, syntheticTrial } from "./support/synthetic.ts";

const api = findScenario("api") as Scenario;
/** Every trial's requested duration: 2 s, so req/s = requests / 2. */
const SECONDS = 2;
const BUDGET_MS = 10;

const latency = (p99: number): LatencyMs => ({
  mean: 1,
  p50: 1.5,
  p90: 2,
  p99,
  p999: p99,
  max: p99 * 2,
});

type Run = LoadRun & { threads: number; connections: number };

interface Served {
  /** The server's p99 in ms; 4 unless given. */
  p99?: number;
  /** req/s answered; the offered rate unless given. */
  answered?: number;
  serverCpu?: number;
  loadCpu?: number;
  problem?: string;
  /** No result at all (the tool failed). */
  noResult?: boolean;
}

/** One trial of oha at `rate` for 2 s: `answered` req/s with the given p99. */
function served(rate: number, s: Served = {}): Run {
  const result = s.noResult
    ? null
    : syntheticResult(s.answered ?? rate, SECONDS, latency(s.p99 ?? 4));
  return {
    command: ["oha", "-q", String(rate)],
    result,
    ...(s.problem ? { problem: s.problem } : {}),
    rates: {
      serverCpuPercent: s.serverCpu ?? 50,
      loadCpuPercent: s.loadCpu ?? 20,
      stealPercent: 0,
      windowSec: 1.9,
    },
    peakRssBytes: 50 * 1024 * 1024,
    threads: 1,
    connections: 64,
  };
}

interface Fake {
  /** What the server does at each offered rate. */
  serve?: (rate: number) => Served;
  /** The generator's own p99 at a rate. */
  floor?: (rate: number) => number | undefined;
  /** The app's exit message once `load` has run at this rate. */
  diesAt?: number;
  /** Interrupted while the trial at this rate runs, or while its floor is measured. */
  stopDuringLoad?: number;
  stopDuringFloor?: number;
  /** Interrupted after this many trials were recorded. */
  stopAfterTrials?: number;
  rates?: RateSpec[];
  pinned?: boolean;
  loadCores?: number;
}

/** A RateContext whose calls are recorded. */
function fake(f: Fake = {}) {
  const seen = {
    loads: [] as number[],
    floors: [] as number[],
    trials: [] as RateTrial[],
    searches: [] as Search[],
    logs: [] as string[],
  };
  let stopped = false;
  let dead = false;
  const ctx: RateContext = {
    rates: f.rates ?? [],
    tool: { name: "oha", path: "/usr/bin/oha", version: "1.4.0" },
    durationSec: SECONDS,
    pinned: f.pinned ?? true,
    loadCores: f.loadCores ?? 1,
    serverCores: 1,
    sloP99Ms: BUDGET_MS,
    load: async (rate) => {
      seen.loads.push(rate);
      if (rate === f.diesAt) dead = true;
      if (rate === f.stopDuringLoad) stopped = true;
      return served(rate, f.serve?.(rate));
    },
    floor: async (rate) => {
      seen.floors.push(rate);
      if (rate === f.stopDuringFloor) stopped = true;
      return f.floor?.(rate);
    },
    add: (t) => {
      seen.trials.push(t);
      if (seen.trials.length === f.stopAfterTrials) stopped = true;
    },
    addSearch: (s) => seen.searches.push(s),
    log: (m) => seen.logs.push(m),
    died: () => (dead ? "bun-bare exited with code 1 during the trial" : undefined),
    interrupted: () => stopped,
  };
  return { ctx, seen };
}

const closedLoop = (rps: number, valid = true): Trial => {
  const t = syntheticTrial("bun-bare", "api", 1, 64, rps, 5);
  return { ...t, checks: { ...t.checks, valid } };
};

const share = (percent: number): RateSpec => ({ text: `${percent}%`, fraction: percent / 100 });
const absolute = (rate: number): RateSpec => ({ text: String(rate), absolute: rate });

describe("runRates: the rates offered after a closed-loop trial", () => {
  test("shares of a valid trial's req/s and absolute rates, in the order asked", async () => {
    const { ctx, seen } = fake({ rates: [share(50), absolute(3000), share(150)] });
    expect(await runRates(ctx, "bun-bare", api, 2, closedLoop(10_000))).toBe(true);
    // 50% and 150% of 10,000 req/s; 3000 as asked.
    expect(seen.loads).toEqual([5000, 3000, 15_000]);
    expect(seen.trials.map((t) => [t.requested, t.offeredRps, t.round, t.app, t.scenario])).toEqual(
      [
        ["50%", 5000, 2, "bun-bare", "api"],
        ["3000", 3000, 2, "bun-bare", "api"],
        ["150%", 15_000, 2, "bun-bare", "api"],
      ],
    );
    expect(seen.logs[0]).toBe("  bun-bare · api: 50% → 5000 req/s offered, 2 s");
  });

  test("an invalid closed-loop trial: its req/s is no base, shares skipped, absolute rates run", async () => {
    const { ctx, seen } = fake({ rates: [share(50), absolute(3000)] });
    expect(await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000, false))).toBe(true);
    expect(seen.loads).toEqual([3000]);
    expect(seen.trials.map((t) => t.requested)).toEqual(["3000"]);
    expect(seen.logs[0]).toBe("  bun-bare · api: rate 50% skipped: no valid closed-loop req/s");
  });

  test("a closed-loop trial without a result: shares skipped", async () => {
    const { ctx, seen } = fake({ rates: [share(50), absolute(3000)] });
    const none = { ...closedLoop(10_000), result: null };
    expect(await runRates(ctx, "bun-bare", api, 1, none)).toBe(true);
    expect(seen.loads).toEqual([3000]);
  });

  test("the app dies during a trial: that trial recorded as invalid, no more trials", async () => {
    const { ctx, seen } = fake({
      rates: [absolute(1000), absolute(3000), absolute(5000)],
      diesAt: 3000,
    });
    expect(await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000))).toBe(false);
    expect(seen.loads).toEqual([1000, 3000]);
    expect(seen.trials.map((t) => t.valid)).toEqual([true, false]);
    expect(seen.trials[1]?.invalidReasons).toContain(
      "bun-bare exited with code 1 during the trial",
    );
  });

  test("interrupted during a trial: nothing recorded of it, and no more", async () => {
    const { ctx, seen } = fake({ rates: [absolute(1000), absolute(3000)], stopDuringLoad: 1000 });
    expect(await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000))).toBe(true);
    expect(seen.loads).toEqual([1000]);
    expect(seen.trials).toEqual([]);
  });

  test("interrupted between trials: the next one does not start", async () => {
    const { ctx, seen } = fake({ rates: [absolute(1000), absolute(3000)], stopAfterTrials: 1 });
    expect(await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000))).toBe(true);
    expect(seen.loads).toEqual([1000]);
    expect(seen.trials).toHaveLength(1);
  });
});

describe("a rate trial's record and its line", () => {
  const one = async (f: Fake, rate = 3000) => {
    const { ctx, seen } = fake({ rates: [absolute(rate)], ...f });
    await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000));
    return { trial: seen.trials[0] as RateTrial, line: seen.logs.at(-1) };
  };

  test("a trial that kept up: the figures, the schedule and what was left unsent", async () => {
    const { trial, line } = await one({ serve: () => ({ answered: 2900 }) });
    // 2900 req/s for 2 s = 5800 requests; achieved over the requested 2 s = 2900 req/s, above
    // 3000 × 0.95 = 2850: kept up. Due: floor(3000 × (2 − 0.002)) + 1 = 5995, 195 never sent.
    expect(trial).toMatchObject({
      command: ["oha", "-q", "3000"],
      requested: "3000",
      offeredRps: 3000,
      achievedRps: 2900,
      connections: 64,
      requestedSec: 2,
      server: { cpuPercent: 50, peakRssMiB: 50 },
      // Pinned: the generator has its 1 core, run by its 1 thread.
      loadGenerator: { cpuPercent: 20, capacityCores: 1, threads: 1 },
      overCapacity: false,
      loadGeneratorBound: false,
      schedule: { scheduled: 5995, sent: 5800, unsent: 195 },
      errorRate: 0,
      valid: true,
      invalidReasons: [],
      notes: [],
    });
    expect(trial.result?.requests).toBe(5800);
    expect("machineFull" in trial).toBe(false);
    expect("floorP99Ms" in trial).toBe(false);
    expect(line).toBe(
      "  bun-bare · api @ 3000: 2900 of 3000 req/s, p50 1.50 ms, p99 4.00 ms, 195 unsent",
    );
  });

  test("everything sent: no unsent count in the line", async () => {
    // 1000 req/s for 2 s: 2000 sent, floor(1000 × 1.998) + 1 = 1999 due.
    const { trial, line } = await one({}, 1000);
    expect(trial.schedule).toEqual({ scheduled: 1999, sent: 2000, unsent: 0 });
    expect(line).toBe("  bun-bare · api @ 1000: 1000 of 1000 req/s, p50 1.50 ms, p99 4.00 ms");
  });

  test("fell short of the offer: over capacity, with a note", async () => {
    // 2000 of 3000 req/s: below 2850, two thirds (67%) of the offer.
    const { trial, line } = await one({ serve: () => ({ answered: 2000 }) });
    expect(trial.overCapacity).toBe(true);
    expect(trial.notes).toEqual([
      "achieved 67% of the offered rate: over the server's capacity, its latencies are those of a queue that only grows",
    ]);
    expect(line).toEndWith(" · OVER CAPACITY");
  });

  test("a busy generator: load-generator bound", async () => {
    // 80% of its one core ≥ 60%.
    const { trial, line } = await one({ serve: () => ({ loadCpu: 80 }) });
    expect(trial.loadGeneratorBound).toBe(true);
    expect(line).toEndWith(" · LOAD-GENERATOR BOUND");
  });

  test("unpinned and both busy on a shared machine: machine full, not the generator", async () => {
    // 100% + 90% of 2 shared cores ≥ 90% of 200%; the generator's capacity is its one thread.
    const { trial, line } = await one({
      pinned: false,
      loadCores: 2,
      serve: () => ({ serverCpu: 100, loadCpu: 90 }),
    });
    expect(trial.machineFull).toBe(true);
    expect(trial.loadGeneratorBound).toBe(false);
    expect(trial.loadGenerator.capacityCores).toBe(1);
    expect(line).toEndWith(" · MACHINE FULL");
  });

  test("the tool failed and the app died: no result, nothing achieved, invalid for both", async () => {
    const { trial, line } = await one({
      serve: () => ({ noResult: true, problem: "oha exited with status 1" }),
      diesAt: 3000,
    });
    // Nothing answered: 0 < 3000 × 0.95, over capacity as well.
    expect(trial).toMatchObject({ result: null, achievedRps: 0, valid: false, overCapacity: true });
    expect(trial.invalidReasons).toEqual([
      "oha exited with status 1",
      "bun-bare exited with code 1 during the trial",
    ]);
    // Nothing sent: all 5995 due requests unsent.
    expect(trial.schedule).toEqual({ scheduled: 5995, sent: 0, unsent: 5995 });
    expect(line).toBe(
      "  bun-bare · api @ 3000: 0 of 3000 req/s, no result, 5995 unsent · INVALID: oha exited with status 1; bun-bare exited with code 1 during the trial · OVER CAPACITY",
    );
  });

  test("a result too short for the 2 s asked: invalid, the window judged against 2 s", async () => {
    const { ctx, seen } = fake({ rates: [absolute(1000)] });
    const short = served(1000);
    ctx.load = async () => ({
      ...short,
      result: short.result && { ...short.result, durationSec: 1 },
    });
    await runRates(ctx, "bun-bare", api, 1, closedLoop(10_000));
    expect(seen.trials[0]?.invalidReasons).toEqual(["oha measured 1.00 s of the 2 s asked for"]);
  });
});

/** The rates a search offered, in order, with what it recorded. */
async function searchOf(f: Fake, closed = 1000) {
  const { ctx, seen } = fake(f);
  const done = await runSearch(ctx, "bun-bare", api, 3, closed);
  return { done, ...seen };
}

/** p99 4 ms up to `limit` req/s, 30 ms above it: within a 10 ms budget only up to `limit`. */
const slowAbove = (limit: number) => (rate: number) => ({ p99: rate <= limit ? 4 : 30 });

describe("runSearch", () => {
  test("within at every rate: doubles to 4× the closed loop, repeats the top, stops", async () => {
    const s = await searchOf({});
    // 1000, then doubling while ≤ 4 × 1000, then the top level up to 3 trials in all.
    expect(s.loads).toEqual([1000, 2000, 4000, 4000, 4000]);
    expect(s.done).toBe(true);
    expect(s.floors).toEqual([]);
    expect(s.trials.map((t) => [t.requested, t.offeredRps, t.round])).toEqual(
      s.loads.map((r) => ["search", r, 3]),
    );
    expect(s.searches).toHaveLength(1);
    expect(s.searches[0]).toMatchObject({
      app: "bun-bare",
      scenario: "api",
      closedLoopRps: 1000,
      trials: 5,
    });
    expect(s.searches[0]?.elapsedSec).toBeGreaterThanOrEqual(0);
    expect(s.logs[0]).toBe("  bun-bare · api: search, 1000 req/s offered, 2 s");
  });

  test("over at every rate: halves down to 1/64 of the closed loop, then stops", async () => {
    const s = await searchOf({ serve: () => ({ p99: 30 }) });
    // 1000/2 = 500, 250, 125, 62.5 → 63, 31.5 → 32, 16; 8 < 1000/64 = 15.6: done.
    expect(s.loads).toEqual([1000, 500, 250, 125, 63, 32, 16]);
    // Each a latency miss: the generator's own p99 measured at each rate (here: unknown).
    expect(s.floors).toEqual(s.loads);
    expect(s.trials.every((t) => !("floorP99Ms" in t))).toBe(true);
    expect(s.searches[0]?.trials).toBe(7);
  });

  test("bisects to the capacity, repeats both ends; the floor measured once per rate", async () => {
    const s = await searchOf({ serve: slowAbove(1000), floor: () => 2 });
    // Bracket [1000, 2000], midpoints 1500, 1250, 1125, 1062.5 → 1063, 1031.5 → 1032 (within
    // 5% of 1000), then 1000 and 1032 each to 3 trials.
    expect(s.loads).toEqual([1000, 2000, 1500, 1250, 1125, 1063, 1032, 1000, 1000, 1032, 1032]);
    // 30 − 2 ms still over 10 ms: over. The floor of 1032 is measured once, kept for its repeats.
    expect(s.floors).toEqual([2000, 1500, 1250, 1125, 1063, 1032]);
    expect(s.trials.filter((t) => t.offeredRps > 1000).map((t) => t.floorP99Ms)).toEqual(
      Array(8).fill(2),
    );
    expect(s.trials.filter((t) => t.offeredRps === 1000).every((t) => !("floorP99Ms" in t))).toBe(
      true,
    );
    expect(s.logs).toContain(
      "  bun-bare · api @ search: 1032 of 1032 req/s, p50 1.50 ms, p99 30.00 ms, generator alone p99 2.00 ms",
    );
    expect(s.searches[0]?.trials).toBe(11);
  });

  test("a miss the generator's own p99 explains is not judged: its end is not repeated", async () => {
    // 30 − 25 ms ≤ 10 ms: not judged above 1000, so only the lower end is repeated.
    const s = await searchOf({ serve: slowAbove(1000), floor: () => 25 });
    expect(s.loads).toEqual([1000, 2000, 1500, 1250, 1125, 1063, 1032, 1000, 1000]);
  });

  test.each<[string, Fake]>([
    ["over capacity", { serve: () => ({ p99: 30, answered: 500 }) }],
    ["invalid", { serve: () => ({ p99: 30, problem: "oha exited with status 1" }) }],
    ["load-generator bound", { serve: () => ({ p99: 30, loadCpu: 80 }) }],
    [
      "machine full",
      { pinned: false, loadCores: 2, serve: () => ({ p99: 30, serverCpu: 100, loadCpu: 90 }) },
    ],
    ["at the budget exactly", { serve: () => ({ p99: BUDGET_MS }) }],
  ])("%s: no latency miss, no floor measured", async (_, f) => {
    const s = await searchOf({ ...f, stopAfterTrials: 1 });
    expect(s.loads).toEqual([1000]);
    expect(s.floors).toEqual([]);
    expect(s.trials).toHaveLength(1);
  });

  test("the app dies: its trial recorded, the search ends unfinished", async () => {
    const s = await searchOf({ serve: () => ({ p99: 30 }), diesAt: 500 });
    expect(s.done).toBe(false);
    expect(s.loads).toEqual([1000, 500]);
    expect(s.trials.map((t) => t.valid)).toEqual([true, false]);
    expect(s.floors).toEqual([1000]);
    expect(s.searches).toEqual([]);
  });

  test.each<[string, Fake, number[], number]>([
    ["during a trial", { stopDuringLoad: 2000 }, [1000, 2000], 1],
    ["between trials", { stopAfterTrials: 2 }, [1000, 2000], 2],
    [
      "while the floor is measured",
      { serve: () => ({ p99: 30 }), stopDuringFloor: 500 },
      [1000, 500],
      1,
    ],
  ])("interrupted %s: nothing more recorded, no search summary", async (_, f, loads, trials) => {
    const s = await searchOf(f);
    expect(s.done).toBe(true);
    expect(s.loads).toEqual(loads);
    expect(s.trials).toHaveLength(trials);
    expect(s.searches).toEqual([]);
  });
});
