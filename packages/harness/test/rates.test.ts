// Open-loop trials: the rate list, whether a trial kept up, capacity at a p99 budget, the
// open-loop judgement, oha's command and its output in rate mode (real captures).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findScenario, type Scenario } from "@bench/contract";
import {
  capacityAtBudget,
  levelFigures,
  RATE_TOLERANCE,
  type RateLevel,
  rateLevels,
} from "../src/analysis/rate-levels.ts";
import { judgeOpenLoop, type Measurement } from "../src/load/judge.ts";
import { parseOha } from "../src/load/parse.ts";
import { toolCommand } from "../src/load/tools.ts";
import { offeredRate, parseRates, RateError, rateVerdict } from "../src/rates/rates.ts";
import type { RateTrial } from "../src/results/schema.ts";
import { syntheticRateTrial, syntheticResult } from "./support/synthetic.ts";

const latency = (p50: number, p99: number, mean = p50) => ({
  mean,
  p50,
  p90: p99 / 2,
  p99,
  p999: p99 * 2,
  max: p99 * 3,
});

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");

describe("parseRates", () => {
  test("absolute rates and shares, in the order given", () => {
    expect(parseRates("5000, 50%,12.5%")).toEqual([
      { text: "5000", absolute: 5000 },
      { text: "50%", fraction: 0.5 },
      { text: "12.5%", fraction: 0.125 },
    ]);
  });

  test.each(["", "5k", "-5", "0", "0%", "1001%", "50 %", "abc"])("refuses %j", (list) => {
    expect(() => parseRates(list)).toThrow(RateError);
  });
});

test("offeredRate: a share of the closed-loop req/s, rounded; none without one", () => {
  expect(offeredRate({ text: "5000", absolute: 5000 }, undefined)).toBe(5000);
  expect(offeredRate({ text: "50%", fraction: 0.5 }, 20_001)).toBe(10_001);
  expect(offeredRate({ text: "50%", fraction: 0.5 }, undefined)).toBeUndefined();
  expect(offeredRate({ text: "50%", fraction: 0.5 }, 0)).toBeUndefined();
  expect(offeredRate({ text: "1%", fraction: 0.01 }, 10)).toBe(1);
});

describe("rateVerdict", () => {
  const limit = 10_000 * (1 - RATE_TOLERANCE);

  test("kept up at the tolerance, over capacity just below it", () => {
    expect(rateVerdict(10_000, limit, false)).toEqual({ overCapacity: false, notes: [] });
    const over = rateVerdict(10_000, limit - 1, false);
    expect(over.overCapacity).toBe(true);
    expect(over.notes).toEqual([
      "achieved 95% of the offered rate: over the server's capacity, its latencies are those of a queue that only grows",
    ]);
  });

  test("a saturated generator is blamed, not the server", () => {
    expect(rateVerdict(10_000, 5_000, true).notes[0]).toContain(
      "achieved 50% of the offered rate, and the load generator was saturated",
    );
  });
});

const rateTrial = (
  requested: string,
  offeredRps: number,
  p99: number,
  more: Partial<RateTrial> = {},
) => syntheticRateTrial(requested, offeredRps, latency(p99 / 4, p99), more);

