// The judgement of a trial, on crafted measurements at both sides of every threshold: a
// regression in a threshold or a flag turns one of these red.
import { describe, expect, test } from "bun:test";
import {
  contentionNote,
  generatorCapacity,
  judge,
  judgeOpenLoop,
  type Measurement,
  machineFull,
  networkNote,
} from "../src/load/judge.ts";
import type { LoadResult } from "../src/load/parse.ts";
import {
  AUTOCANNON_MIN_MEAN_MS,
  ERROR_THRESHOLD,
  LINK_FULL,
  LITTLE_IDLE,
  LITTLE_TOLERANCE,
  LOAD_BUSY,
  OPEN_LOAD_BUSY,
  RTT_SHARE,
  SERVER_BUSY,
} from "../src/load/thresholds.ts";
import { openLoopLatency as latency } from "./support/rate-trials.ts";
import { syntheticResult } from "./support/synthetic.ts";

function result(patch: Partial<LoadResult> = {}, mean = 4): LoadResult {
  const latency = { mean, p50: 3, p90: 6, p99: 12, p999: 30, max: 50 };
  return syntheticResult(10_000, 10, latency, patch);
}

/** 10,000 req/s at 4 ms mean on 50 connections: 40 in flight (0.8). Server saturated. */
function measured(patch: Partial<Measurement> = {}): Measurement {
  return {
    tool: "wrk",
    result: result(),
    requestedSec: 10,
    connections: 50,
    serverCpuPercent: 99,
    loadCpuPercent: 60,
    threads: 1,
    pinned: true,
    loadCores: 1,
    serverCores: 1,
    stealPercent: 0,
    cpuWindowSec: 9.5,
    ...patch,
  };
}

describe("a clean trial", () => {
  test("valid, no flag, no note", () => {
    const { checks } = judge(measured());
    expect(checks).toEqual({
      machineFull: false,
      errorRate: 0,
      valid: true,
      invalidReasons: [],
      loadGeneratorBound: false,
      unsaturated: false,
      contended: false,
      generatorCeiling: false,
      littlesLaw: { inFlight: 40, ratio: 0.8, checked: true, ok: true },
      notes: [],
    });
  });
});

describe("the generator's ceiling: a lower bound of the server's capacity", () => {
  test("the generator at 95% of what it can use: GENERATOR CEILING, even with the server full", () => {
    const at = judge(measured({ loadCpuPercent: 95, serverCoreIdlePercent: 0 })).checks;
    expect(at.generatorCeiling).toBe(true);
    expect(at.valid).toBe(true);
    expect(at.loadGeneratorBound).toBe(false); // the server was saturated too
    expect(at.notes).toContain(
      "generator ceiling: wrk used 95% of what it can (1.00 cores): a lower bound of the server's capacity",
    );
    expect(judge(measured({ loadCpuPercent: 94.9 })).checks.generatorCeiling).toBe(false);
    // What it can use: two threads on a 2-core set reach their ceiling at 190%.
    const two = { threads: 2, loadCores: 2 };
    expect(judge(measured({ ...two, loadCpuPercent: 190 })).checks.generatorCeiling).toBe(true);
    expect(judge(measured({ ...two, loadCpuPercent: 189 })).checks.generatorCeiling).toBe(false);
  });

  test("connections waiting on the generator while the server's core had room", () => {
    // 10,000 req/s × 4 ms = 40 in flight: 89% of 45 connections, 80% of 50.
    const idle = (connections: number, serverCoreIdlePercent: number) =>
      judge(measured({ connections, serverCoreIdlePercent })).checks;
    expect(idle(50, 3).generatorCeiling).toBe(true);
    expect(idle(50, 3).notes).toContain(
      "generator ceiling: 40.0 requests in flight on 50 connections (80%) while the server's core was 3% idle: a lower bound of the server's capacity",
    );
    expect(idle(50, 2.9).generatorCeiling).toBe(false); // no room on the server's core
    expect(idle(44.5, 3).generatorCeiling).toBe(true); // 0.899 of the connections
    expect(idle(44.4, 3).generatorCeiling).toBe(false); // 0.901: busy enough
    // Unpinned: no core of its own to have room on.
    expect(judge(measured({ connections: 50 })).checks.generatorCeiling).toBe(false);
  });

  test("CPU not measured, or Little's law not checkable: no ceiling judged", () => {
    const unmeasured = measured({ loadCpuPercent: 99, cpuWindowSec: 0, serverCoreIdlePercent: 9 });
    expect(judge(unmeasured).checks.generatorCeiling).toBe(false);
    const autocannon = measured({ tool: "autocannon", serverCoreIdlePercent: 9 });
    expect(judge(autocannon).checks.generatorCeiling).toBe(false); // 4 ms < its 20 ms resolution
  });
});

