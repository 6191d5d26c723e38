// The synthetic run the report tests share: three apps and a failed one on two scenarios, with
// flagged trials of every kind. Its expected figures are written out in the tests as literals.
// Also what more than one report test file builds on: the run with profiles, made-up summary
// rows and analyses, a trial judged invalid.

import type { Analysis, GroupAnalysis, SummaryRow } from "../../src/analysis/analysis.ts";
import type { Results, Trial } from "../../src/results/schema.ts";
import {
  cleanChecks,
  syntheticRateTrial,
  syntheticResult,
  syntheticRun,
  syntheticTrial,
} from "./synthetic.ts";

/** One trial's numbers; the rest is a clean wrk trial. p90 = 2 × p50, p99.9 = 2 × p99. */
interface Spec {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rss: number;
  readonly checks?: Partial<Trial["checks"]>;
}

function trial(app: string, scenario: string, round: number, s: Spec): Trial {
  return {
    app,
    scenario,
    round,
    startedAt: "2026-11-21T10:00:00.000Z",
    command: ["wrk", "-c", "64"],
    result: syntheticResult(s.rps, 5, {
      mean: s.p50,
      p50: s.p50,
      p90: s.p50 * 2,
      p99: s.p99,
      p999: s.p99 * 2,
      max: 500,
    }),
    connections: 64,
    requestedSec: 5,
    cpuWindowSec: 4.9,
    server: { pid: 4242, cpuPercent: 97, peakRssMiB: s.rss },
    loadGenerator: { cpuPercent: 75, capacityCores: 1, threads: 1 },
    stealPercent: 0,
    checks: cleanChecks(60, 64, s.checks),
  };
}

const BOUND = { loadGeneratorBound: true, notes: ["wrk used 99% of its core, the server 81%"] };
const STEAL = { unsaturated: true, notes: ["CPU steal 14% during the trial"] };
const IDLE = {
  littlesLaw: { inFlight: 12, ratio: 0.19, checked: true, ok: false },
  notes: ["12 requests in flight on 64 connections"],
};
const INVALID = { valid: false, invalidReasons: ["error rate 3.10% > 0.01%"] };

/**
 * api: three apps significantly apart, one bad p99 trial (17.99, 437.65, 9.93 ms), flagged
 * trials of every kind. echo: bun-hono ties bun-bare (its per-round ratio 0.99, 0.93, 0.99:
 * paired p ≈ 0.27), node-hono has 1 valid trial. node-bare failed in both.
 */
export const SYNTHETIC: Results = {
  schemaVersion: 2,
  status: "complete",
  startedAt: "2026-11-21T10:00:00.000Z",
  finishedAt: "2026-11-21T10:05:00.000Z",
  manifest: {
    tool: { name: "wrk", version: "4.2.0", path: "/usr/bin/wrk" },
    settings: {
      apps: ["bun-hono", "bun-bare", "node-hono", "node-bare"],
      scenarios: ["api", "echo"],
      durationSec: 5,
      warmupSec: 2,
      connections: 64,
      trials: 3,
      keepAlive: true,
      errorThreshold: 0.0001,
      argv: ["-n", "3"],
    },
    pinning: { enabled: true, serverCpus: "0", loadCpus: "1" },
    machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 8, os: "Debian 13", kernel: "6.1" },
    versions: { lockfile: { hono: "4.13.19" }, harnessBun: "1.4.5" },
    git: { commit: "0123456789abcdef0123", dirty: false },
  },
  apps: [
    { name: "bun-hono", runtime: "bun", framework: "hono", port: 3000, status: "ok" },
    { name: "bun-bare", runtime: "bun", framework: "bare", port: 3004, status: "ok" },
    { name: "node-hono", runtime: "node", framework: "hono", port: 3002, status: "ok" },
    {
      name: "node-bare",
      runtime: "node",
      framework: "bare",
      port: 3005,
      status: "failed",
      failure: "port 3005 is already in use by pid 42 (python3 -m http.server)\nand more output",
    },
  ],
  trials: [
    trial("bun-bare", "api", 1, { rps: 41_000, p50: 0.5, p99: 17.99, rss: 50, checks: BOUND }),
    trial("bun-bare", "api", 2, { rps: 41_200, p50: 0.7, p99: 437.65, rss: 52.5, checks: BOUND }),
    trial("bun-bare", "api", 3, { rps: 41_400, p50: 0.6, p99: 9.93, rss: 51 }),
    trial("bun-hono", "api", 1, { rps: 40_300, p50: 0.8, p99: 20, rss: 60 }),
    trial("bun-hono", "api", 2, { rps: 40_500, p50: 0.9, p99: 22, rss: 61 }),
    trial("bun-hono", "api", 3, { rps: 40_700, p50: 1, p99: 21, rss: 62, checks: STEAL }),
    trial("node-hono", "api", 1, { rps: 30_000, p50: 1.5, p99: 30, rss: 80 }),
    trial("node-hono", "api", 2, { rps: 30_100, p50: 1.6, p99: 35, rss: 82, checks: IDLE }),
    trial("node-hono", "api", 3, { rps: 29_900, p50: 1.4, p99: 40, rss: 81 }),
    trial("bun-bare", "echo", 1, { rps: 20_000, p50: 1, p99: 5, rss: 55 }),
    trial("bun-bare", "echo", 2, { rps: 20_400, p50: 1.1, p99: 6, rss: 56 }),
    trial("bun-bare", "echo", 3, { rps: 19_600, p50: 1.2, p99: 7, rss: 57 }),
    trial("bun-hono", "echo", 1, { rps: 19_800, p50: 1.1, p99: 6, rss: 65 }),
    trial("bun-hono", "echo", 2, { rps: 19_000, p50: 1.2, p99: 7, rss: 66 }),
    trial("bun-hono", "echo", 3, { rps: 19_400, p50: 1.3, p99: 8, rss: 67 }),
    trial("node-hono", "echo", 1, { rps: 10_000, p50: 2, p99: 50, rss: 90 }),
    trial("node-hono", "echo", 2, { rps: 99_999, p50: 2, p99: 50, rss: 999, checks: INVALID }),
  ],
};

