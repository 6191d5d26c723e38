// One measurement's arithmetic: where the load window lies, CPU over it, and req/s over the
// time the load was applied.
import { describe, expect, test } from "bun:test";
import {
  loadWindow,
  nsPerRequest,
  ratesOver,
  type Sample,
  windowed,
  workerUse,
} from "../src/load/measure.ts";
import { CLK_TCK } from "../src/load/procstats.ts";
import { syntheticResult } from "./support/synthetic.ts";

describe("the load window", () => {
  test("ends when the tool exits, lasts its measured time, trimmed a tenth at each end", () => {
    // spawned at 0, exited at 2,300 ms after 2.0 s of load: 300 ms of start-up before it
    expect(loadWindow(0, 2300, 2, 2)).toEqual({ startMs: 500, endMs: 2100 });
  });

  test("trims at most 250 ms on long trials", () => {
    expect(loadWindow(0, 30_400, 30, 30)).toEqual({ startMs: 650, endMs: 30_150 });
  });

  test("oha -w: the straggler wait after the requested time carries no load", () => {
    // 2 s asked, oha's clock ran 5 s (waiting up to the request timeout for one response)
    const w = loadWindow(0, 5200, 5, 2);
    expect(w).toEqual({ startMs: 400, endMs: 2000 });
  });
  test("a measured time longer than the tool's life starts at the spawn", () => {
    // spawned at 1,000, exited at 2,000, claims 2 s: the window is 1,000–2,000 (its whole life,
    // not 0–2,000), trimmed 100 ms (a tenth of 1 s) at each end
    expect(loadWindow(1000, 2000, 2, 2)).toEqual({ startMs: 1100, endMs: 1900 });
  });
});