describe("contention: the server's core busy with something else, or steal", () => {
  test("a server at 35% of a core whose core was 0% idle: CONTENDED, and said why", () => {
    // The case the issue names: server 33–40%, wrk 29–40%, server core 0% idle.
    const { checks } = judge(
      measured({ serverCpuPercent: 35, loadCpuPercent: 35, serverCoreIdlePercent: 0 }),
    );
    expect(checks.contended).toBe(true);
    expect(checks.valid).toBe(true);
    expect(checks.notes).toContain(
      "contended: the server's core was 100% busy while the server used 35% of it: something else had the CPU (not the server's best)",
    );
  });

  test("exactly at the boundary: 20 points of other work is not contention, 21 is", () => {
    const at = (idle: number) =>
      judge(measured({ serverCpuPercent: 70, serverCoreIdlePercent: idle })).checks.contended;
    expect(at(10)).toBe(false); // busy 90, server 70: 20 points
    expect(at(9)).toBe(true); // busy 91: 21 points
  });

  test("kernel work for a saturated server is not contention", () => {
    const { checks } = judge(measured({ serverCpuPercent: 97, serverCoreIdlePercent: 0 }));
    expect(checks.contended).toBe(false);
  });

  test("N workers: the server's busy share is per core of its set", () => {
    const m = measured({
      serverCpuPercent: 170,
      serverCores: 2,
      workers: 2,
      serverCoreIdlePercent: 10,
    });
    expect(judge(m).checks.contended).toBe(false);
    expect(judge({ ...m, serverCpuPercent: 120 }).checks.contended).toBe(true);
  });

  test("steal above 20% of the machine is contention too; 20% is not", () => {
    expect(judge(measured({ stealPercent: 20 })).checks.contended).toBe(false);
    const { checks } = judge(measured({ stealPercent: 25.5 }));
    expect(checks.contended).toBe(true);
    expect(checks.notes.at(-1)).toContain("CPU steal 25.5%");
  });

  test("unpinned (no core of its own) or CPU not measured: no contention judged", () => {
    expect(judge(measured({ serverCpuPercent: 30 })).checks.contended).toBe(false);
    const unmeasured = measured({
      serverCpuPercent: 30,
      serverCoreIdlePercent: 0,
      cpuWindowSec: 0,
    });
    expect(judge(unmeasured).checks.contended).toBe(false);
  });
});

