// One measurement's arithmetic: where the load window lies, CPU over it, and req/s over the
// time the load was applied.
import { describe, expect, test } from "bun:test";
import { loadWindow, ratesOver, type Sample, windowed } from "../src/measure.ts";
import { CLK_TCK } from "../src/procstats.ts";
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

  test("fewer than two samples in the window: not measured", () => {
    expect(ratesOver(samples, { startMs: 1010, endMs: 1090 }, 2)).toBeUndefined();
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

  test("wrk and autocannon stop at the deadline: their own time is the denominator", () => {
    const w = windowed({ name: "wrk", path: "wrk", version: "4" }, { ...r, durationSec: 2.01 }, 2);
    expect(w.windowSec).toBe(2.01);
    expect(w.rps).toBeCloseTo(20_000 / 2.01, 9);
  });
});
