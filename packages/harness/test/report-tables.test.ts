// The report modules that compute tables (per-worker rows and scaling, runtime versions, open-loop
// rates and searches, start-up, calibration, profiles), on synthetic results whose answers are
// worked out by hand in the comments. Fast and hermetic: the mutation group "reports" runs it
// against every mutant of those modules (packages/harness/mutation/groups.ts).

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import type { CalibrationView } from "../src/analysis/calibration.ts";
import { workersRows } from "../src/analysis/scaling.ts";
import type { StartupRow } from "../src/analysis/startup.ts";
import type { LatencyMs } from "../src/load/parse.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
  calibrationSections,
} from "../src/report/calibration-table.ts";
import { curveViews } from "../src/report/curve.ts";
import { productionViews } from "../src/report/production-table.ts";
import { profileViews } from "../src/report/profiles-table.ts";
import { CAPACITY_HEADER, RATES_HEADER, ratesIntro, rateViews } from "../src/report/rates-table.ts";
import {
  BUDGET_RULE,
  SEARCH_INTRO,
  searchInterval,
  searchView,
} from "../src/report/search-table.ts";
import {
  STARTUP_HEADER,
  STARTUP_INTRO,
  startupCells,
  startupTable,
} from "../src/report/startup-table.ts";
import {
  VERSIONS_INTRO,
  versionChart,
  versionMermaid,
  versionViews,
} from "../src/report/versions.ts";
import { scalingViews, WORKERS_HEADER, workersCells } from "../src/report/workers.ts";
import type { RateTrial, Results, Trial, WorkerUse } from "../src/results/schema.ts";
import {
  cleanChecks,
  syntheticRateTrial,
  syntheticRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

/** A trial the run judged invalid: it counts in no figure. */
const invalid = (t: Trial): Trial => ({
  ...t,
  checks: cleanChecks(t.connections * 0.9, t.connections, {
    valid: false,
    invalidReasons: ["synthetic: invalid"],
  }),
});

/** Every column of a table is named, each name once, and a row has one cell per column. */
function expectHeaderOf(header: readonly string[], row: readonly string[] | undefined) {
  expect(header.filter((h) => h.trim() === "")).toEqual([]);
  expect(new Set(header).size).toBe(header.length);
  expect(row).toHaveLength(header.length);
}

describe("per-worker rows (--workers)", () => {
  const worker = (pid: number, cpuPercent: number, connections: number): WorkerUse => ({
    pid,
    cpuPercent,
    connections,
    alive: true,
  });
  /** A trial of `app` on api whose server ran `workers`, the primary and the tree at these RSS. */
  const trial = (
    app: string,
    round: number,
    workers: WorkerUse[],
    primaryRssMiB: number | undefined,
    peakRssMiB: number,
  ): Trial => {
    const t = syntheticTrial(app, "api", round, 64, 10_000, 5);
    return {
      ...t,
      server: {
        ...t.server,
        peakRssMiB,
        workers,
        ...(primaryRssMiB === undefined ? {} : { primaryRssMiB }),
      },
    };
  };
  const RUN = syntheticRun(
    ["node-bare", "bun-bare"],
    ["api"],
    [
      // node-bare first in the trials, so first in the table, although second in the apps.
      // Two workers. Round 2 has an idle worker (0 connections); round 3 one that held exactly 1.
      trial("node-bare", 1, [worker(11, 40, 30), worker(12, 60, 34)], 20, 100),
      trial("node-bare", 2, [worker(21, 1, 0), worker(22, 90, 64)], 22, 110),
      trial("node-bare", 3, [worker(31, 50, 1), worker(32, 45, 63)], 21, 90),
      // A trial from a single process: no per-worker figures, no row.
      syntheticTrial("node-bare", "api", 4, 64, 10_000, 5),
      // bun-bare with four workers, all serving; its primary's RSS not recorded.
      trial(
        "bun-bare",
        1,
        [worker(1, 10, 4), worker(2, 30, 20), worker(3, 20, 10), worker(4, 40, 30)],
        undefined,
        80,
      ),
    ],
  );

  test("one row per app, scenario and count, in the order the trials came; medians per rank", () => {
    const rows = workersRows(RUN);
    expect(rows).toEqual([
      {
        app: "node-bare",
        scenario: "api",
        workers: 2,
        // Round 2's idle worker leaves 1 serving: the fewest in any trial. Round 3's worker with
        // a single connection served.
        served: 1,
        // Busiest first per trial: [60, 40], [90, 1], [50, 45]; medians per rank: 60 and 40.
        cpuPercent: [60, 40],
        // [34, 30], [64, 0], [63, 1]: medians 63 and 1.
        connections: [63, 1],
        primaryRssMiB: 21, // median of 20, 22, 21
        peakRssMiB: 100, // median of 100, 110, 90
      },
      {
        app: "bun-bare",
        scenario: "api",
        workers: 4,
        served: 4,
        // One trial: its own figures, busiest first.
        cpuPercent: [40, 30, 20, 10],
        connections: [30, 20, 10, 4],
        primaryRssMiB: 0, // not recorded: 0
        peakRssMiB: 80,
      },
    ]);
    expect(
      workersRows(
        syntheticRun(["bun-bare"], ["api"], [syntheticTrial("bun-bare", "api", 1, 64, 1, 1)]),
      ),
    ).toEqual([]);
  });

  test("two counts of one app are two rows", () => {
    const two = syntheticRun(
      ["bun-bare"],
      ["api"],
      [
        trial("bun-bare", 1, [worker(1, 50, 32), worker(2, 50, 32)], 10, 50),
        trial("bun-bare", 1, [worker(3, 25, 16), worker(4, 25, 16), worker(5, 25, 16)], 10, 60),
        trial("bun-bare", 2, [worker(6, 70, 40), worker(7, 30, 24)], 12, 70),
      ],
    );
    expect(workersRows(two).map((r) => [r.workers, r.cpuPercent, r.peakRssMiB])).toEqual([
      [2, [60, 40], 60], // [50, 50] and [70, 30]: medians (50+70)/2 and (50+30)/2; RSS (50+70)/2
      [3, [25, 25, 25], 60],
    ]);
  });

  test("the cells: served of started, (!) when some did not, figures per rank", () => {
    const [node, bun] = workersRows(RUN);
    expectHeaderOf(WORKERS_HEADER, workersCells(node as NonNullable<typeof node>));
    expect(workersCells(node as NonNullable<typeof node>)).toEqual([
      "node-bare",
      "api",
      "1 of 2 (!)",
      "60 / 40",
      "63 / 1",
      "21.0",
      "100.0",
    ]);
    expect(workersCells(bun as NonNullable<typeof bun>)).toEqual([
      "bun-bare",
      "api",
      "4 of 4",
      "40 / 30 / 20 / 10",
      "30 / 20 / 10 / 4",
      "0.0",
      "80.0",
    ]);
  });
});

describe("scaling over worker counts (--workers 1,2,4)", () => {
  const trial = (app: string, scenario: string, workers: number, rps: number, round: number) => {
    const t = syntheticTrial(app, scenario, round, 64, rps, 5);
    return workers > 1 ? { ...t, workers } : t;
  };
  const rounds = [1, 2, 3];
  const RUN = syntheticRun(
    ["a-bare", "b-bare", "c-bare"],
    ["api", "echo"],
    [
      ...rounds.flatMap((r) => [
        // a-bare: 1,002 → 1,902 (×1.90) → 3,602 (×3.59), each far beyond a ±1 noise.
        trial("a-bare", "api", 1, 1000 + r, r),
        trial("a-bare", "api", 2, 1900 + r, r),
        trial("a-bare", "api", 4, 3600 + r, r),
        // b-bare: 1,200 → 1,210, a ratio the rounds move by ±20%: a tie; → 5,200 far beyond it.
        trial("b-bare", "api", 1, 1000 + 100 * r, r),
        trial("b-bare", "api", 2, 1410 - 100 * r, r),
        trial("b-bare", "api", 4, 5000 + 100 * r, r),
        // c-bare never measured at 1 worker: no multiple, only its req/s.
        trial("c-bare", "api", 2, 2000 + r, r),
        trial("c-bare", "api", 4, 2100 + r, r),
        // echo: a-bare only, half its api figures, and ×2 at 2 workers (one count missing).
        trial("a-bare", "echo", 1, 500 + r, r),
        trial("a-bare", "echo", 2, 1000 + r, r),
      ]),
      // A lone process at 4 workers: one process cannot be tested, so ≈ (untestable).
      trial("b-bare", "echo", 1, 700, 1),
      trial("b-bare", "echo", 1, 710, 2),
      trial("b-bare", "echo", 4, 1400, 1),
    ],
    { workers: 4, workerCounts: [1, 2, 4] },
  );

  test("per scenario: req/s per count, × the first, ≈ when not significant or untestable", () => {
    const views = scalingViews(analyze(RUN));
    expect(views.map((v) => v.scenario)).toEqual(["api", "echo"]);
    const [api, echo] = views;
    expect(api?.header).toEqual(["app", "1 worker(s)", "2 worker(s)", "4 worker(s)"]);
    expect(api?.rows).toEqual([
      ["a-bare", "1,002", "1,902 (×1.90)", "3,602 (×3.59)"], // 1902/1002 = 1.898, 3602/1002 = 3.595
      // 1210/1200 = 1.008, 5200/1200 = 4.333: each count its own verdict.
      ["b-bare", "1,200", "1,210 (≈×1.01)", "5,200 (×4.33)"],
      ["c-bare", "—", "2,002", "2,102"],
    ]);
    expect(echo?.rows).toEqual([
      ["a-bare", "502", "1,002 (×2.00)", "—"], // 1002/502 = 1.996
      ["b-bare", "705", "—", "1,400 (≈×1.99)"], // 1400/705 = 1.986: one process, untestable
      ["c-bare", "—", "—", "—"],
    ]);
  });

  test("the first count is not tested against itself: it would tighten Holm", () => {
    // One app, 1 and 2 workers, three processes each: 900, 1,000, 1,100 and 1,150, 1,250,
    // 1,350 (three rounds: too few to pair, so Welch's test). t = 250 / 81.6 = 3.06 on 4
    // degrees of freedom, two-sided p between 0.025 (t = 3.495) and 0.05 (t = 2.776). Alone in
    // its family it is significant; with a comparison of the first count with itself beside it,
    // Holm would hold it to 0.025.
    const one = syntheticRun(
      ["a-bare"],
      ["api"],
      rounds.flatMap((r) => [
        trial("a-bare", "api", 1, 800 + 100 * r, r),
        trial("a-bare", "api", 2, 1050 + 100 * r, r),
      ]),
      { workers: 2, workerCounts: [1, 2] },
    );
    expect(scalingViews(analyze(one))[0]?.rows).toEqual([["a-bare", "1,000", "1,250 (×1.25)"]]);
  });

  test("a single count, or none: no scaling table", () => {
    const settings = (workerCounts: number[] | undefined): Results => ({
      ...RUN,
      manifest: { ...RUN.manifest, settings: { ...RUN.manifest.settings, workerCounts } },
    });
    expect(scalingViews(analyze(settings(undefined)))).toEqual([]);
    expect(scalingViews(analyze(settings([2])))).toEqual([]);
    expect(scalingViews(analyze(settings([1, 2])))[0]?.header).toEqual([
      "app",
      "1 worker(s)",
      "2 worker(s)",
    ]);
  });
});

describe("runtime versions (--node 22,24,25)", () => {
  const V = ["22.23.3", "24.21.0", "25.2.1"];
  /** Valid trials of `app` on `scenario` at these req/s, round by round; `invalidToo` more after them. */
  const trials = (app: string, scenario: string, rps: number[], invalidToo = 0) => [
    ...rps.map((r, i) => syntheticTrial(app, scenario, i + 1, 50, r, 5)),
    ...Array.from({ length: invalidToo }, (_, i) =>
      invalid(syntheticTrial(app, scenario, rps.length + i + 1, 50, 1_000, 5)),
    ),
  ];
  const apps = ["node-bare", "node-hono", "node-express"].flatMap((a) => V.map((v) => `${a}@${v}`));
  const RUN = syntheticRun(
    [...apps, "bun-bare"],
    ["api", "echo"],
    [
      ...trials("node-bare@22.23.3", "api", [10_000, 10_010, 9_990]),
      ...trials("node-bare@24.21.0", "api", [11_000, 11_010, 10_990]), // +10%, noise ±10: clear
      // node-bare@25.2.1 not measured on api
      ...trials("node-hono@22.23.3", "api", [8_000, 8_400, 7_600]),
      ...trials("node-hono@24.21.0", "api", [8_100, 7_700, 8_200]), // the same within ±400: a tie
      ...trials("node-hono@25.2.1", "api", [8_800], 2), // one valid trial: untestable
      ...trials("node-express@22.23.3", "api", [9_000], 1), // the first version: one valid trial
      ...trials("node-express@24.21.0", "api", [9_900, 10_000, 10_100]),
      ...trials("node-express@25.2.1", "api", [], 3), // none valid: not measured
      ...trials("bun-bare", "api", [20_000, 20_010, 19_990]),
      // echo: node-bare only, and not on the first version
      ...trials("node-bare@24.21.0", "echo", [5_000, 5_010, 4_990]),
      ...trials("node-bare@25.2.1", "echo", [6_000, 6_010, 5_990]),
    ],
    {
      runtimeVersions: {
        node: V.map((version) => ({ asked: version.split(".")[0] as string, version })),
        // One version of Bun: nothing to compare, no table.
        bun: [{ asked: "1.3", version: "1.3.0" }],
      },
    },
  );

  test("per group: each app once, each version as % of the first; ≈ for a tie or one process", () => {
    const views = versionViews(analyze(RUN));
    expect(views.map((v) => [v.group, v.runtime])).toEqual([
      ["api", "node"],
      ["echo", "node"],
    ]);
    const [api, echo] = views;
    expect(api?.versions).toEqual(V);
    expect(api?.header).toEqual(["app", "node 22.23.3", "node 24.21.0", "node 25.2.1"]);
    expect(api?.rows[0]).toEqual(["node-bare", "10,000", "11,000 (110%)", "—"]);
    // A tie of three processes each says what the run could have told apart; one process cannot
    // be tested at all: ≈ without a figure. 8,800 / 8,000 = 110%.
    expect(api?.rows[1]?.slice(0, 2)).toEqual(["node-hono", "8,000"]);
    expect(api?.rows[1]?.[2]).toMatch(/^8,000 \(≈100%, could detect ≥ \d+\.\d%\)$/);
    expect(api?.rows[1]?.[3]).toBe("8,800 (≈110%)");
    // A first version of one process: every later one untestable. 10,000 / 9,000 = 111.1%.
    expect(api?.rows[2]).toEqual(["node-express", "9,000", "10,000 (≈111%)", "—"]);
    expect(api?.rows).toHaveLength(3);
    // No first version: req/s alone.
    expect(echo?.rows).toEqual([
      ["node-bare", "—", "5,000", "6,000"],
      ["node-hono", "—", "—", "—"],
      ["node-express", "—", "—", "—"],
    ]);
    // The measured rows behind the cells, per app and version.
    expect(api?.measured.map((m) => [m.app, m.byVersion.map((r) => r?.rps.mean)])).toEqual([
      ["node-bare", [10_000, 11_000, undefined]],
      ["node-hono", [8_000, 8_000, 8_800]],
      ["node-express", [9_000, 10_000, undefined]],
    ]);
    expect(api?.measured.map((m) => m.byVersion.map((r) => r?.app))[1]).toEqual(
      V.map((v) => `node-hono@${v}`),
    );
    expect(VERSIONS_INTRO).toContain("--node");
  });

  test("two versions are enough for a table; one is not", () => {
    const two = syntheticVersionsRun();
    expect(versionViews(analyze(two)).map((v) => v.versions)).toEqual([["22.23.3", "24.21.0"]]);
    const settings = two.manifest.settings;
    const one: Results = {
      ...two,
      manifest: {
        ...two.manifest,
        settings: {
          ...settings,
          runtimeVersions: { node: settings.runtimeVersions?.node?.slice(1) ?? [] },
        },
      },
    };
    expect(versionViews(analyze(one))).toEqual([]);
    const none: Results = {
      ...two,
      manifest: { ...two.manifest, settings: { ...settings, runtimeVersions: undefined } },
    };
    expect(versionViews(analyze(none))).toEqual([]);
  });

  test("the chart: per app one bar per version; Mermaid lists the measured ones app by app", () => {
    const [api] = versionViews(analyze(RUN));
    const view = api as NonNullable<typeof api>;
    const chart = versionChart(view);
    expect(chart.id).toBe("versions-api-node");
    expect(chart.title).toBe("api: req/s on each node version (mean over processes, bars: 95% CI)");
    expect(chart.labels).toEqual(["node-bare", "node-hono", "node-express"]);
    expect(chart.datasets.map((d) => [d.label, d.rows.map((r) => r?.rps.mean)])).toEqual([
      ["node 22.23.3", [10_000, 8_000, 9_000]],
      ["node 24.21.0", [11_000, 8_000, 10_000]],
      ["node 25.2.1", [undefined, 8_800, undefined]],
    ]);
    const mermaid = versionMermaid(view);
    expect(mermaid).toContain('title "api: req/s on each node version (mean)"');
    expect(mermaid).toContain(
      'x-axis ["node-bare@22.23.3", "node-bare@24.21.0", "node-hono@22.23.3", "node-hono@24.21.0", ' +
        '"node-hono@25.2.1", "node-express@22.23.3", "node-express@24.21.0"]',
    );
    expect(mermaid).toContain("bar [10000, 11000, 8000, 8000, 8800, 9000, 10000]");
    expect(mermaid).toContain('y-axis "req/s"');
  });
});

/** Latencies with these p50, p99 and p99.9 (ms). */
const lat = (p50: number, p99: number, p999 = p99): LatencyMs => ({
  mean: p50,
  p50,
  p90: p99,
  p99,
  p999,
  max: p999,
});
/** A valid rate trial of `app` on `scenario` at `offered` req/s (achieved in full unless patched). */
const rate = (
  app: string,
  scenario: string,
  requested: string,
  offered: number,
  latency: LatencyMs,
  patch: Partial<RateTrial> = {},
): RateTrial => ({ ...syntheticRateTrial(requested, offered, latency, patch), app, scenario });

describe("open-loop rates (--rates) and their capacity at the p99 budget", () => {
  const TRIALS: RateTrial[] = [
    // api, bun-bare: listed out of order; 5,000 kept the 10 ms budget twice, 10,000 missed it,
    // 20,000 achieved only 15,000 (over capacity).
    rate("bun-bare", "api", "20000", 20_000, lat(50, 200), {
      achievedRps: 15_000,
      overCapacity: true,
    }),
    rate("bun-bare", "api", "5000", 5_000, lat(1, 2)),
    rate("bun-bare", "api", "10000", 10_000, lat(5, 20)),
    rate("bun-bare", "api", "5000", 5_000, lat(3, 4)),
    // api, node-bare: no level says anything of the server.
    rate("node-bare", "api", "1000", 1_000, lat(1, 1), { loadGeneratorBound: true }),
    rate("node-bare", "api", "2000", 2_000, lat(1, 1), { machineFull: true }),
    // api, deno-bare: 3,000 missed, 6,000 kept it with 5 requests never sent (p99.9 8 ≤ 10, and
    // 5 + 0.1% of 6,000 answered = 11 ≤ 1% of 6,000 scheduled): a lower rate missed, noise.
    rate("deno-bare", "api", "3000", 3_000, lat(4, 20)),
    rate("deno-bare", "api", "6000", 6_000, lat(2, 5, 8), {
      schedule: { scheduled: 6_000, sent: 5_995, unsent: 5 },
    }),
    // echo, bun-bare: every judged rate missed; the saturated one does not count as the lowest.
    rate("bun-bare", "echo", "2000", 2_000, lat(1, 1), { loadGeneratorBound: true }),
    rate("bun-bare", "echo", "8000", 8_000, lat(10, 30)),
    rate("bun-bare", "echo", "4000", 4_000, lat(5, 20)),
    // echo, node-bare: a listed rate and a search (2 of 3 kept 10,000; 20,000 missed).
    rate("node-bare", "echo", "15000", 15_000, lat(3, 8)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 4)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 5)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 30)),
    rate("node-bare", "echo", "search", 20_000, lat(5, 40)),
  ];
  const RUN: Results = {
    ...syntheticRun(["bun-bare", "node-bare", "deno-bare"], ["api", "echo", "hello"], [], {
      sloP99Ms: 10,
    }),
    rateTrials: TRIALS,
    searches: [
      { app: "node-bare", scenario: "api", closedLoopRps: 99_999, trials: 9, elapsedSec: 9 },
      { app: "bun-bare", scenario: "echo", closedLoopRps: 77_777, trials: 7, elapsedSec: 7 },
      { app: "node-bare", scenario: "echo", closedLoopRps: 20_000, trials: 4, elapsedSec: 61.4 },
    ],
  };

  test("per scenario with trials: each level's medians, spread and budget verdict", () => {
    const views = rateViews(RUN);
    expect(views.map((v) => v.scenario)).toEqual(["api", "echo"]); // hello: no trials, no table
    const [api, echo] = views;
    expectHeaderOf(RATES_HEADER, api?.rows[0]);
    expect(api?.rows).toEqual([
      // Two trials: p50 median of 1 and 3, p99 median of 2 and 4, with its range.
      ["bun-bare", "5000", "5,000", "5,000", "2.00", "3.00 (2.00–4.00)", "within"],
      ["bun-bare", "10000", "10,000", "10,000", "5.00", "20.00", "missed"],
      ["bun-bare", "20000", "20,000", "15,000", "50.00", "200.00", "over capacity"],
      [
        "node-bare",
        "1000",
        "1,000",
        "1,000",
        "1.00",
        "1.00",
        "not judged: load generator saturated",
      ],
      ["node-bare", "2000", "2,000", "2,000", "1.00", "1.00", "not judged: machine full"],
      ["deno-bare", "3000", "3,000", "3,000", "4.00", "20.00", "missed"],
      ["deno-bare", "6000", "6,000", "6,000", "2.00", "5.00", "within (5 unsent)"],
    ]);
    expect(echo?.rows).toEqual([
      [
        "bun-bare",
        "2000",
        "2,000",
        "2,000",
        "1.00",
        "1.00",
        "not judged: load generator saturated",
      ],
      ["bun-bare", "4000", "4,000", "4,000", "5.00", "20.00", "missed"],
      ["bun-bare", "8000", "8,000", "8,000", "10.00", "30.00", "missed"],
      ["node-bare", "15000", "15,000", "15,000", "3.00", "8.00", "within"],
      // The search's levels after the listed ones: p99 median of 4, 5, 30.
      [
        "node-bare",
        "search",
        "10,000",
        "10,000",
        "2.00",
        "5.00 (4.00–30.00)",
        "within (2/3 kept it): p99 30.00 ms",
      ],
      [
        "node-bare",
        "search",
        "20,000",
        "20,000",
        "5.00",
        "40.00",
        "over (0/1 kept it): p99 40.00 ms",
      ],
    ]);
  });

  test("capacity: bracketed by the measured rates, or why it cannot be", () => {
    const [api, echo] = rateViews(RUN);
    expectHeaderOf(CAPACITY_HEADER, api?.capacity[0]);
    expect(api?.capacity).toEqual([
      [
        "bun-bare",
        "5,000 req/s (below 10,000)",
        "the highest measured rate that met the budget; the next one measured missed it",
      ],
      ["node-bare", "—", "the load generator was saturated at every measured rate"],
      [
        "deno-bare",
        "at least 6,000 req/s",
        "the highest measured rate met the budget; measure higher rates for the limit; a lower rate missed it too (noise)",
      ],
    ]);
    expect(echo?.capacity).toEqual([
      ["bun-bare", "below 4,000 req/s", "even the lowest measured rate missed the budget"],
      [
        "node-bare",
        "at least 15,000 req/s",
        "the highest measured rate met the budget; measure higher rates for the limit",
      ],
      [
        "node-bare",
        "10,000–20,000 req/s",
        // node-bare's echo search's record, not its api one's, nor bun-bare's on echo.
        "searched from 20,000 req/s (closed loop): 4 trials in 61 s; 10,000 kept the budget (3 trial(s)); 20,000 over (1 trial(s))",
      ],
    ]);
  });

  test("the chart's series: listed and searched levels of each app together, slowest first", () => {
    const [api, echo] = rateViews(RUN);
    const offered = (v: typeof api) =>
      v?.series.map((s) => [s.app, s.levels.map((l) => l.offeredRps)]);
    expect(offered(api)).toEqual([
      ["bun-bare", [5_000, 10_000, 20_000]],
      ["node-bare", [1_000, 2_000]],
      ["deno-bare", [3_000, 6_000]],
    ]);
    expect(offered(echo)).toEqual([
      ["bun-bare", [2_000, 4_000, 8_000]],
      ["node-bare", [10_000, 15_000, 20_000]],
    ]);
    expect(echo?.series[1]?.levels.map((l) => l.requested)).toEqual(["search", "15000", "search"]);
  });

  test("the intro: the tolerance, the budget, the rule, and the search's only with a search", () => {
    const intro = ratesIntro(RUN);
    expect(intro).toContain("more than 5% short of its offer");
    expect(intro).toContain("p99 within 10.0 ms (--slo-p99)");
    expect(intro).toContain(`and most kept the budget. ${BUDGET_RULE} ${SEARCH_INTRO}`);
    const listedOnly: Results = {
      ...RUN,
      rateTrials: TRIALS.filter((t) => t.requested !== "search"),
    };
    expect(ratesIntro(listedOnly).endsWith(`and most kept the budget. ${BUDGET_RULE}`)).toBe(true);
    const noBudget: Results = {
      ...listedOnly,
      manifest: { ...RUN.manifest, settings: { ...RUN.manifest.settings, sloP99Ms: undefined } },
    };
    expect(ratesIntro(noBudget)).toContain("p99 within — ms");
    expect(ratesIntro({ ...RUN, rateTrials: undefined })).not.toContain(SEARCH_INTRO);
  });

  test("a run without rate trials has no rates table", () => {
    expect(rateViews({ ...RUN, rateTrials: undefined })).toEqual([]);
    expect(rateViews({ ...RUN, rateTrials: [] })).toEqual([]);
  });
});

