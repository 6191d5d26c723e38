// The judgement of a trial, on crafted measurements at both sides of every threshold: a
// regression in a threshold or a flag turns one of these red.
import { describe, expect, test } from "bun:test";
import {
  AUTOCANNON_MIN_MEAN_MS,
  ERROR_THRESHOLD,
  generatorCapacity,
  judge,
  LITTLE_IDLE,
  LITTLE_TOLERANCE,
  LOAD_BUSY,
  type Measurement,
  SERVER_BUSY,
} from "../src/judge.ts";
import type { LoadResult } from "../src/parse.ts";
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
      errorRate: 0,
      valid: true,
      invalidReasons: [],
      loadGeneratorBound: false,
      unsaturated: false,
      littlesLaw: { inFlight: 40, ratio: 0.8, checked: true, ok: true },
      notes: [],
    });
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

  test("aborted at the deadline is not the server's failure", () => {
    expect(judge(measured({ result: result({ aborted: 400 }) })).checks.valid).toBe(true);
  });

  test("no responses, unusable output, a dead app: invalid, each named", () => {
    expect(
      judge(measured({ result: result({ requests: 0, rps: 0 }) })).checks.invalidReasons,
    ).toContain("no responses");
    const broken = judge(
      measured({ result: null, problem: "wrk exited 1; its output could not be read" }),
    );
    expect(broken.checks.valid).toBe(false);
    expect(broken.checks.invalidReasons).toEqual(["wrk exited 1; its output could not be read"]);
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

  test(`below ×${LITTLE_IDLE} the connections sat idle: flagged, still valid`, () => {
    const idle = at(5 * LITTLE_IDLE - 0.01);
    expect(idle.valid).toBe(true);
    expect(idle.littlesLaw.ok).toBe(false);
    expect(idle.notes.join()).toContain("connections waited for answers that came late");
    expect(idle.notes.join()).toContain("slowest answered 50 ms");
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
    // oha -w ran 10.2 s, waiting for a straggler: a 10.1 s latency is a measured one
    const waited = result({ durationSec: 10.2, latencyMs: latency(10_100) });
    expect(judge(measured({ tool: "oha", result: waited })).checks.valid).toBe(true);
  });

  test("a tool that measured less than 90% of the requested time stopped early", () => {
    expect(judge(measured({ result: result({ durationSec: 8.9 }) })).checks.valid).toBe(false);
    expect(judge(measured({ result: result({ durationSec: 9.1 }) })).checks.valid).toBe(true);
  });
});

describe("who limited the run", () => {
  test(`pinned: generator at ${LOAD_BUSY * 100}% of its core and server below ${SERVER_BUSY * 100}%: bound`, () => {
    const bound = judge(measured({ loadCpuPercent: 90, serverCpuPercent: 84 })).checks;
    expect(bound.loadGeneratorBound).toBe(true);
    expect(bound.unsaturated).toBe(false);
    expect(bound.notes.join()).toContain("load generator saturated");
    expect(
      judge(measured({ loadCpuPercent: 89, serverCpuPercent: 84 })).checks.loadGeneratorBound,
    ).toBe(false);
    // a saturated server is the limit, whatever the generator did
    expect(
      judge(measured({ loadCpuPercent: 99, serverCpuPercent: 85 })).checks.loadGeneratorBound,
    ).toBe(false);
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
    expect(idle.notes[0]).toContain("server's core 10% idle");
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
    expect(judge(m).checks.loadGeneratorBound).toBe(true);
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
  });

  test("CPU above the cores a process may use is a broken measurement", () => {
    expect(judge(measured({ serverCpuPercent: 120 })).checks.valid).toBe(false);
    expect(judge(measured({ loadCpuPercent: 120 })).checks.invalidReasons.join()).toContain(
      "exceeds its 1 core(s)",
    );
  });

  test("no CPU window: neither flag is claimed, and the note says why", () => {
    const c = judge(measured({ cpuWindowSec: 0, serverCpuPercent: 0, loadCpuPercent: 0 })).checks;
    expect(c.unsaturated).toBe(false);
    expect(c.loadGeneratorBound).toBe(false);
    expect(c.notes).toEqual(["CPU not measured: the load window was too short to sample"]);
  });
});