describe("rateLevels and capacityAtBudget", () => {
  const trials = [
    rateTrial("50%", 10_000, 2),
    rateTrial("50%", 10_200, 4),
    rateTrial("50%", 9_800, 30, { valid: false }), // left out
    rateTrial("75%", 15_000, 8),
    rateTrial("75%", 15_200, 12),
    rateTrial("90%", 18_000, 9, { overCapacity: true }),
    rateTrial("90%", 18_200, 9),
    rateTrial("5000", 5_000, 1, { app: "node-bare" }), // another app
  ];

  test("medians per requested rate over valid trials, lowest offer first", () => {
    const levels = rateLevels(trials, "bun-bare", "api", 10);
    expect(levels.map((l) => [l.requested, l.offeredRps, l.p99Ms, l.trials])).toEqual([
      ["50%", 10_100, 3, 2],
      ["75%", 15_100, 10, 2],
      ["90%", 18_100, 9, 2],
    ]);
    // 75%: one trial of two kept the budget, not a majority; 90% kept up in one trial only.
    expect(levels.map((l) => l.withinBudget)).toEqual([true, false, false]);
    expect(levels[0]?.p99RangeMs).toEqual({ low: 2, high: 4 });
    expect(levels[2]?.overCapacity).toBe(true);
    expect(levels.map((l) => l.loadGeneratorBound)).toEqual([false, false, false]);
    const bound = rateLevels(
      [...trials, rateTrial("95%", 19_000, 9, { loadGeneratorBound: true })],
      "bun-bare",
      "api",
      10,
    );
    expect(bound.at(-1)).toMatchObject({ requested: "95%", loadGeneratorBound: true });
    expect(rateLevels(trials, "bun-bare", "api", 12).map((l) => l.withinBudget)).toEqual([
      true,
      true,
      false,
    ]);
  });

  const level = (
    offeredRps: number,
    withinBudget: boolean,
    loadGeneratorBound = false,
  ): RateLevel => ({
    requested: String(offeredRps),
    offeredRps,
    achievedRps: offeredRps,
    p50Ms: 1,
    p99Ms: withinBudget ? 1 : 100,
    p99RangeMs: { low: withinBudget ? 1 : 100, high: withinBudget ? 1 : 100 },
    trials: 1,
    overCapacity: false,
    loadGeneratorBound,
    withinBudget,
    unsent: 0,
  });

  test("a level that saturated the load generator takes no part", () => {
    expect(capacityAtBudget([level(1, true), level(2, false, true), level(3, false)])).toEqual({
      withinRps: 1,
      missedRps: 3,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, true), level(2, false, true)])).toEqual({
      withinRps: 1,
      nonMonotonic: false,
    });
  });

  test("bracketed by the highest rate that met and the lowest above it that missed", () => {
    expect(
      capacityAtBudget([level(1, true), level(2, true), level(3, false), level(4, false)]),
    ).toEqual({
      withinRps: 2,
      missedRps: 3,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, true), level(2, true)])).toEqual({
      withinRps: 2,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, false), level(2, false)])).toEqual({
      missedRps: 1,
      nonMonotonic: false,
    });
    expect(capacityAtBudget([level(1, false), level(2, true), level(3, false)])).toEqual({
      withinRps: 2,
      missedRps: 3,
      nonMonotonic: true,
    });
  });
});

describe("judgeOpenLoop", () => {
  const base: Measurement = {
    tool: "oha",
    result: syntheticResult(20_000, 1, latency(400, 900, 500)), // 10,000 "in flight": queued at the client
    requestedSec: 1,
    connections: 64,
    serverCpuPercent: 99,
    loadCpuPercent: 40,
    threads: 1,
    pinned: true,
    loadCores: 1,
    serverCores: 1,
    stealPercent: 0,
    cpuWindowSec: 0.9,
  };

  test("queueing beyond the connections is no contradiction in an open loop", () => {
    expect(judgeOpenLoop(base)).toMatchObject({
      valid: true,
      invalidReasons: [],
      loadGeneratorBound: false,
    });
  });

  test("a saturated generator is flagged even with the server saturated too", () => {
    expect(judgeOpenLoop({ ...base, loadCpuPercent: 60 }).loadGeneratorBound).toBe(true);
    expect(judgeOpenLoop({ ...base, loadCpuPercent: 59 }).loadGeneratorBound).toBe(false);
  });

  test("failed requests and impossible CPU still invalidate", () => {
    const failed = syntheticResult(20_000, 1, latency(400, 900, 500), { non2xx: 100 });
    expect(judgeOpenLoop({ ...base, result: failed }).valid).toBe(false);
    expect(judgeOpenLoop({ ...base, serverCpuPercent: 150 }).invalidReasons).toEqual([
      "server CPU 150% exceeds its 1 core(s)",
    ]);
  });
});

describe("oha in rate mode", () => {
  const scenario = findScenario("api") as Scenario;
  const plan = {
    url: "http://127.0.0.1:3004/api/test",
    scenario,
    connections: 64,
    durationSec: 2,
    cores: 1,
  };
  const oha = { name: "oha" as const, path: "/usr/bin/oha", version: "1.16.0" };

  test("the command asks for the rate and for latency from when requests were due", () => {
    const argv = toolCommand(oha, { ...plan, rate: 5000 }).argv;
    expect(argv.slice(-4)).toEqual(["-q", "5000", "--latency-correction", plan.url]);
    expect(toolCommand(oha, plan).argv).not.toContain("-q");
  });

  test("wrk and autocannon refuse a rate rather than fake one", () => {
    for (const name of ["wrk", "autocannon"] as const) {
      expect(() => toolCommand({ ...oha, name }, { ...plan, rate: 5000 })).toThrow(
        /cannot send a fixed rate/,
      );
    }
  });

  test("under capacity: the offered 2,000 req/s were sent, latencies small", () => {
    const r = parseOha(fixture("oha-rate-under.json"));
    expect(r.requests).toBe(5997);
    expect(r.requests / 3).toBeGreaterThan(2000 * (1 - RATE_TOLERANCE));
    expect(r.latencyMs.p50).toBeCloseTo(0.568057, 4);
    expect(r.latencyMs.p99).toBeCloseTo(27.995698, 4);
    expect(r.non2xx + r.socketErrors + r.timeouts).toBe(0);
  });

  test("over capacity: a fraction of the offer, latencies of a growing queue", () => {
    const r = parseOha(fixture("oha-rate-over.json"));
    expect(r.requests).toBe(23855);
    expect(rateVerdict(30_000, r.requests / 3, false).overCapacity).toBe(true);
    expect(r.latencyMs.p50).toBeCloseTo(1323.636555, 3);
    expect(r.latencyMs.max).toBeCloseTo(2219.778394, 3);
  });
});