describe("--rates search in the reports", () => {
  const at = (offered: number, p99: number, patch: Partial<RateTrial> = {}) =>
    rate("bun-bare", "api", "search", offered, lat(1, p99), patch);
  const results = (searches: Results["searches"] = []): Results => ({
    ...syntheticRun(["bun-bare"], ["api"], []),
    searches,
  });
  const view = (trials: RateTrial[], searches: Results["searches"] = []) =>
    searchView(results(searches), trials, "bun-bare", "api", 10);

  test("each searched rate a level: its verdict the majority's, every reason a trial missed", () => {
    const trials = [at(20_000, 2), at(20_000, 30), at(20_000, 3), at(40_000, 50), at(40_000, 60)];
    const v = view(trials);
    expect(
      v?.levels.map((l) => [
        l.requested,
        l.offeredRps,
        l.trials,
        l.withinBudget,
        l.loadGeneratorBound,
      ]),
    ).toEqual([
      ["search", 20_000, 3, true, false],
      ["search", 40_000, 2, false, false],
    ]);
    expect(v?.verdicts).toEqual([
      "within (2/3 kept it): p99 30.00 ms",
      "over (0/2 kept it): p99 50.00 ms; p99 60.00 ms",
    ]);
    expect(v?.capacity).toEqual([
      "bun-bare",
      "20,000–40,000 req/s",
      "search incomplete (interrupted); 20,000 kept the budget (3 trial(s)); 40,000 over (2 trial(s))",
    ]);
    expect(searchInterval(trials, "bun-bare", "api", 10)).toEqual({ low: 20_000, high: 40_000 });
    // Another app's or scenario's trials are not this search's.
    expect(view(trials.map((t) => ({ ...t, app: "node-bare" })))).toBeUndefined();
    expect(view(trials.map((t) => ({ ...t, scenario: "echo" })))).toBeUndefined();
    expect(searchInterval([], "bun-bare", "api", 10)).toBeUndefined();
  });

  test("the same reason twice is said once; an unjudged level is marked so", () => {
    const bound = { loadGeneratorBound: true };
    const v = view([at(20_000, 2, bound), at(20_000, 2, bound), at(20_000, 2)]);
    expect(v?.verdicts).toEqual(["not judged (1/3 kept it): load generator saturated"]);
    expect(v?.levels.map((l) => [l.loadGeneratorBound, l.withinBudget])).toEqual([[true, false]]);
    expect(v?.capacity).toEqual([
      "bun-bare",
      "not determined (20,000 req/s not judged)",
      "search incomplete (interrupted); 20,000 not judged (3 trial(s))",
    ]);
  });

  test("capacity when even the lowest rate missed, or nothing above was missed", () => {
    expect(view([at(30_000, 40), at(60_000, 2)])?.capacity.slice(1)).toEqual([
      "below 30,000 req/s",
      // The lowest missed: the 60,000 that kept it is noise above the miss.
      "search incomplete (interrupted); 30,000 over (1 trial(s)); a higher rate kept the budget too (noise): the lower miss caps it",
    ]);
    const record = {
      app: "bun-bare",
      scenario: "api",
      closedLoopRps: 25_000,
      trials: 15,
      elapsedSec: 89.6,
    };
    expect(view([at(20_000, 2)], [record])?.verdicts).toEqual(["within (1/1 kept it)"]);
    expect(view([at(20_000, 2)], [record])?.capacity.slice(1)).toEqual([
      "at least 20,000 req/s",
      "searched from 25,000 req/s (closed loop): 15 trials in 90 s; 20,000 kept the budget (1 trial(s))",
    ]);
    // At the trial limit (16), the ends were not all repeated.
    expect(view([at(20_000, 2)], [{ ...record, trials: 16 }])?.capacity[2]).toBe(
      "searched from 25,000 req/s (closed loop): 16 trials in 90 s; 20,000 kept the budget (1 trial(s)); stopped at its 16-trial limit, ends not all repeated",
    );
    expect(searchInterval([at(20_000, 2)], "bun-bare", "api", 10)).toBeUndefined();
  });

  test("an unjudged top: at least the bottom, and no interval for the chart", () => {
    const trials = [at(10_000, 2), at(20_000, 30), at(30_000, 2)];
    // 10,000 kept it, 20,000 missed, 30,000 kept it again: the miss caps the interval.
    expect(view(trials)?.capacity.slice(1)).toEqual([
      "10,000–20,000 req/s",
      "search incomplete (interrupted); 10,000 kept the budget (1 trial(s)); 20,000 over (1 trial(s)); a higher rate kept the budget too (noise): the lower miss caps it",
    ]);
    const top = [at(20_000, 2), at(30_000, 2, { loadGeneratorBound: true })];
    expect(view(top)?.capacity[1]).toBe("at least 20,000 req/s (not judged from 30,000)");
    expect(searchInterval(top, "bun-bare", "api", 10)).toBeUndefined();
  });
});

