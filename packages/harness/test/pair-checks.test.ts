// One side-by-side sample's arithmetic and judgement (side/pair-checks.ts), on crafted
// measurements at both sides of every threshold.
import { describe, expect, test } from "bun:test";
import { CLK_TCK } from "../src/load/procstats.ts";
import {
  judgePair,
  overlap,
  type PairMeasurement,
  type PairRates,
  type PairSample,
  pairRates,
} from "../src/side/pair-checks.ts";
import { syntheticResult } from "./support/synthetic.ts";

describe("the window and the CPU figures", () => {
  test("the overlap of the two generators' load windows", () => {
    expect(overlap({ startMs: 100, endMs: 1100 }, { startMs: 130, endMs: 1080 })).toEqual({
      startMs: 130,
      endMs: 1080,
    });
  });

  // 0–2000 ms: server A at 30%, B at 70% of the core (ns), generators 40% and 45% (ticks),
  // the servers' core 5% idle, the generators' 15%, steal 2% of one core.
  const samples: PairSample[] = [];
  for (let t = 0; t <= 2000; t += 100) {
    const s = t / 1000;
    samples.push({
      t,
      serverNs: [0.3 * s * 1e9, 0.7 * s * 1e9],
      toolTicks: [0.4 * s * CLK_TCK, 0.45 * s * CLK_TCK],
      serverIdleTicks: 0.05 * s * CLK_TCK,
      loadIdleTicks: 0.15 * s * CLK_TCK,
      stealTicks: 0.02 * s * CLK_TCK,
    });
  }

  test("percentages over the samples inside the window", () => {
    const r = pairRates(samples, { startMs: 200, endMs: 1800 }, { machine: 2, server: 1, load: 1 });
    expect(r?.windowSec).toBeCloseTo(1.6, 9);
    expect(r?.serverCpuPercent[0]).toBeCloseTo(30, 6);
    expect(r?.serverCpuPercent[1]).toBeCloseTo(70, 6);
    expect(r?.loadCpuPercent[0]).toBeCloseTo(40, 6);
    expect(r?.loadCpuPercent[1]).toBeCloseTo(45, 6);
    expect(r?.serverCoreIdlePercent).toBeCloseTo(5, 6);
    expect(r?.loadCoreIdlePercent).toBeCloseTo(15, 6);
    expect(r?.stealPercent).toBeCloseTo(1, 6); // 2% of one core over two cores
    // Two CPUs in a set: idle per CPU.
    const two = pairRates(
      samples,
      { startMs: 200, endMs: 1800 },
      { machine: 2, server: 2, load: 1 },
    );
    expect(two?.serverCoreIdlePercent).toBeCloseTo(2.5, 6);
  });

  test("steal on the servers' CPU set, a share of it, where both ends read it", () => {
    const stolen = samples.map((x) => ({ ...x, serverStealTicks: x.stealTicks / 2 }));
    const at = (server: number) =>
      pairRates(stolen, { startMs: 200, endMs: 1800 }, { machine: 2, server, load: 1 });
    expect(at(1)?.serverStealPercent).toBeCloseTo(1, 6);
    expect(at(2)?.serverStealPercent).toBeCloseTo(0.5, 6);
    expect(at(0)).not.toHaveProperty("serverStealPercent");
    const once = stolen.map((x, i) => (i === 5 ? x : { ...x, serverStealTicks: undefined }));
    expect(
      pairRates(once, { startMs: 200, endMs: 1800 }, { machine: 2, server: 1, load: 1 }),
    ).not.toHaveProperty("serverStealPercent");
  });

  test("unpinned: no idle figure of a set; fewer than two samples: nothing", () => {
    const r = pairRates(samples, { startMs: 200, endMs: 1800 }, { machine: 2, server: 0, load: 0 });
    expect(r?.serverCoreIdlePercent).toBeUndefined();
    expect(r?.loadCoreIdlePercent).toBeUndefined();
    expect(
      pairRates(samples, { startMs: 210, endMs: 290 }, { machine: 2, server: 1, load: 1 }),
    ).toBeUndefined();
    expect(
      pairRates(samples, { startMs: 150, endMs: 250 }, { machine: 2, server: 1, load: 1 }),
    ).toBeUndefined();
  });
});

const RATES: PairRates = {
  serverCpuPercent: [49, 50],
  loadCpuPercent: [40, 35],
  serverCoreIdlePercent: 0,
  loadCoreIdlePercent: 20,
  stealPercent: 0,
  windowSec: 0.8,
};

/** 40,000 requests in 1 s at 1 ms mean on 50 connections (40 in flight), 10 µs of CPU each. */
function measured(
  patch: Partial<PairMeasurement> = {},
  rates: Partial<PairRates> = {},
): PairMeasurement {
  const side = (app: string) => ({
    app,
    result: syntheticResult(40_000, 1, { mean: 1, p50: 1, p90: 2, p99: 4, p999: 8, max: 12 }),
    connections: 50,
    cpuNs: 4e8,
  });
  return {
    tool: "wrk",
    requestedSec: 1,
    sides: [side("bun-bare"), side("node-bare")],
    rates: { ...RATES, ...rates },
    serverCores: 1,
    loadCores: 1,
    ...patch,
  };
}