// Variants of it and small runs for the reports' other sections.

const lat = (p50: number, p99: number) => ({ mean: p50, p50, p90: p99, p99, p999: p99, max: p99 });

/**
 * --rates 50%,90% with a 10 ms budget: bun-bare within at 20,000 and missed at 36,000 (p99 40);
 * node-hono within at 15,000 and over capacity at 27,000.
 */

export const RATED: Results = {
  ...SYNTHETIC,
  manifest: {
    ...SYNTHETIC.manifest,
    settings: { ...SYNTHETIC.manifest.settings, rates: ["50%", "90%"], sloP99Ms: 10 },
  },
  rateTrials: [
    syntheticRateTrial("50%", 20_000, lat(0.5, 4)),
    syntheticRateTrial("90%", 36_000, lat(2, 40)),
    syntheticRateTrial("50%", 15_000, lat(0.8, 6), { app: "node-hono" }),
    syntheticRateTrial("90%", 27_000, lat(30, 300), { app: "node-hono", overCapacity: true }),
  ],
};
/** Start-ups: bun-bare ready in 40, 30, 90 ms; node-hono in 400, 450 ms (idle RSS 5 MiB below ready). */
const starts = (ready: number[], idle: number[]) =>
  ready.map((readyMs, i) => ({
    readyMs,
    rssReadyMiB: (idle[i] as number) + 5,
    rssIdleMiB: idle[i] as number,
    fresh: i > 0,
  }));
export const STARTED: Results = {
  ...SYNTHETIC,
  apps: SYNTHETIC.apps.map((a) =>
    a.name === "bun-bare"
      ? { ...a, startups: starts([40, 30, 90], [30, 31, 32]) }
      : a.name === "node-hono"
        ? { ...a, startups: starts([400, 450], [80, 90]) }
        : a,
  ),
};

/** --workers 1,2: two workers that served 40 and 24 connections at 61–63% and 30% CPU. */
const wtrial = (app: string, workers: number, rps: number, round: number) => {
  const t = syntheticTrial(app, "api", round, 64, rps, 5);
  if (workers === 1) return t;
  const use = [
    { pid: 1, cpuPercent: 60 + round, connections: 40, alive: true },
    { pid: 2, cpuPercent: 30, connections: 24, alive: true },
  ];
  return { ...t, workers, server: { ...t.server, primaryRssMiB: 20, workers: use } };
};
export const WORKERS: Results = syntheticRun(
  ["a-bare", "b-bare"],
  ["api"],
  [1, 2, 3].flatMap((round) => [
    wtrial("a-bare", 1, 1000 + round, round),
    wtrial("a-bare", 2, 1900 + round, round),
    wtrial("b-bare", 1, 1000 + 100 * round, round),
    wtrial("b-bare", 2, 1410 - 100 * round, round),
  ]),
  { workers: 2, workerCounts: [1, 2] },
);
/** --calibrate: bun-bare-x5 with 485 extra iterations of 10 ns against 97 µs per request (5%). */
const cal = syntheticRun(
  ["bun-bare", "bun-bare-x5"],
  ["api"],
  [1, 2, 3].flatMap((round) => [
    syntheticTrial("bun-bare", "api", round, 64, 10_000 + 10 * round, 5),
    syntheticTrial("bun-bare-x5", "api", round, 64, 9_500 + 10 * round, 5),
  ]),
);
export const CALIBRATED: Results = {
  ...cal,
  manifest: {
    ...cal.manifest,
    calibration: {
      app: "bun-bare",
      costPerRequestNs: 97_000,
      nsPerIteration: 10,
      subsampleRounds: 100,
    },
  },
  apps: cal.apps.map((a) =>
    a.name === "bun-bare-x5" ? { ...a, extraWork: { share: 0.05, iterations: 485 } } : a,
  ),
};
/** --connections 1,100,400, one trial each: both apps peak at 400. */
const points: [string, number, number, number][] = [
  ["bun-bare", 1, 5_000, 0.5],
  ["bun-bare", 100, 40_000, 5],
  ["bun-bare", 400, 41_000, 20],
  ["node-bare", 1, 4_000, 0.6],
  ["node-bare", 100, 12_000, 12],
  ["node-bare", 400, 12_500, 50],
];
export const CURVE = syntheticRun(
  ["bun-bare", "node-bare"],
  ["api"],
  points.map(([app, c, rps, p99]) => syntheticTrial(app, "api", 1, c, rps, p99)),
  { connections: 400, connectionCounts: [1, 100, 400] },
);