describe("start-up", () => {
  const start = (
    readyMs: number,
    rssReadyMiB: number,
    rssIdleMiB: number | undefined,
    fresh: boolean,
  ) => ({
    readyMs,
    rssReadyMiB,
    ...(rssIdleMiB === undefined ? {} : { rssIdleMiB }),
    fresh,
  });
  const run = syntheticRun(["bun-bare", "node-bare", "deno-bare", "deno-hono"], ["api"], []);
  const RUN: Results = {
    ...run,
    apps: run.apps.map((a) => {
      const startups = {
        // Three starts, two fresh: ready 10, 20, 30 ms; idle RSS read on two of them.
        "bun-bare": [
          start(30, 40, 42, false),
          start(10, 38, 41, true),
          start(20, 39, undefined, true),
        ],
        "node-bare": [start(5, 50, 51, false)],
        "deno-bare": [start(12, 30, 30, true)],
      }[a.name];
      return startups ? { ...a, startups } : a;
    }),
  };

  test("the intro states the idle pause the memory is read after: 1,000 ms is 1 s", () => {
    expect(STARTUP_INTRO).toContain(" after 1 s with no requests");
  });

  test("fastest start first; an app never started has no row", () => {
    expect(startupTable(RUN).map((r) => [r.app, r.readyMs.median])).toEqual([
      ["node-bare", 5],
      ["deno-bare", 12],
      ["bun-bare", 20],
    ]);
  });

  test("the cells: starts (fresh), median with its range unless every start agreed", () => {
    const cells = startupTable(RUN).map(startupCells);
    expectHeaderOf(STARTUP_HEADER, cells[0]);
    expect(cells).toEqual([
      ["node-bare", "1 (0)", "5", "50.0", "51.0"],
      ["deno-bare", "1 (1)", "12", "30.0", "30.0"],
      // Idle RSS: median of 42 and 41 = 41.5.
      ["bun-bare", "3 (2)", "20 (10–30)", "39.0", "41.5 (41.0–42.0)"],
    ]);
    const row: StartupRow = {
      app: "x",
      starts: 2,
      fresh: 0,
      readyMs: { median: 7, min: 7, max: 7 },
      rssReadyMiB: 1,
      rssIdleMiB: { median: 2.5, min: 2, max: 3 },
    };
    expect(startupCells(row).slice(2)).toEqual(["7", "1.0", "2.5 (2.0–3.0)"]);
  });
});