describe("failed requests", () => {
  // 100,000 requests: the threshold (0.01%) is 10 failures.
  const limit = Math.round(100_000 * ERROR_THRESHOLD);
  for (const kind of ["non2xx", "socketErrors", "timeouts"] as const) {
    test(`${kind}: ${limit} is valid, ${limit + 1} is not`, () => {
      expect(judge(measured({ result: result({ [kind]: limit }) })).checks.valid).toBe(true);
      const over = judge(measured({ result: result({ [kind]: limit + 1 }) })).checks;
      expect(over.valid).toBe(false);
      expect(over.errorRate).toBeCloseTo(0.00011, 10);
      expect(over.invalidReasons[0]).toContain("11 failed requests");
    });
  }

  test("the reason counts every kind of failure and states the rate against the threshold", () => {
    const c = judge(
      measured({ result: result({ non2xx: 4, socketErrors: 3, timeouts: 5 }) }),
    ).checks;
    expect(c.invalidReasons).toEqual([
      "12 failed requests (4 non-2xx, 3 socket errors, 5 timeouts) = 0.012% > 0.01%",
    ]);
  });

  test("a scenario that expects another status names it instead of non-2xx", () => {
    const c = judge(measured({ result: result({ non2xx: 12, expectedStatus: 201 }) })).checks;
    expect(c.invalidReasons).toEqual([
      "12 failed requests (12 not 201, 0 socket errors, 0 timeouts) = 0.012% > 0.01%",
    ]);
  });

  test("aborted at the deadline is not the server's failure", () => {
    expect(judge(measured({ result: result({ aborted: 400 }) })).checks.valid).toBe(true);
  });

  test("no responses, unusable output, a dead app: invalid, each named", () => {
    const none = judge(measured({ result: result({ requests: 0, rps: 0 }) })).checks;
    expect(none.invalidReasons).toContain("no responses");
    expect(none.invalidReasons.filter((r) => r.includes("failed requests"))).toEqual([]);
    const refused = judge(
      measured({ result: result({ requests: 0, rps: 0, socketErrors: 7, timeouts: 2 }) }),
    ).checks.invalidReasons;
    expect(refused.filter((r) => r.startsWith("no responses"))).toEqual([
      "no responses (7 socket errors, 2 timeouts)",
    ]);
    expect(refused.filter((r) => r.includes("failed requests"))).toEqual([]);
    // nothing answered is all failed, and there is nothing to apply Little's law to
    expect(none.errorRate).toBe(1);
    expect(none.littlesLaw.checked).toBe(false);
    expect(none.notes).toEqual([]);
    const broken = judge(
      measured({ result: null, problem: "wrk exited 1; its output could not be read" }),
    );
    expect(broken.checks.valid).toBe(false);
    expect(broken.checks.invalidReasons).toEqual(["wrk exited 1; its output could not be read"]);
    expect(broken.checks.littlesLaw).toEqual({ inFlight: 0, ratio: 0, checked: false, ok: true });
    expect(broken.checks.notes).toEqual([]);
    const died = judge(measured({ appDied: "the app exited (7) during the trial" })).checks;
    expect(died.invalidReasons).toEqual(["the app exited (7) during the trial"]);
  });
});