const top = [
  { function: "writeUtf8String", location: "", samples: 452, percent: 17.4 },
  { function: "json", location: "hono/dist/context.js:336", samples: 129, percent: 4.96 },
];

const summary = { totalMs: 4000, samples: 2821, idleSamples: 225, coverage: 0.7, top };

/** SYNTHETIC with three profiles (--profile): two with a summary, one the runtime could not give. */
export const PROFILED: Results = {
  ...SYNTHETIC,
  profiles: [
    {
      app: "bun-hono",
      scenario: "api",
      startedAt: "2026-11-22T12:00:00.000Z",
      file: "profiles/bun-hono-api.cpuprofile",
      rps: 3593.4,
      p99Ms: 749.61,
      summary,
    },
    {
      app: "bun-bare",
      scenario: "api",
      startedAt: "2026-11-22T12:00:00.000Z",
      file: "profiles/bun-bare-api.cpuprofile",
      summary: { ...summary, coverage: 0.02 },
    },
    {
      app: "node-bare",
      scenario: "api",
      startedAt: "2026-11-22T12:00:00.000Z",
      unavailable: "node wrote no profile at profiles/node-bare-api.cpuprofile",
    },
  ],
};

/** A summary row with only what the charts and the README read; everything else absent. */
export function fakeRow(app: string, mean: number, p99: number, patch: object = {}): SummaryRow {
  return {
    app,
    status: "ok",
    rps: { n: 3, mean, stddev: 0, cov: 0 },
    latencyMs: { p99 },
    estimate: {},
    boundTrials: 0,
    unsaturatedTrials: 0,
    contendedTrials: 0,
    machineFullTrials: 0,
    ceilingTrials: 0,
    flags: [],
    notes: [],
    ...patch,
  } as unknown as SummaryRow;
}

/** An analysis of SYNTHETIC's settings whose groups are the given rows, per scenario. */
export function fakeAnalysis(
  groups: Record<string, SummaryRow[]>,
  results: Results = SYNTHETIC,
): Analysis {
  return {
    results,
    groups: new Map(Object.entries(groups).map(([k, rows]) => [k, { rows } as GroupAnalysis])),
    production: [],
  } as unknown as Analysis;
}

/** A trial the run judged invalid: it counts in no figure. */
export const invalid = (t: Trial): Trial => ({
  ...t,
  checks: cleanChecks(t.connections * 0.9, t.connections, {
    valid: false,
    invalidReasons: ["synthetic: invalid"],
  }),
});

const history: NonNullable<Results["history"]> = {
  store: "results/history.sqlite",
  run: "2026-11-28T07:01:14Z~6ad1ef",
  testbed: "a7b9d81518",
  recorded: true,
  earlier: 5,
  checked: [
    {
      app: "bun-bare",
      scenario: "api",
      metric: "rps",
      estimate: 3_328,
      low: 45_160,
      high: 74_235,
      earlier: 5,
      p: 0.0001,
      changed: true,
    },
  ],
};
/** SYNTHETIC recorded in a history, one of its figures CHANGED (the header's History row). */
export const WITH_HISTORY: Results = { ...SYNTHETIC, history };
/** WITH_HISTORY's History row as the reports print it, up to the CHANGED figure's numbers. */
export const HISTORY_ROW =
  "history: session 2026-11-28T07:01:14Z~6ad1ef of testbed a7b9d81518 recorded in " +
  "results/history.sqlite; 5 earlier session(s) of this testbed and settings; 1 figure(s) " +
  "checked against them (Holm over them, 5%): CHANGED: bun-bare · api · rps";