describe("calibration (--calibrate)", () => {
  const VIEW: CalibrationView = {
    group: "api",
    base: "bun-bare",
    rows: [
      {
        name: "bun-bare+0%",
        share: 0,
        iterations: 0,
        realized: 0,
        expected: 0,
        measured: 0.004,
        ci: { low: -0.01, high: 0.018 },
        different: false,
        mdd: 0.031,
        rate: 0.04,
      },
      {
        name: "bun-bare+5%",
        share: 0.05,
        iterations: 12_345,
        realized: 0.048,
        expected: 1 / 1.048 - 1, // −4.58%
        measured: -0.05,
        ci: { low: -0.06, high: -0.04 },
        different: true,
        mdd: 0.03,
        rate: 0.9,
      },
      // Untestable: no change, no interval, no detectable figure, no subsampled rate.
      {
        name: "bun-bare+10%",
        share: 0.1,
        iterations: 24_690,
        realized: 0.1,
        expected: 1 / 1.1 - 1,
        different: false,
      },
      // A change without its interval, or an interval without its change, is not shown half.
      {
        name: "bun-bare+2%",
        share: 0.02,
        iterations: 4_938,
        realized: 0.02,
        expected: 1 / 1.02 - 1,
        measured: -0.02,
        different: false,
      },
      {
        name: "bun-bare+1%",
        share: 0.01,
        iterations: 2_469,
        realized: 0.01,
        expected: 1 / 1.01 - 1,
        ci: { low: -0.02, high: 0 },
        different: false,
      },
    ],
    subsample: { rounds: 10, draws: 400 },
  };

  test("the cells: realized extra, expected and measured change, verdict, detectable, rate", () => {
    expect(calibrationCells(VIEW)).toEqual([
      ["bun-bare+0%", "0", "0.0%", "+0.0%", "+0.4% (−1.0% to +1.8%)", "≈ tie", "≥ 3.1%", "4%"],
      [
        "bun-bare+5%",
        "12,345",
        "4.8%",
        "−4.6%",
        "−5.0% (−6.0% to −4.0%)",
        "different",
        "≥ 3.0%",
        "90%",
      ],
      ["bun-bare+10%", "24,690", "10.0%", "−9.1%", "—", "≈ tie", "—", "—"], // 1/1.1 − 1 = −9.09%
      ["bun-bare+2%", "4,938", "2.0%", "−2.0%", "—", "≈ tie", "—", "—"], // 1/1.02 − 1 = −1.96%
      ["bun-bare+1%", "2,469", "1.0%", "−1.0%", "—", "≈ tie", "—", "—"], // 1/1.01 − 1 = −0.99%
    ]);
    expectHeaderOf(CALIBRATION_HEADER, calibrationCells(VIEW)[0]);
  });

  test("the caption: over how many subsamples, or why there are none", () => {
    expect(calibrationCaption(VIEW)).toBe("api: called different over 400 subsamples of 10 rounds");
    const { subsample: _, ...none } = VIEW;
    expect(calibrationCaption(none)).toBe(
      "api: too few rounds for subsampled rates (the run needs more rounds than a default run)",
    );
  });

  test("a run that is not a calibration has no calibration section", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      [syntheticTrial("bun-bare", "api", 1, 64, 1000, 1)],
    );
    expect(calibrationSections(analyze(run))).toEqual([]);
  });
});