describe("Little's law: physically consistent or invalid", () => {
  // in flight = rps × mean; with 10,000 req/s on 50 connections, 5 ms is exactly 1.0.
  const at = (meanMs: number, patch: Partial<Measurement> = {}) =>
    judge(measured({ result: result({}, meanMs), ...patch })).checks;

  test(`up to ×${1 + LITTLE_TOLERANCE} is consistent, beyond it the trial is invalid`, () => {
    expect(at(5 * (1 + LITTLE_TOLERANCE) - 1e-9).valid).toBe(true);
    const over = at(5 * (1 + LITTLE_TOLERANCE) + 0.01);
    expect(over.valid).toBe(false);
    expect(over.littlesLaw.ok).toBe(false);
    expect(over.invalidReasons.join()).toContain("exceed the 50 connections");
    // what wrk's corrected latencies produced: 12× the connections
    expect(at(60).invalidReasons.join()).toContain("×12.00");
  });

  test(`exactly ×${1 + LITTLE_TOLERANCE} and exactly ×${LITTLE_IDLE} are still within bounds`, () => {
    // 100,000 requests in 10 s on 50 connections: 5.25 ms is ×1.05, 2.5 ms is ×0.5
    const top = at(5.25);
    expect(top.littlesLaw.ratio).toBe(1 + LITTLE_TOLERANCE);
    expect([top.valid, top.littlesLaw.ok]).toEqual([true, true]);
    const low = at(2.5);
    expect(low.littlesLaw.ratio).toBe(LITTLE_IDLE);
    expect([low.littlesLaw.ok, low.notes]).toEqual([true, []]);
  });

  test("every ratio between the bounds is consistent: no idle flag near ×1", () => {
    for (const mean of [2.6, 4, 4.9, 5, 5.1, 5.2]) expect(at(mean).littlesLaw.ok).toBe(true);
  });

  test(`below ×${LITTLE_IDLE} the connections sat idle: flagged, still valid`, () => {
    const idle = at(5 * LITTLE_IDLE - 0.01);
    expect(idle.valid).toBe(true);
    expect(idle.littlesLaw.ok).toBe(false);
    expect(idle.notes.join()).toContain("connections waited for answers that came late");
    expect(idle.notes.join()).toContain("slowest answered 50 ms");
    expect(idle.notes[0]).toStartWith(
      "24.9 requests in flight on 50 connections, wrk not saturated",
    );
    // ...unless the generator was saturated: then it paced the run
    const paced = at(5 * LITTLE_IDLE - 0.01, { loadCpuPercent: 95, serverCpuPercent: 50 });
    expect(paced.notes.join()).toContain("the saturated load generator paced the run");
    expect(at(5 * LITTLE_IDLE + 0.01).littlesLaw.ok).toBe(true);
  });

  test(`autocannon's whole milliseconds: checked from ${AUTOCANNON_MIN_MEAN_MS} ms up only`, () => {
    const coarse = at(AUTOCANNON_MIN_MEAN_MS - 1, { tool: "autocannon" });
    expect(coarse.littlesLaw.checked).toBe(false);
    expect(coarse.valid).toBe(true);
    const fine = at(AUTOCANNON_MIN_MEAN_MS, { tool: "autocannon", connections: 50 });
    expect(fine.littlesLaw.checked).toBe(true);
    // 10,000 req/s × 20 ms = 200 in flight on 50 connections: impossible
    expect(fine.valid).toBe(false);
  });

  test("a p99 longer than the tool ran is no measured latency", () => {
    const latency = (p99: number) => ({ mean: 4, p50: 3, p90: 6, p99, p999: 10_500, max: 11_000 });
    const long = result({ latencyMs: latency(10_001) });
    expect(judge(measured({ result: long })).checks.invalidReasons.join()).toContain(
      "longer than the 10.00 s the tool ran",
    );
    expect(judge(measured({ result: result({ latencyMs: latency(9_999) }) })).checks.valid).toBe(
      true,
    );
    // a request that took exactly as long as the tool ran is possible
    expect(judge(measured({ result: result({ latencyMs: latency(10_000) }) })).checks.valid).toBe(
      true,
    );
    // oha -w ran 10.2 s, waiting for a straggler: a 10.1 s latency is a measured one
    const waited = result({ durationSec: 10.2, latencyMs: latency(10_100) });
    expect(judge(measured({ tool: "oha", result: waited })).checks.valid).toBe(true);
  });

  test("a tool that measured less than 90% of the requested time stopped early", () => {
    expect(judge(measured({ result: result({ durationSec: 8.9 }) })).checks.invalidReasons).toEqual(
      ["wrk measured 8.90 s of the 10 s asked for"],
    );
    expect(judge(measured({ result: result({ durationSec: 9 }) })).checks.valid).toBe(true);
    expect(judge(measured({ result: result({ durationSec: 9.1 }) })).checks.valid).toBe(true);
  });

  test("a tool that reports 0 s is invalid for that alone: no division by zero", () => {
    const c = judge(measured({ result: result({ durationSec: 0 }) })).checks;
    expect(c.invalidReasons).toEqual(["wrk measured 0.00 s of the 10 s asked for"]);
    expect([c.littlesLaw.inFlight, c.littlesLaw.ratio]).toEqual([0, 0]);
  });
});