describe("CPU over the window", () => {
  const ticks = (seconds: number) => seconds * CLK_TCK;
  // Start-up (0–500 ms) burns no server CPU; the load (500–2500 ms) keeps it at 100%.
  const samples: Sample[] = [];
  for (let t = 0; t <= 2600; t += 100) {
    const loaded = Math.max(0, Math.min(t, 2500) - 500) / 1000;
    samples.push({
      t,
      serverTicks: ticks(loaded),
      toolTicks: ticks(loaded * 0.6),
      stealTicks: ticks(loaded * 0.1),
      // the server's core: idle until the load starts, then idle 4% of the time
      serverIdleTicks: ticks(Math.min(t, 500) / 1000 + loaded * 0.04),
    });
  }

  test("a server at 100% reads 100% over the window, not diluted by start-up", () => {
    const r = ratesOver(samples, { startMs: 700, endMs: 2300 }, 2);
    expect(r?.serverCpuPercent).toBeCloseTo(100, 6);
    expect(r?.loadCpuPercent).toBeCloseTo(60, 6);
    // steal: 10% of one core over two cores is 5% of the machine
    expect(r?.stealPercent).toBeCloseTo(5, 6);
    expect(r?.windowSec).toBeCloseTo(1.6, 6);
    // unpinned: no core of its own, no idle figure
    expect(r?.serverCoreIdlePercent).toBeUndefined();
    expect(
      ratesOver(samples, { startMs: 700, endMs: 2300 }, 2, 1)?.serverCoreIdlePercent,
    ).toBeCloseTo(4, 6);
    // what spawn-to-exit would have said
    const whole = ratesOver(samples, { startMs: 0, endMs: 2600 }, 2);
    expect(whole?.serverCpuPercent).toBeCloseTo(76.9, 1);
  });

  test("steal on the server's own CPUs: a share of its set, where the set and the figure are", () => {
    const stolen = samples.map((x) => ({ ...x, serverStealTicks: x.stealTicks }));
    // all of the machine's steal (10% of one core) on the server's one CPU: 10% of it
    expect(ratesOver(stolen, { startMs: 700, endMs: 2300 }, 2, 1)?.serverStealPercent).toBeCloseTo(
      10,
      6,
    );
    expect(ratesOver(stolen, { startMs: 700, endMs: 2300 }, 2, 2)?.serverStealPercent).toBeCloseTo(
      5,
      6,
    );
    // unpinned, or a host that did not read it: no figure
    expect(ratesOver(stolen, { startMs: 700, endMs: 2300 }, 2)).not.toHaveProperty(
      "serverStealPercent",
    );
    expect(ratesOver(samples, { startMs: 700, endMs: 2300 }, 2, 1)).not.toHaveProperty(
      "serverStealPercent",
    );
    // Read at one end of the window only: no figure either (not one from a missing reading).
    for (const end of [0, stolen.length - 1]) {
      const gap = stolen.map((x, i) => (i === end ? { ...x, serverStealTicks: undefined } : x));
      expect(ratesOver(gap, { startMs: 0, endMs: 2600 }, 2, 1)).not.toHaveProperty(
        "serverStealPercent",
      );
    }
  });

  test("--db postgres: the database server's CPU over the window, only where it was read", () => {
    const db = samples.map((x) => ({ ...x, databaseNs: x.serverTicks * 0.4 * (1e9 / CLK_TCK) }));
    expect(ratesOver(db, { startMs: 700, endMs: 2300 }, 2)?.databaseCpuPercent).toBeCloseTo(40, 6);
    expect(ratesOver(samples, { startMs: 700, endMs: 2300 }, 2)).not.toHaveProperty(
      "databaseCpuPercent",
    );
    // A server gone by the last sample reads 0 ticks: never a negative share.
    const gone = db.map((x, i) => (i === db.length - 1 ? { ...x, databaseNs: 0 } : x));
    expect(ratesOver(gone, { startMs: 0, endMs: 2600 }, 2)?.databaseCpuPercent).toBe(0);
    // Read at one end only (never at both): no figure rather than NaN.
    const { databaseNs: _, ...unread } = db[0] as Sample;
    const firstOnly = [db[0] as Sample, ...samples.slice(1)];
    expect(ratesOver(firstOnly, { startMs: 0, endMs: 2600 }, 2)).not.toHaveProperty(
      "databaseCpuPercent",
    );
    expect(ratesOver([unread, ...db.slice(1)], { startMs: 0, endMs: 2600 }, 2)).not.toHaveProperty(
      "databaseCpuPercent",
    );
  });

  test("the server's schedstat ns over the window, and per request answered in it", () => {
    // 1 ms of CPU per ms of load: 1.6 s of window hold 1.6e9 ns.
    const ns = samples.map((x) => ({ ...x, serverNs: x.serverTicks * (1e9 / CLK_TCK) }));
    const r = ratesOver(ns, { startMs: 700, endMs: 2300 }, 2);
    expect(r?.serverNs).toBeCloseTo(1.6e9, 0);
    // 50,000 req/s over 1.6 s: 80,000 requests, 20,000 ns each.
    if (!r) throw new Error("no rates");
    expect(nsPerRequest(r, 50_000)).toBeCloseTo(20_000, 6);
    expect(nsPerRequest(r, 0)).toBeUndefined();
    expect(nsPerRequest(r, undefined)).toBeUndefined();
    expect(nsPerRequest({ ...r, windowSec: 0 }, 50_000)).toBeUndefined();
    // A host that does not read schedstat: no figure, not zero.
    const none = ratesOver(samples, { startMs: 700, endMs: 2300 }, 2);
    expect(none?.serverNs).toBeUndefined();
    if (!none) throw new Error("no rates");
    expect(nsPerRequest(none, 50_000)).toBeUndefined();
    // Read at one end of the window only (the process gone by the last read): no figure either.
    for (const gap of [0, ns.length - 1]) {
      const half = ns.map((x, i) => (i === gap ? { ...x, serverNs: undefined } : x));
      expect(ratesOver(half, { startMs: 0, endMs: 2600 }, 2)?.serverNs).toBeUndefined();
    }
  });

  test("fewer than two samples in the window: not measured", () => {
    expect(ratesOver(samples, { startMs: 1010, endMs: 1090 }, 2)).toBeUndefined();
    // one sample (at 1,000 ms) spans no time
    expect(ratesOver(samples, { startMs: 950, endMs: 1050 }, 2)).toBeUndefined();
  });

  test("samples on the window's edges count", () => {
    // samples at 700 and 800 only: 0.1 s measured
    expect(ratesOver(samples, { startMs: 700, endMs: 800 }, 2)?.windowSec).toBeCloseTo(0.1, 9);
  });

  test("a server set of two CPUs: idle over both", () => {
    // the two CPUs idle 0.08 CPU-seconds per second between them: 4% of each
    const two = samples.map((s) => ({ ...s, serverIdleTicks: s.serverIdleTicks * 2 }));
    const r = ratesOver(two, { startMs: 700, endMs: 2300 }, 2, 2);
    expect(r?.serverCoreIdlePercent).toBeCloseTo(4, 6);
  });

  test("counters that go backwards read 0%, not a negative share", () => {
    const back: Sample[] = [
      { t: 0, serverTicks: 50, toolTicks: 50, stealTicks: 50, serverIdleTicks: 50 },
      { t: 1000, serverTicks: 0, toolTicks: 0, stealTicks: 0, serverIdleTicks: 0 },
    ];
    expect(ratesOver(back, { startMs: 0, endMs: 1000 }, 4, 1)).toEqual({
      serverCpuPercent: 0,
      loadCpuPercent: 0,
      stealPercent: 0,
      serverCoreIdlePercent: 0,
      windowSec: 1,
    });
  });
});