describe("profiles (--profile)", () => {
  const HEADER = ["#", "function", "where", "self samples", "share"];
  const summary = (coverage: number) => ({
    totalMs: 5_000,
    samples: 4_000,
    idleSamples: 1_000,
    coverage,
    top: [
      { function: "handle", location: "apps/bun-bare/src/app.ts:10", samples: 600, percent: 20 },
      { function: "(garbage collector)", location: "", samples: 300, percent: 10.04 },
    ],
  });
  const base = { startedAt: "2026-11-22T12:00:00.000Z" };
  const RUN: Results = {
    ...syntheticRun(["bun-bare"], ["api"], []),
    profiles: [
      // Coverage exactly at the threshold (0.5): not called low.
      {
        ...base,
        app: "bun-bare",
        scenario: "api",
        file: "profiles/bun-bare-api.cpuprofile",
        rps: 12_345.6,
        p99Ms: 1.26,
        summary: summary(0.5),
      },
      {
        ...base,
        app: "node-bare",
        scenario: "api",
        summary: { ...summary(0.2), samples: 100, idleSamples: 0, totalMs: 1_234, top: [] },
      },
      {
        ...base,
        app: "deno-bare",
        scenario: "echo",
        rps: 1_000,
        unavailable: "deno wrote no profile",
      },
      { ...base, app: "bun-hono", scenario: "api" },
      // Unavailable wins over a summary.
      {
        ...base,
        app: "node-hono",
        scenario: "api",
        unavailable: "the trial failed",
        summary: summary(0.9),
      },
    ],
  };

  test("per profiled trial: what it measured, how much the sampler saw, the hottest functions", () => {
    const [bun, node, ...rest] = profileViews(RUN);
    expect(bun).toStrictEqual({
      title: "bun-bare · api",
      file: "profiles/bun-bare-api.cpuprofile",
      // 4,000 samples, 1,000 idle: 3,000 busy; 5,000 ms = 5.0 s.
      text: "Profiled trial: 12,346 req/s, p99 1.3 ms (not counted). 4,000 samples over 5.0 s, 3,000 of them busy (not idle).",
      header: HEADER,
      rows: [
        ["1", "handle", "apps/bun-bare/src/app.ts:10", "600", "20.0%"],
        ["2", "(garbage collector)", "(native)", "300", "10.0%"],
      ],
    });
    expect(node).toStrictEqual({
      title: "node-bare · api",
      text:
        "100 samples over 1.2 s, 100 of them busy (not idle). The sampler saw only 20% of the time: " +
        "it samples only while the JavaScript VM runs, so the runtime's native work (its HTTP " +
        "server, I/O) is mostly missing from this list.",
      header: HEADER,
      rows: [],
    });
    expect(rest).toStrictEqual([
      {
        title: "deno-bare · echo",
        text: "Profiled trial: 1,000 req/s, p99 — ms (not counted). No profile: deno wrote no profile.",
        header: HEADER,
        rows: [],
      },
      { title: "bun-hono · api", text: "No profile: none recorded.", header: HEADER, rows: [] },
      { title: "node-hono · api", text: "No profile: the trial failed.", header: HEADER, rows: [] },
    ]);
  });

  test("a run without --profile has no profiles", () => {
    expect(profileViews({ ...RUN, profiles: undefined })).toEqual([]);
  });
});