describe("who limited the run", () => {
  test(`pinned: generator at ${LOAD_BUSY * 100}% of its core and server below ${SERVER_BUSY * 100}%: bound`, () => {
    const bound = judge(measured({ loadCpuPercent: 90, serverCpuPercent: 84 })).checks;
    expect(bound.loadGeneratorBound).toBe(true);
    expect(bound.unsaturated).toBe(false);
    expect(bound.notes).toEqual([
      "load generator saturated (server 84% of a core, wrk 90% of its 1.00-core capacity, steal 0.0%)",
    ]);
    expect(
      judge(measured({ loadCpuPercent: 89, serverCpuPercent: 84 })).checks.loadGeneratorBound,
    ).toBe(false);
    // a saturated server is the limit, whatever the generator did
    expect(
      judge(measured({ loadCpuPercent: 99, serverCpuPercent: 85 })).checks.loadGeneratorBound,
    ).toBe(false);
  });

  test("N workers are saturated only at N busy cores, or all the cores they have", () => {
    const bound = (patch: Partial<Measurement>) =>
      judge(measured({ loadCpuPercent: 90, ...patch })).checks.loadGeneratorBound;
    // Pinned, 2 workers on CPUs 0-1: 169% leaves a core's worth idle, 170% is full.
    const two = { workers: 2, serverCores: 2 };
    expect(bound({ ...two, serverCpuPercent: 169 })).toBe(true);
    expect(bound({ ...two, serverCpuPercent: 170 })).toBe(false);
    // The same 150% from one process is a saturated server.
    expect(bound({ serverCpuPercent: 150, serverCores: 2 })).toBe(false);
    expect(bound({ workers: 1, serverCpuPercent: 150, serverCores: 2 })).toBe(false);
    // More workers than cores: saturated when the cores are.
    const many = { workers: 4, serverCores: 2 };
    expect(bound({ ...many, serverCpuPercent: 169 })).toBe(true);
    expect(bound({ ...many, serverCpuPercent: 170 })).toBe(false);
    // Unpinned on 2 cores, 2 workers at 120%: the generator can have the other 0.8 core; at
    // 75% it uses it all, but sharing the cores that is a full machine, not a generator limit
    // (120 + 75 ≥ 90% of 200). One process at 120% would be the limit itself.
    const shared = { pinned: false, loadCores: 2, serverCores: 2, serverCpuPercent: 120 };
    const full = (patch: Partial<Measurement>) =>
      judge(measured({ ...shared, workers: 2, ...patch })).checks;
    expect(full({ loadCpuPercent: 75 })).toMatchObject({
      loadGeneratorBound: false,
      unsaturated: false,
      machineFull: true,
    });
    expect(full({ loadCpuPercent: 75 }).notes).toEqual([
      "machine full: the server (120%) and wrk (75%) shared 2 cores and kept them busy: " +
        "neither the server's best nor a load-generator limit",
    ]);
    // 120 + 59 < 180: not full; the generator (59 < 0.9 × 80) not saturated either.
    expect(full({ loadCpuPercent: 59 })).toMatchObject({ machineFull: false, unsaturated: true });
    expect(full({ loadCpuPercent: 60 })).toMatchObject({ machineFull: true, unsaturated: false });
    expect(full({ loadCpuPercent: 60 }).notes).toHaveLength(1);
    // Without a CPU window nothing is claimed, full or not.
    expect(full({ loadCpuPercent: 90, cpuWindowSec: 0 }).machineFull).toBe(false);
    // Pinned, a machine is never "full": each side has cores of its own.
    expect(
      judge(measured({ ...two, serverCpuPercent: 100, loadCpuPercent: 95 })).checks.machineFull,
    ).toBe(false);
    expect(bound({ ...shared, loadCpuPercent: 75 })).toBe(false);
  });

  test("neither saturated (server 50%, wrk 40%): unsaturated, with the steal in the note", () => {
    const c = judge(
      measured({ serverCpuPercent: 50, loadCpuPercent: 40, stealPercent: 12.5 }),
    ).checks;
    expect(c.unsaturated).toBe(true);
    expect(c.loadGeneratorBound).toBe(false);
    expect(c.valid).toBe(true);
    expect(c.notes[0]).toContain("neither side saturated");
    expect(c.notes[0]).toContain("steal 12.5%");
    expect(judge(measured({ serverCpuPercent: 85, loadCpuPercent: 40 })).checks.unsaturated).toBe(
      false,
    );
  });

  test("pinned: a core idle < 10% is a saturated server, whatever its process was charged", () => {
    // loopback softirqs for the server run on its core without being charged to its process
    const full = judge(
      measured({ serverCpuPercent: 80, loadCpuPercent: 50, serverCoreIdlePercent: 9.9 }),
    ).checks;
    expect(full.unsaturated).toBe(false);
    expect(full.loadGeneratorBound).toBe(false);
    const idle = judge(
      measured({ serverCpuPercent: 80, loadCpuPercent: 50, serverCoreIdlePercent: 10.1 }),
    ).checks;
    expect(idle.unsaturated).toBe(true);
    expect(idle.notes[0]).toBe(
      "neither side saturated (server 80% of a core, wrk 50% of its 1.00-core capacity, steal 0.0%, server's core 10% idle)",
    );
    // exactly 10% idle is not "less than 10%"
    const edge = measured({ serverCpuPercent: 80, loadCpuPercent: 50, serverCoreIdlePercent: 10 });
    expect(judge(edge).checks.unsaturated).toBe(true);
    // a generator at its limit beside a full server core is not what limited the run
    const both = measured({ serverCpuPercent: 80, loadCpuPercent: 95, serverCoreIdlePercent: 2 });
    expect(judge(both).checks.loadGeneratorBound).toBe(false);
  });

  test("unpinned on one core: the generator's capacity is what the server left", () => {
    const m = measured({
      pinned: false,
      loadCores: 1,
      serverCores: 1,
      serverCpuPercent: 50,
      loadCpuPercent: 48,
    });
    expect(generatorCapacity(m)).toBeCloseTo(0.5, 10);
    // Both share the one core and filled it: the machine is full, whoever was "saturated".
    expect(judge(m).checks).toMatchObject({ loadGeneratorBound: false, machineFull: true });
    expect(judge({ ...m, serverCpuPercent: 40, loadCpuPercent: 48 }).checks).toMatchObject({
      loadGeneratorBound: false,
      unsaturated: true,
      machineFull: false,
    });
  });

  test("unpinned on two cores: capacity 2 − server share, capped by the tool's threads", () => {
    const m = measured({
      pinned: false,
      loadCores: 2,
      serverCores: 2,
      serverCpuPercent: 60,
      threads: 4,
    });
    expect(generatorCapacity(m)).toBeCloseTo(1.4, 10);
    expect(generatorCapacity({ ...m, threads: 1 })).toBe(1);
  });

  test("pinned on 15 cores, oha with 8 load threads: capacity 8, not 15", () => {
    const m = measured({
      tool: "oha",
      loadCores: 15,
      threads: 8,
      serverCpuPercent: 60,
      loadCpuPercent: 740,
    });
    expect(generatorCapacity(m)).toBe(8);
    expect(judge(m).checks.loadGeneratorBound).toBe(true);
    // 400% is half of those 8 cores: 400 < 90% × 8 cores, no limit.
    expect(judge({ ...m, loadCpuPercent: 400 }).checks.loadGeneratorBound).toBe(false);
  });

  test("CPU above the cores a process may use is a broken measurement", () => {
    expect(judge(measured({ serverCpuPercent: 120 })).checks.invalidReasons).toEqual([
      "server CPU 120% exceeds its 1 core(s)",
    ]);
    expect(judge(measured({ loadCpuPercent: 120 })).checks.invalidReasons).toEqual([
      "wrk CPU 120% exceeds its 1 core(s)",
    ]);
    // up to 5% over is sampling slack, not a broken reading
    const slack = judge(measured({ serverCpuPercent: 105, loadCpuPercent: 105 })).checks;
    expect(slack.valid).toBe(true);
    expect(judge(measured({ loadCpuPercent: 100 })).checks.valid).toBe(true);
  });

  test("no CPU window: neither flag is claimed, and the note says why", () => {
    const c = judge(measured({ cpuWindowSec: 0, serverCpuPercent: 0, loadCpuPercent: 0 })).checks;
    expect(c.unsaturated).toBe(false);
    expect(c.loadGeneratorBound).toBe(false);
    expect(c.notes).toEqual(["CPU not measured: the load window was too short to sample"]);
  });
});