describe("judgePair", () => {
  test("a clean sample: valid, nothing to flag", () => {
    expect(judgePair(measured())).toStrictEqual({
      valid: true,
      invalidReasons: [],
      unsaturated: false,
      generatorCeiling: false,
      contended: false,
      notes: [],
    });
  });

  test("the servers' core idle 10% or more: unsaturated; 9.9% is not", () => {
    const at = judgePair(measured({}, { serverCoreIdlePercent: 10 }));
    expect(at.unsaturated).toBe(true);
    expect(at.valid).toBe(true);
    expect(at.notes).toEqual([
      "unsaturated: the servers did not fill their core (servers 49% + 50% of their core (10% idle), generators 40% + 35% (their core 20% idle))",
    ]);
    expect(judgePair(measured({}, { serverCoreIdlePercent: 9.9 })).unsaturated).toBe(false);
  });

  test("no idle figure of the generators' set: their CPU alone in the note", () => {
    const r = judgePair(
      measured({}, { serverCoreIdlePercent: 12, loadCoreIdlePercent: undefined }),
    );
    expect(r.notes).toEqual([
      "unsaturated: the servers did not fill their core (servers 49% + 50% of their core (12% idle), generators 40% + 35%)",
    ]);
  });

  test("unpinned, no idle figure of either set: nothing judged from idle time", () => {
    const rates = { serverCoreIdlePercent: undefined, loadCoreIdlePercent: undefined };
    const r = judgePair(measured({}, rates));
    expect([r.valid, r.unsaturated, r.generatorCeiling, r.contended]).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(r.notes).toEqual([]);
  });

  test("...because the generators used all they can: GENERATOR CEILING instead", () => {
    const byCpu = judgePair(measured({}, { serverCoreIdlePercent: 12, loadCpuPercent: [50, 45] }));
    expect([byCpu.generatorCeiling, byCpu.unsaturated]).toEqual([true, false]);
    expect(byCpu.notes[0]).toStartWith("generator ceiling: the generators used all they can");
    const byIdle = judgePair(measured({}, { serverCoreIdlePercent: 12, loadCoreIdlePercent: 5 }));
    expect(byIdle.generatorCeiling).toBe(true);
    const short = judgePair(
      measured({}, { serverCoreIdlePercent: 12, loadCpuPercent: [50, 44.9] }),
    );
    expect(short.generatorCeiling).toBe(false);
    expect(
      judgePair(measured({}, { serverCoreIdlePercent: 12, loadCoreIdlePercent: 5.1 }))
        .generatorCeiling,
    ).toBe(false);
    // Two generator cores: 120% of them is 60%, far from full.
    const twoCores = judgePair(
      measured({ loadCores: 2 }, { serverCoreIdlePercent: 12, loadCpuPercent: [60, 60] }),
    );
    expect([twoCores.generatorCeiling, twoCores.unsaturated]).toEqual([false, true]);
    // A full generator core with the servers saturated is no ceiling: the cost was measured at full load.
    expect(judgePair(measured({}, { loadCoreIdlePercent: 0 })).generatorCeiling).toBe(false);
  });

  test("something else on the servers' core, or steal: contended", () => {
    // 99% of it theirs: 100 − 0 − 99 = 1 point of other work; 25 points is contention.
    const other = judgePair(measured({}, { serverCpuPercent: [35, 40] }));
    expect(other.contended).toBe(true);
    expect(other.notes).toContain(
      "contended: the servers' core was 100% busy while they used 75% of it",
    );
    expect(judgePair(measured({}, { serverCpuPercent: [40, 40] })).contended).toBe(false); // 20 points
    expect(judgePair(measured({}, { stealPercent: 21 })).contended).toBe(true);
    expect(judgePair(measured({}, { stealPercent: 20 })).contended).toBe(false);
  });

  test("contention counts the core's idle time: 96% busy, 75% theirs", () => {
    const r = judgePair(measured({}, { serverCoreIdlePercent: 4, serverCpuPercent: [35, 40] }));
    expect(r.notes).toEqual([
      "contended: the servers' core was 96% busy while they used 75% of it",
    ]);
    // 95% busy: 20 points of other work, not more.
    const idle5 = measured({}, { serverCoreIdlePercent: 5, serverCpuPercent: [35, 40] });
    expect(judgePair(idle5).contended).toBe(false);
  });

  test("two server CPUs: their use is per CPU against the set's busy share", () => {
    // 90% busy per CPU, the servers 40% + 50% of one: 45% of each, 45 points of other work.
    const r = judgePair(
      measured({ serverCores: 2 }, { serverCoreIdlePercent: 10, serverCpuPercent: [40, 50] }),
    );
    expect(r.contended).toBe(true);
    expect(r.notes).toContain(
      "contended: the servers' core was 90% busy while they used 45% of it",
    );
  });

  test("steal, and both reasons at once, in one note", () => {
    expect(judgePair(measured({}, { stealPercent: 21 })).notes).toEqual([
      "contended: CPU steal 21.0%",
    ]);
    const both = judgePair(measured({}, { serverCpuPercent: [35, 40], stealPercent: 22.5 }));
    expect(both.notes).toEqual([
      "contended: the servers' core was 100% busy while they used 75% of it, CPU steal 22.5%",
    ]);
  });

  test("a side that failed makes the sample invalid, named by its app", () => {
    const failing = measured();
    const result = syntheticResult(
      40_000,
      1,
      { mean: 1, p50: 1, p90: 2, p99: 4, p999: 8, max: 12 },
      { non2xx: 100 },
    );
    const bad = judgePair({
      ...failing,
      sides: [failing.sides[0], { ...failing.sides[1], result }],
    });
    expect(bad.valid).toBe(false);
    expect(bad.invalidReasons[0]).toStartWith("node-bare: 100 failed requests");
    const died = judgePair({
      ...failing,
      sides: [{ ...failing.sides[0], appDied: "the app exited (1)" }, failing.sides[1]],
    });
    expect(died.invalidReasons).toEqual(["bun-bare: the app exited (1)"]);
    const noCpu = judgePair({
      ...failing,
      sides: [{ ...failing.sides[0], cpuNs: 0 }, failing.sides[1]],
    });
    expect(noCpu.invalidReasons).toEqual(["bun-bare: no CPU time measured for its server"]);
  });

  test("no requests counted: no CPU time is expected of the server", () => {
    const m = measured();
    const hung = { ...m.sides[0], result: null, problem: "wrk hung", cpuNs: 0 };
    expect(judgePair({ ...m, sides: [hung, m.sides[1]] }).invalidReasons).toEqual([
      "bun-bare: wrk hung",
    ]);
    const none = syntheticResult(0, 1, { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
    const silent = { ...m.sides[1], result: none, cpuNs: 0 };
    const reasons = judgePair({ ...m, sides: [m.sides[0], silent] }).invalidReasons;
    expect(reasons[0]).toBe("node-bare: no responses");
    expect(reasons).not.toContain("node-bare: no CPU time measured for its server");
  });

  test("physically impossible figures: more in flight than connections, more CPU than cores", () => {
    const base = measured();
    const crowded = { ...base.sides[0], connections: 30 }; // 40 in flight on 30 connections
    expect(judgePair({ ...base, sides: [crowded, base.sides[1]] }).invalidReasons[0]).toStartWith(
      "bun-bare: in-flight requests 40.0 exceed the 30 connections",
    );
    expect(judgePair(measured({}, { serverCpuPercent: [55, 51] })).invalidReasons).toEqual([
      "the servers' CPU 106% exceeds their 1 core(s)",
    ]);
    expect(judgePair(measured({}, { serverCpuPercent: [55, 50] })).valid).toBe(true); // 105%
    expect(judgePair(measured({}, { loadCpuPercent: [60, 46] })).invalidReasons).toEqual([
      "the generators' CPU 106% exceeds their 1 core(s)",
    ]);
    expect(judgePair(measured({}, { loadCpuPercent: [60, 45] })).valid).toBe(true); // 105%
  });

  test("in flight up to 5% over the connections is within tolerance", () => {
    const base = measured();
    const on = (connections: number) =>
      judgePair({ ...base, sides: [{ ...base.sides[0], connections }, base.sides[1]] });
    expect(on(40).valid).toBe(true); // 40 in flight on 40
    const result = syntheticResult(42_000, 1, {
      mean: 1,
      p50: 1,
      p90: 2,
      p99: 4,
      p999: 8,
      max: 12,
    });
    const side = { ...base.sides[0], result, connections: 40 }; // 42 on 40: ×1.05
    expect(judgePair({ ...base, sides: [side, base.sides[1]] }).valid).toBe(true);
  });

  test("a server thread that exited during the sample: noted, the sample kept", () => {
    const m = measured();
    const r = judgePair({ ...m, sides: [m.sides[0], { ...m.sides[1], threadsExited: 2 }] });
    expect(r.valid).toBe(true);
    expect(r.notes).toEqual([
      `${m.sides[1].app}: 2 server thread(s) exited during the sample; their CPU time in it is not counted`,
    ]);
  });

  test("CPU not measured: said, and nothing flagged from it", () => {
    const { rates: _, ...rest } = measured();
    const r = judgePair(rest);
    expect(r.valid).toBe(true);
    expect(r.notes).toEqual(["CPU not measured over the window: too short to sample"]);
    expect([r.unsaturated, r.generatorCeiling, r.contended]).toEqual([false, false, false]);
    const died = { ...rest.sides[0], appDied: "the app exited (1)" };
    const invalid = judgePair({ ...rest, sides: [died, rest.sides[1]] });
    expect([invalid.valid, invalid.invalidReasons]).toEqual([
      false,
      ["bun-bare: the app exited (1)"],
    ]);
  });
});
