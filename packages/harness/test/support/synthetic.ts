// Building blocks of synthetic results for the unit tests: one clean shape, varied by what each
// test is about, so a change to the schema is made here once.

import type { LatencyMs, LoadResult } from "../../src/load/parse.ts";
import type { PairTrial, RateTrial, Results, Trial } from "../../src/results/schema.ts";

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

/** A clean closed-loop trial: `rps` for 5 s at `connections`, p50 = p99 / 4. */
export function syntheticTrial(
  app: string,
  scenario: string,
  round: number,
  connections: number,
  rps: number,
  p99: number,
): Trial {
  const p50 = p99 / 4;
  return {
    app,
    scenario,
    round,
    startedAt: "2026-11-22T12:00:00.000Z",
    command: ["wrk", "-c", String(connections)],
    result: syntheticResult(rps, 5, {
      mean: p50,
      p50,
      p90: p99 / 2,
      p99,
      p999: p99 * 2,
      max: p99 * 3,
    }),
    connections,
    requestedSec: 5,
    cpuWindowSec: 4.9,
    server: { pid: 4242, cpuPercent: 97, peakRssMiB: 50 },
    loadGenerator: { cpuPercent: 60, capacityCores: 1, threads: 1 },
    stealPercent: 0,
    checks: cleanChecks(connections * 0.9, connections),
  };
}

/** A complete run of `apps` on `scenarios` holding `trials`; settings patched as given. */
export function syntheticRun(
  apps: string[],
  scenarios: string[],
  trials: Trial[],
  settings: Partial<Results["manifest"]["settings"]> = {},
): Results {
  return {
    schemaVersion: 2,
    status: "complete",
    startedAt: "2026-11-22T12:00:00.000Z",
    finishedAt: "2026-11-22T12:05:00.000Z",
    manifest: {
      tool: { name: "wrk", version: "4.2.0", path: "/usr/bin/wrk" },
      settings: {
        apps,
        scenarios,
        durationSec: 5,
        warmupSec: 2,
        connections: 64,
        trials: 3,
        keepAlive: true,
        errorThreshold: 0.0001,
        argv: [],
        ...settings,
      },
      pinning: { enabled: true, serverCpus: "0", loadCpus: "1" },
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 8, os: "Debian 13", kernel: "6.1" },
      versions: { lockfile: {}, harnessBun: "1.4.5" },
      git: { commit: "0123456789abcdef", dirty: false },
    },
    apps: apps.map((name) => ({
      name,
      runtime: name.split("-")[0] as string,
      framework: name.split("-")[1] as string,
      port: 3000,
      status: "ok" as const,
    })),
    trials,
  };
}

/**
 * A --node 22,24 run of node-bare and node-hono: node-bare 10% faster on 24 (clearly),
 * node-hono the same on both (a tie).
 */
export function syntheticVersionsRun(): Results {
  const rows: [string, number[]][] = [
    ["node-bare@22.23.3", [10_000, 10_100, 9_900]],
    ["node-bare@24.21.0", [11_000, 11_100, 10_900]],
    ["node-hono@22.23.3", [8_000, 8_400, 7_600]],
    ["node-hono@24.21.0", [8_100, 7_700, 8_200]],
  ];
  const trials = rows.flatMap(([app, rps]) =>
    rps.map((r, i) => syntheticTrial(app, "api", i + 1, 50, r, 5)),
  );
  const node = [
    { asked: "22", version: "22.23.3" },
    { asked: "24", version: "24.21.0" },
  ];
  const run = syntheticRun(
    rows.map(([app]) => app),
    ["api"],
    trials,
    { runtimeVersions: { node } },
  );
  return {
    ...run,
    apps: run.apps.map((a) => {
      const version = a.name.split("@")[1] as string;
      const asked = node.find((v) => v.version === version)?.asked as string;
      return {
        ...a,
        framework: a.framework.split("@")[0] as string,
        runtimeBuild: { asked, version },
      };
    }),
  };
}

/** One side of a side-by-side sample: `ns` per request for 40,000 requests over 1 s. */
function pairSide(app: string, slot: 0 | 1, ns: number) {
  const requests = 40_000;
  return {
    app,
    slot,
    address: slot === 0 ? "127.0.0.1" : "127.0.0.2",
    pid: 4242 + slot,
    command: ["wrk", "-c", "50"],
    connections: 50,
    result: syntheticResult(requests, 1, { mean: 1, p50: 1, p90: 2, p99: 4, p999: 8, max: 12 }),
    cpuNs: ns * requests,
    nsPerRequest: ns,
    serverCpuPercent: 50,
    peakRssMiB: 50,
    loadGenerator: { cpuPercent: 40, threads: 1 },
  };
}

/** A clean side-by-side sample: `app` at `nsApp` per request, its reference at `nsRef`. */
export function syntheticPairTrial(
  reference: string,
  app: string,
  round: number,
  sample: number,
  nsRef: number,
  nsApp: number,
  checks: Partial<PairTrial["checks"]> = {},
): PairTrial {
  // The reference takes slot 0 in odd rounds, as side/pairing.ts alternates it.
  const refSlot = round % 2 === 1 ? 0 : 1;
  const sides = [pairSide(reference, refSlot, nsRef), pairSide(app, refSlot === 0 ? 1 : 0, nsApp)];
  return {
    reference,
    app,
    scenario: "api",
    round,
    sample,
    startedAt: "2026-11-26T12:00:00.000Z",
    requestedSec: 1,
    cpuWindowSec: 0.8,
    sides: (refSlot === 0 ? sides : [sides[1], sides[0]]) as PairTrial["sides"],
    serverCoreIdlePercent: 0,
    loadCoreIdlePercent: 20,
    stealPercent: 0,
    checks: {
      valid: true,
      invalidReasons: [],
      unsaturated: false,
      generatorCeiling: false,
      contended: false,
      notes: [],
      ...checks,
    },
  };
}

/** A complete side-by-side run of `pairs` ([reference, app]) holding `trials`. */
export function syntheticSideRun(
  pairs: [string, string][],
  trials: PairTrial[],
  extra: Partial<NonNullable<Results["manifest"]["settings"]["sideBySide"]>> = {},
): Results {
  const names = [...new Set(pairs.flat())];
  const run = syntheticRun(names, ["api"], [], {
    connections: 50,
    durationSec: 1,
    samples: 5,
    trials: Math.max(1, ...trials.map((t) => t.round)),
    sideBySide: { pairs, addresses: ["127.0.0.1", "127.0.0.2"], ...extra },
  });
  return { ...run, pairTrials: trials };
}