describe("an open-loop (fixed-rate) trial", () => {
  // 10,000 req/s at 4 ms; an open loop may queue beyond its connections: 400 ms is no contradiction
  const queued = result({}, 400);

  test("valid when nothing failed, whatever Little's law would say", () => {
    expect(judgeOpenLoop(measured({ result: queued, loadCpuPercent: 50 }))).toEqual({
      valid: true,
      invalidReasons: [],
      errorRate: 0,
      loadGeneratorBound: false,
      machineFull: false,
      capacityCores: 1,
    });
  });

  test("failed requests and impossible CPU still make it invalid, each named", () => {
    const failed = judgeOpenLoop(
      measured({ result: result({ non2xx: 11 }, 400), serverCpuPercent: 120 }),
    );
    expect(failed.valid).toBe(false);
    expect(failed.errorRate).toBeCloseTo(0.00011, 10);
    expect(failed.invalidReasons).toEqual([
      "11 failed requests (11 non-2xx, 0 socket errors, 0 timeouts) = 0.011% > 0.01%",
      "server CPU 120% exceeds its 1 core(s)",
    ]);
    const broken = judgeOpenLoop(measured({ result: null, problem: "oha was killed" }));
    expect([broken.valid, broken.errorRate, broken.invalidReasons]).toEqual([
      false,
      0,
      ["oha was killed"],
    ]);
  });

  test(`generator at ${OPEN_LOAD_BUSY * 100}% of its capacity: bound, even beside a saturated server`, () => {
    const at = (loadCpuPercent: number, patch: Partial<Measurement> = {}) =>
      judgeOpenLoop(measured({ result: queued, loadCpuPercent, ...patch })).loadGeneratorBound;
    // An open loop's generator adds delay long before the closed loop's LOAD_BUSY.
    expect(OPEN_LOAD_BUSY).toBeLessThan(LOAD_BUSY);
    expect([at(60), at(59.9)]).toEqual([true, false]);
    // two load threads on two cores: 60% of 2 cores is 120%
    const two = { loadCores: 2, threads: 2 };
    expect([at(120, two), at(119, two)]).toEqual([true, false]);
    expect(judgeOpenLoop(measured({ ...two, loadCpuPercent: 120 })).capacityCores).toBe(2);
    // unpinned and full: the machine, not the generator
    const shared = { pinned: false, loadCores: 2, serverCores: 2, serverCpuPercent: 100 };
    expect(
      judgeOpenLoop(measured({ result: queued, ...shared, loadCpuPercent: 90 })),
    ).toMatchObject({
      loadGeneratorBound: false,
      machineFull: true,
    });
    // no CPU window: no claim
    expect(at(95, { cpuWindowSec: 0 })).toBe(false);
  });
});

