// Building blocks of synthetic results for the unit tests: one clean shape, varied by what each
// test is about, so a change to the schema is made here once.

import type { LatencyMs, LoadResult } from "../../src/parse.ts";
import type { RateTrial, Trial } from "../../src/schema.ts";

/** A clean run of `rps` over `seconds`: every request 200, no error, raw latencies as given. */
export function syntheticResult(
  rps: number,
  seconds: number,
  latencyMs: LatencyMs,
  patch: Partial<LoadResult> = {},
): LoadResult {
  const requests = Math.round(rps * seconds);
  return {
    requests,
    durationSec: seconds,
    windowSec: seconds,
    rps,
    bytesPerSec: rps * 100,
    latencyMs,
    statuses: { "200": requests },
    non2xx: 0,
    socketErrors: 0,
    timeouts: 0,
    aborted: 0,
    errorDetails: {},
    syntheticSamplesRemoved: 0,
    ...patch,
  };
}

/** A valid trial's checks with nothing to flag, `inFlight` of `connections` busy. */
export function cleanChecks(
  inFlight: number,
  connections: number,
  patch: Partial<Trial["checks"]> = {},
): Trial["checks"] {
  return {
    errorRate: 0,
    valid: true,
    invalidReasons: [],
    loadGeneratorBound: false,
    unsaturated: false,
    littlesLaw: { inFlight, ratio: inFlight / connections, checked: true, ok: true },
    notes: [],
    ...patch,
  };
}

/** A valid open-loop trial of bun-bare on api that kept up with `offeredRps`. */
export function syntheticRateTrial(
  requested: string,
  offeredRps: number,
  latencyMs: LatencyMs,
  patch: Partial<RateTrial> = {},
): RateTrial {
  return {
    app: "bun-bare",
    scenario: "api",
    round: 1,
    startedAt: "2026-11-22T12:00:00.000Z",
    command: ["oha"],
    requested,
    offeredRps,
    achievedRps: offeredRps,
    connections: 64,
    requestedSec: 1,
    result: syntheticResult(offeredRps, 1, latencyMs),
    server: { cpuPercent: 50, peakRssMiB: 40 },
    loadGenerator: { cpuPercent: 30, capacityCores: 1, threads: 1 },
    overCapacity: false,
    loadGeneratorBound: false,
    errorRate: 0,
    valid: true,
    invalidReasons: [],
    notes: [],
    ...patch,
  };
}