describe("each worker's CPU over the window", () => {
  const ticks = (seconds: number) => seconds * CLK_TCK;
  // Worker 11 at 50% of a core, worker 12 at 100%, sampled every 500 ms from 0 to 3,000.
  const samples: Sample[] = [0, 500, 1000, 1500, 2000, 2500, 3000].map((t) => ({
    t,
    serverTicks: 0,
    toolTicks: 0,
    stealTicks: 0,
    serverIdleTicks: 0,
    workerTicks: [ticks((t / 1000) * 0.5), ticks(t / 1000)],
  }));
  const held = new Map([[11, 7]]);
  const alive = (pid: number) => pid === 11;

  test("CPU per worker over the window, connections held, and whether it lives", () => {
    const use = workerUse(samples, { startMs: 500, endMs: 2500 }, [11, 12], held, alive);
    expect(use.map((w) => [w.pid, w.connections, w.alive])).toEqual([
      [11, 7, true],
      [12, 0, false],
    ]);
    expect(use[0]?.cpuPercent).toBeCloseTo(50, 6);
    expect(use[1]?.cpuPercent).toBeCloseTo(100, 6);
  });

  test("the window's edges: 500 and 1,000 ms make half a second", () => {
    // a worker that burnt all its CPU between 500 and 1,000 ms and nothing after
    const burst = samples.map((s) => ({
      ...s,
      workerTicks: [ticks(Math.min(Math.max(s.t - 500, 0), 500) / 1000)],
    }));
    const [w] = workerUse(burst, { startMs: 500, endMs: 1000 }, [11], held, alive);
    expect(w?.cpuPercent).toBeCloseTo(100, 6);
  });

  test("no time in the window, or no counts: 0%, never NaN", () => {
    const none = workerUse(samples, { startMs: 600, endMs: 900 }, [11, 12], held, alive);
    expect(none.map((w) => w.cpuPercent)).toEqual([0, 0]);
    const one = workerUse(samples, { startMs: 900, endMs: 1100 }, [11], held, alive);
    expect(one.map((w) => w.cpuPercent)).toEqual([0]);
    const uncounted = samples.map(({ workerTicks: _, ...s }) => s);
    const blind = workerUse(uncounted, { startMs: 0, endMs: 3000 }, [11], held, alive);
    expect(blind.map((w) => w.cpuPercent)).toEqual([0]);
  });

  test("a worker whose counter fell (it was replaced) reads 0%", () => {
    const fell = samples.map((s) => ({ ...s, workerTicks: [ticks(3 - s.t / 1000)] }));
    const [w] = workerUse(fell, { startMs: 0, endMs: 3000 }, [11], held, alive);
    expect(w?.cpuPercent).toBe(0);
  });
});

describe("req/s over the time the load was applied", () => {
  const latency = { mean: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 10_000 };
  const r = syntheticResult(20_000 / 12, 12, latency, { bytesPerSec: 100 });

  test("oha -w waited 10 s for a straggler: req/s over the 2 s asked for", () => {
    const w = windowed({ name: "oha", path: "oha", version: "1" }, r, 2);
    expect(w.windowSec).toBe(2);
    expect(w.rps).toBe(10_000);
    expect(w.bytesPerSec).toBe(600);
    expect(w.durationSec).toBe(12);
  });

  test("no measured time: the result as the tool gave it", () => {
    const none = { ...r, durationSec: 0 };
    expect(windowed({ name: "oha", path: "oha", version: "1" }, none, 2)).toBe(none);
    expect(windowed({ name: "wrk", path: "wrk", version: "4" }, none, 2)).toBe(none);
  });

  test("wrk and autocannon stop at the deadline: their own time is the denominator", () => {
    const w = windowed({ name: "wrk", path: "wrk", version: "4" }, { ...r, durationSec: 2.01 }, 2);
    expect(w.windowSec).toBe(2.01);
    expect(w.rps).toBeCloseTo(20_000 / 2.01, 9);
  });
});