describe("edges of the CPU notes", () => {
  test("an unmeasured CPU window never makes the machine full, whatever the figures say", () => {
    const shared = { pinned: false, loadCores: 2, serverCores: 2, serverCpuPercent: 100 };
    // 100% + 95% of 2 cores is above 90% of them: full when measured, not when not.
    expect(machineFull(measured({ ...shared, loadCpuPercent: 95 }))).toBe(true);
    expect(machineFull(measured({ ...shared, loadCpuPercent: 95, cpuWindowSec: 0 }))).toBe(false);
  });

  test("both reasons of contention, one after the other", () => {
    // Core 95% busy, the server 60% of it: 35 points of something else; steal 25.5%.
    expect(
      contentionNote(
        measured({ serverCoreIdlePercent: 5, serverCpuPercent: 60, stealPercent: 25.5 }),
      ),
    ).toBe(
      "contended: the server's core was 95% busy while the server used 60% of it, CPU steal 25.5%: " +
        "something else had the CPU (not the server's best)",
    );
  });
});

describe("the network between two hosts (--server-host)", () => {
  // 10,000 req/s at 4 ms mean; bytesPerSec set per case.
  const across = (rttMs: number, linkMbps?: number, bytesPerSec = 1e6) =>
    measured({
      result: result({ bytesPerSec }),
      network: { rttMs, ...(linkMbps !== undefined ? { linkMbps } : {}) },
    });

  test("on one host there is no such flag, and no note", () => {
    const v = judge(measured());
    expect(v.checks.networkBound).toBeUndefined();
    expect(networkNote(measured())).toBeUndefined();
  });

  test("bytes/s from LINK_FULL of the link's speed on: network-bound, saying how much", () => {
    // 100 Mbit/s link: LINK_FULL is 80 Mbit/s, 10 MB/s.
    const at = (LINK_FULL * 100e6) / 8;
    expect(networkNote(across(0.1, 100, at))).toBe(
      "network-bound: 80 Mbit/s of the 100 Mbit/s link",
    );
    expect(networkNote(across(0.1, 100, at * 0.99))).toBeUndefined();
    expect(judge(across(0.1, 100, at)).checks.networkBound).toBe(true);
    expect(judge(across(0.1, 100, at)).checks.valid).toBe(true);
    expect(judge(across(0.1, 100, at)).checks.notes).toContain(
      "network-bound: 80 Mbit/s of the 100 Mbit/s link",
    );
  });

  test("a round trip from RTT_SHARE of the mean latency on: network-bound", () => {
    const rtt = RTT_SHARE * 4; // the mean is 4 ms
    expect(networkNote(across(rtt))).toBe(
      "network-bound: the 2.000 ms round trip between the hosts is 50% of the mean latency (4.000 ms): more connections would hide it",
    );
    expect(networkNote(across(rtt * 0.99))).toBeUndefined();
    const v = judge(across(rtt * 0.99, 10_000));
    expect(v.checks.networkBound).toBe(false);
    expect(v.checks.notes.some((n) => n.startsWith("network-bound"))).toBe(false);
  });

  test("no result, or a mean of 0, says nothing of the network", () => {
    expect(networkNote({ ...across(5), result: null })).toBeUndefined();
    expect(networkNote(measured({ result: result({}, 0), network: { rttMs: 5 } }))).toBeUndefined();
  });
});