describe("the throughput curve (--connections 1,10)", () => {
  /** Two processes of `app` on `scenario` at `c` connections, both at `rps` with this p99. */
  const two = (app: string, scenario: string, c: number, rps: number, p99: number) =>
    [1, 2].map((round) => syntheticTrial(app, scenario, round, c, rps, p99));
  const RUN = syntheticRun(
    ["bun-bare", "node-bare", "deno-bare"],
    ["api", "echo"],
    [
      // bun-bare on api: the same req/s at both counts, 4× the p99 at 10: the first count is
      // the peak (a tie does not move it), and the last one is +0% on it.
      ...two("bun-bare", "api", 1, 1_000, 1),
      ...two("bun-bare", "api", 10, 1_000, 4),
      // node-bare on api: no valid trial at 1 connection; at 10 the peak is the last count.
      ...two("node-bare", "api", 1, 5_000, 1).map(invalid),
      ...two("node-bare", "api", 10, 2_000, 2),
      // deno-bare: never measured. bun-bare on echo: 500 → 400 req/s (−20%), p99 1 → 3 ms.
      ...two("bun-bare", "echo", 1, 500, 1),
      ...two("bun-bare", "echo", 10, 400, 3),
    ],
    { connections: 10, connectionCounts: [1, 10] },
  );

  test("per scenario, per app: req/s (p99) at each count, the peak, what is past it", () => {
    const views = curveViews(analyze(RUN));
    expect(views.map((v) => v.scenario)).toEqual(["api", "echo"]);
    const [api, echo] = views;
    expect(api?.header).toEqual(["app", "c=1", "c=10", "peak", "past the peak"]);
    expect(api?.rows).toEqual([
      ["bun-bare", "1,000 (1.0)", "1,000 (4.0)", "c=1", "at 10: p99 ×4.0, req/s +0%"],
      ["node-bare", "—", "2,000 (2.0)", "c=10", "peak at the largest count measured"],
      ["deno-bare", "—", "—", "—", "—"],
    ]);
    expect(echo?.rows).toEqual([
      ["bun-bare", "500 (1.0)", "400 (3.0)", "c=1", "at 10: p99 ×3.0, req/s −20%"],
      ["node-bare", "—", "—", "—", "—"],
      ["deno-bare", "—", "—", "—", "—"],
    ]);
    // The chart's points: a count without valid trials is NaN, not a zero.
    expect(api?.series[1]).toEqual({
      app: "node-bare",
      points: [
        { connections: 1, rps: Number.NaN, p99Ms: Number.NaN },
        { connections: 10, rps: 2_000, p99Ms: 2 },
      ],
    });
  });
});