describe("the rate list at its edges", () => {
  test("blank entries between commas are ignored", () => {
    expect(parseRates(" 5000 ,, 50% ,")).toEqual([
      { text: "5000", absolute: 5000 },
      { text: "50%", fraction: 0.5 },
    ]);
  });

  test("1000% is the largest share; shares with several decimals are shares", () => {
    expect(parseRates("1000%")).toEqual([{ text: "1000%", fraction: 10 }]);
    // 12.25 / 100 = 0.1225
    expect(parseRates("12.25%")).toEqual([{ text: "12.25%", fraction: 0.1225 }]);
  });

  test.each(["x50%", "50%x", "x5000", "5000x", "0x10", "1e3"])(
    "refuses %j: the whole entry is digits, or digits and a %",
    (list) => {
      expect(() => parseRates(list)).toThrow(RateError);
    },
  );

  test("each refusal says what was wrong", () => {
    expect(() => parseRates("0%")).toThrow("--rates: 0% must be above 0% and at most 1000%");
    expect(() => parseRates("5k")).toThrow(
      '--rates: "5k" is neither a rate in req/s (5000) nor a share (50%)',
    );
    expect(() => parseRates(" , ")).toThrow("--rates names no rate");
  });
});

describe("levels and capacity at their edges", () => {
  const t = rateTrial;

  test("only this scenario's listed rates with a result; levels by offered rate, not by order", () => {
    const levels = rateLevels(
      [
        t("3000", 3000, 2),
        t("1000", 1000, 2),
        t("1000", 1000, 2, { scenario: "json" }), // another scenario
        t("search", 2000, 2), // a search's trial: report/search-table.ts
        t("2000", 2000, 2, { result: null }), // valid but nothing measured
      ],
      "bun-bare",
      "api",
      10,
    );
    expect(levels.map((l) => [l.requested, l.trials])).toEqual([
      ["1000", 1],
      ["3000", 1],
    ]);
  });

  test("a trial that filled the machine makes its level unjudged and full", () => {
    const levels = rateLevels(
      [t("1000", 1000, 2), t("1000", 1000, 2, { machineFull: true }), t("2000", 2000, 2)],
      "bun-bare",
      "api",
      10,
    );
    expect(levels.map((l) => [l.loadGeneratorBound, l.machineFull])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  test("levelFigures: latencies over the trials with a result, rates over all, unsent summed", () => {
    const figures = levelFigures([
      t("1000", 1000, 2, { achievedRps: 990, schedule: { scheduled: 10, sent: 7, unsent: 3 } }),
      t("1000", 1000, 6, { achievedRps: 980, schedule: { scheduled: 10, sent: 6, unsent: 4 } }),
      t("1000", 1000, 0, { achievedRps: 0, result: null }),
    ]);
    // p99 2 and 6 ms → median 4, p50 = p99 / 4 → 0.5 and 1.5 → median 1; achieved 990, 980, 0 → 980.
    expect(figures).toEqual({
      offeredRps: 1000,
      achievedRps: 980,
      p50Ms: 1,
      p99Ms: 4,
      p99RangeMs: { low: 2, high: 6 },
      trials: 3,
      overCapacity: false,
      unsent: 7,
    });
  });

  const level = (requested: string, offeredRps: number, withinBudget: boolean): RateLevel => ({
    requested,
    offeredRps,
    achievedRps: offeredRps,
    p50Ms: 1,
    p99Ms: 1,
    p99RangeMs: { low: 1, high: 1 },
    trials: 1,
    overCapacity: false,
    loadGeneratorBound: false,
    withinBudget,
    unsent: 0,
  });

  test("a missed level at the very rate that met (50% = 5000) neither caps nor flips it", () => {
    expect(capacityAtBudget([level("50%", 5000, true), level("5000", 5000, false)])).toStrictEqual({
      withinRps: 5000,
      nonMonotonic: false,
    });
  });

  test("nothing measured: no bounds at all, not even undefined ones", () => {
    expect(capacityAtBudget([])).toStrictEqual({ nonMonotonic: false });
  });
});