describe("--db postgres: the database server on the server's core", () => {
  test("its CPU is the server side's, not contention; beyond it, 20 points still are", () => {
    const m = measured({ serverCpuPercent: 45, serverCoreIdlePercent: 0, databaseCpuPercent: 50 });
    expect(judge(m).checks.contended).toBe(false);
    expect(judge({ ...m, databaseCpuPercent: 35 }).checks.contended).toBe(false); // 20 points
    const over = judge({ ...m, databaseCpuPercent: 34 }).checks; // 21 points
    expect(over.contended).toBe(true);
    expect(over.notes).toContain(
      "contended: the server's core was 100% busy while the server used 45% of it and its database 34%: something else had the CPU (not the server's best)",
    );
    expect(judge({ ...m, databaseCpuPercent: undefined }).checks.contended).toBe(true);
    // Two workers on two cores: both shares are per core of the set (busy 100, app 50, db 20).
    const two = { ...m, serverCpuPercent: 100, serverCores: 2, workers: 2, databaseCpuPercent: 40 };
    expect(judge(two).checks.contended).toBe(true);
    expect(judge({ ...two, databaseCpuPercent: 60 }).checks.contended).toBe(false);
  });

  test("the database using more of the core than the app: DATABASE-BOUND, the sample kept", () => {
    const m = measured({ serverCpuPercent: 40, serverCoreIdlePercent: 0, databaseCpuPercent: 55 });
    const { checks } = judge(m);
    expect(checks.databaseBound).toBe(true);
    expect(checks.valid).toBe(true);
    expect(checks.notes).toContain(
      "database-bound: the database server used 55% of a core, the app 40%: the figure measures the database as much as the app",
    );
    expect(judge({ ...m, databaseCpuPercent: 40 }).checks.databaseBound).toBe(false);
    expect(judge({ ...m, cpuWindowSec: 0 }).checks.databaseBound).toBe(false);
    expect(judge(measured()).checks).not.toHaveProperty("databaseBound");
  });

  test("app and database above the server's cores: physically impossible, invalid", () => {
    const m = measured({ serverCpuPercent: 60, serverCoreIdlePercent: 0, databaseCpuPercent: 40 });
    expect(judge(m).checks.valid).toBe(true);
    expect(judge({ ...m, databaseCpuPercent: 45 }).checks.valid).toBe(true); // 105%: the slack
    const over = judge({ ...m, databaseCpuPercent: 60 }).checks;
    expect(over.valid).toBe(false);
    expect(over.invalidReasons).toContain(
      "server and database CPU 120% exceed the server's 1 core(s)",
    );
    expect(judge({ ...m, databaseCpuPercent: 60, pinned: false }).checks.invalidReasons).toEqual(
      [],
    );
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