describe("the production tax table", () => {
  /** Processes of `app` on `scenario` at req/s `mean` with a ±1% wobble, one per round. */
  const trials = (app: string, scenario: string, mean: number, wobble = [0.99, 1.01, 1]) =>
    wobble.map((k, i) => syntheticTrial(app, scenario, i + 1, 64, mean * k, 2));
  const RUN = syntheticRun(
    ["bun-bare", "bun-hono", "bun-elysia"],
    ["api", "auth"],
    [
      ...trials("bun-bare", "api", 100_000),
      // Round 1 of bun-bare's auth contended: its stage is starred, bun-hono's is not.
      ...trials("bun-bare", "auth", 60_000).map((t) =>
        t.round === 1 ? { ...t, checks: cleanChecks(57.6, 64, { contended: true }) } : t,
      ),
      ...trials("bun-hono", "api", 80_000),
      ...trials("bun-hono", "auth", 40_000, [1]), // one process: untestable, ≈ and no figure
      ...trials("bun-elysia", "api", 90_000), // no stage measured: no row
    ],
  );

  test("one row per app with a stage; an untestable stage is ≈ without what it could detect", () => {
    const [view, ...more] = productionViews(analyze(RUN));
    expect(more).toEqual([]);
    expect(view?.api).toBe("api");
    expect(view?.header).toEqual(["app", "api req/s", "framework tax (of bare)", "auth"]);
    expect(view?.rows).toEqual([
      ["bun-bare", "100,000", "—", "60%*"],
      // api: 80,000 of bare's 100,000; auth: 40,000 of 80,000, from one process.
      ["bun-hono", "80,000", "80%", "≈50%"],
    ]);
  });
});
