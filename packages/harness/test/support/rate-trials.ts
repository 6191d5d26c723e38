// Open-loop rate trials at given latencies, for the tests of the rates and search tables
// (rates-table.test.ts, search-table.test.ts), and the latencies the tests of the budget, the
// levels and the open-loop judgement build their trials from (rate-levels.test.ts,
// search-levels.test.ts, search-table.test.ts, judge.test.ts).

import type { LatencyMs } from "../../src/load/parse.ts";
import type { RateTrial } from "../../src/results/schema.ts";
import { syntheticRateTrial } from "./synthetic.ts";

/** Latencies with these p50, p99 and p99.9 (ms). */
export const lat = (p50: number, p99: number, p999 = p99): LatencyMs => ({
  mean: p50,
  p50,
  p90: p99,
  p99,
  p999,
  max: p999,
});
/** Latencies with this p50 and p99 (ms), the rest drawn from them: p90 half the p99, p99.9
 *  twice it, the maximum three times it. */
export const openLoopLatency = (p50: number, p99: number, mean = p50): LatencyMs => ({
  mean,
  p50,
  p90: p99 / 2,
  p99,
  p999: p99 * 2,
  max: p99 * 3,
});
/** Latencies with this p99 and p99.9 (ms), the rest at 1 ms: what a budget verdict reads. */
export const budgetLatency = (p99: number, p999 = p99): LatencyMs => ({
  mean: 1,
  p50: 1,
  p90: 1,
  p99,
  p999,
  max: p999,
});
/** A valid rate trial of `app` on `scenario` at `offered` req/s (achieved in full unless patched). */
export const rate = (
  app: string,
  scenario: string,
  requested: string,
  offered: number,
  latency: LatencyMs,
  patch: Partial<RateTrial> = {},
): RateTrial => ({ ...syntheticRateTrial(requested, offered, latency, patch), app, scenario });
