// --precision's stopping rule and --calibrate's pure parts, on synthetic runs: where a run
// stands against its target, how the calibration rows are sized, and the subsampled rates
// on runs whose answer is known by construction.
import { describe, expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import { analyze } from "../src/analysis/analysis.ts";
import {
  CALIBRATION_SHARES,
  calibrationName,
  calibrationRows,
  calibrationViews,
  costPerRequestNs,
  expectedChange,
  subsampleRates,
} from "../src/analysis/calibration.ts";
import { PAIRED_MIN_ROUNDS } from "../src/analysis/verdicts.ts";
import { formatSec } from "../src/common/time.ts";
import { formatSummary, precisionText } from "../src/report/summary.ts";
import type { Results } from "../src/results/schema.ts";
import { precisionStatus, progressText, roundFits } from "../src/run/precision.ts";
import {
  syntheticPairTrial,
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
} from "./support/synthetic.ts";

/**
 * `rounds` processes per app, each with one sample: mean × (1 ± spread), alternating, every
 * app up in the same rounds; `opposed`: every other app down when the first is up.
 */
function run(
  apps: Record<string, number>,
  rounds: number,
  spread: number,
  opposed = false,
): Results {
  const trials = Object.entries(apps).flatMap(([app, mean], k) =>
    Array.from({ length: rounds }, (_, i) => {
      const up = (i + (opposed ? k : 0)) % 2 === 1;
      return syntheticTrial(app, "api", i + 1, 50, mean * (1 + (up ? spread : -spread)), 5);
    }),
  );
  return syntheticRun(Object.keys(apps), ["api"], trials);
}

describe("precision status", () => {
  test("the target applies to each mean and to each comparison with the fastest and the bare app", () => {
    const status = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 40_000 }, 10, 0.02)),
      0.03,
    );
    const what = status.widths.map((w) => w.what).sort();
    expect(what).toEqual([
      "bun-bare (api)",
      "bun-hono (api)",
      "bun-hono vs bun-bare (api)",
      "bun-hono vs its bare baseline (api)",
    ]);
    // ±2% spread over 10 processes: every width is well under 3%.
    expect(status.reached).toBe(true);
    expect(precisionStatus(analyze(run({ "bun-bare": 50_000 }, 10, 0.2)), 0.03).reached).toBe(
      false,
    );
  });

  test("widest first; paired by round, a comparison is as wide as the noise rounds did not share", () => {
    // PAIRED_MIN_ROUNDS rounds, so comparisons are paired. Apps the rounds moved apart: their per-round ratio
    // swings twice as far as either app.
    const apart = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 50_000 }, PAIRED_MIN_ROUNDS, 0.05, true)),
      0.01,
    );
    expect(apart.reached).toBe(false);
    const widths = apart.widths.map((w) => w.halfWidth);
    expect(widths).toEqual([...widths].sort((a, b) => b - a));
    expect(apart.widths[0]?.what).toContain(" vs ");
    // Apps every round moved alike: their ratio never moved, so the comparison is the narrowest.
    const alike = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 50_000 }, PAIRED_MIN_ROUNDS, 0.05)),
      0.01,
    );
    expect(alike.widths.at(-1)?.what).toContain(" vs ");
    expect(alike.widths.at(-1)?.halfWidth).toBeCloseTo(0, 12);
    expect(alike.widths[0]?.what).not.toContain(" vs ");
  });

  test("fewer than 3 processes: no interval yet, infinitely wide, never reached", () => {
    const status = precisionStatus(analyze(run({ "bun-bare": 50_000 }, 2, 0)), 0.5);
    expect(status.reached).toBe(false);
    expect(status.widths[0]?.halfWidth).toBe(Number.POSITIVE_INFINITY);
    expect(progressText(status, 0.03, 75, 600)).toBe(
      "bench: precision ±3.0% wanted: widest no CI yet (bun-bare (api)); 1 of 1 not there yet · 1m15s of 10m00s",
    );
  });

  test("an app with no valid sample does not hold the run back", () => {
    const r = run({ "bun-bare": 50_000, "node-bare": 20_000 }, 5, 0.01);
    r.trials = r.trials.filter((t) => t.app === "bun-bare");
    expect(precisionStatus(analyze(r), 0.05).reached).toBe(true);
    expect(precisionStatus(analyze({ ...r, trials: [] }), 0.05).reached).toBe(false);
  });

  test("a failed app, and comparisons against it, no longer count: they cannot narrow", () => {
    const r = run({ "bun-bare": 50_000, "bun-hono": 40_000 }, 5, 0.01);
    // bun-bare failed after a few noisy rounds: wide, but measured no more.
    r.trials = r.trials.map((t, i) =>
      t.app === "bun-bare" && t.result
        ? { ...t, result: { ...t.result, rps: 50_000 * (1 + (i % 2) * 0.5) } }
        : t,
    );
    r.apps = r.apps.map((a) => (a.name === "bun-bare" ? { ...a, status: "failed" as const } : a));
    const status = precisionStatus(analyze(r), 0.05);
    expect(status.widths.map((w) => w.what)).toEqual(["bun-hono (api)"]);
    expect(status.reached).toBe(true);
  });

  test("side by side: each ratio's half-width as a share of the ratio, as the tables show it", () => {
    const trials = [1, 2, 3, 4].flatMap((round) =>
      [1, 2].map((sample) =>
        syntheticPairTrial(
          "bun-bare",
          "node-bare",
          round,
          sample,
          10_000,
          22_000 * (1 + (round <= 2 ? 0.02 : -0.02)),
        ),
      ),
    );
    const run = syntheticSideRun([["bun-bare", "node-bare"]], trials);
    const analysis = analyze(run);
    const row = analysis.side?.groups.get("api")?.rows.find((r) => r.app === "node-bare");
    const status = precisionStatus(analysis, 0.03);
    expect(status.widths).toEqual([
      {
        what: "node-bare vs bun-bare (api)",
        halfWidth: ((row?.ci?.high ?? 0) - (row?.ci?.low ?? 0)) / 2 / (row?.ratio ?? 1),
      },
    ]);
    // ±2% per round, in both arrangements of the slots (rounds 1 and 2 dearer): spread 0.0283
    // within each, se 0.0141 on 2 df, t(0.975, 2) = 4.303: ±6.1%.
    expect(status.widths[0]?.halfWidth).toBeLessThan(0.065);
    expect(status.widths[0]?.halfWidth).toBeGreaterThan(0.055);
    // Too few pairs: no interval yet; a failed reference: nothing left to narrow.
    const two = syntheticSideRun(
      [["bun-bare", "node-bare"]],
      trials.filter((t) => t.round <= 2),
    );
    expect(precisionStatus(analyze(two), 0.03).widths[0]?.halfWidth).toBe(Number.POSITIVE_INFINITY);
    run.apps = run.apps.map((a) =>
      a.name === "bun-bare" ? { ...a, status: "failed" as const } : a,
    );
    expect(precisionStatus(analyze(run), 0.03).widths).toEqual([]);
  });

  test("one more round only when it fits in the time left", () => {
    expect(roundFits(500, 100, 600)).toBe(true);
    expect(roundFits(500.1, 100, 600)).toBe(false);
  });

  test("the summary says whether it was reached, after how long, and what was widest", () => {
    const r = run({ "bun-bare": 50_000 }, 4, 0.1);
    r.manifest.settings.precision = { target: 0.03, maxTimeSec: 600 };
    r.precision = {
      reached: false,
      rounds: 4,
      elapsedSec: 590,
      widest: { what: "bun-bare (api)", halfWidth: 0.0923 },
    };
    expect(precisionText(r)).toBe(
      "PRECISION ±3.0% NOT reached in 4 round(s), 9m50s of 10m00s; widest bun-bare (api) ±9.2% (the tables' ± column shows each)",
    );
    expect(formatSummary(analyze(r))).toContain("PRECISION ±3.0% NOT reached");
    r.precision = { reached: true, rounds: 12, elapsedSec: 61 };
    expect(precisionText(r)).toBe(
      "PRECISION ±3.0% reached by every mean and comparison: 12 round(s), 1m01s of 10m00s",
    );
  });
});

/** A side-by-side run of node-bare against bun-bare over `rounds` rounds, ±2% a round. */
function sideRun(rounds: number): Results {
  const trials = Array.from({ length: rounds }, (_, i) =>
    syntheticPairTrial("bun-bare", "node-bare", i + 1, 1, 10_000, 22_000 * (i % 2 ? 1.02 : 0.98)),
  );
  return syntheticSideRun([["bun-bare", "node-bare"]], trials);
}

describe("precision status at its edges", () => {
  test("a width exactly at the target has reached it, and is not counted as short of it", () => {
    const still = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 40_000 }, 3, 0)),
      0,
    );
    expect(still.widths.map((w) => w.halfWidth)).toEqual([0, 0, 0, 0]);
    expect(still.reached).toBe(true);
    const at = { reached: true, widths: [{ what: "bun-bare (api)", halfWidth: 0.03 }] };
    expect(progressText(at, 0.03, 0, 60)).toContain("0 of 1 not there yet");
    const over = { reached: false, widths: [{ what: "bun-bare (api)", halfWidth: 0.0301 }] };
    expect(progressText(over, 0.03, 0, 60)).toContain("1 of 1 not there yet");
  });

  test("every width must reach the target: one narrow app does not carry a wide one", () => {
    const trials = [
      ...[1, 2, 3, 4, 5].map((i) => syntheticTrial("bun-bare", "api", i, 50, 50_000, 5)),
      ...[1, 2, 3, 4, 5].map((i) =>
        syntheticTrial("bun-hono", "api", i, 50, 40_000 * (i % 2 ? 1.3 : 0.7), 5),
      ),
    ];
    const status = precisionStatus(
      analyze(syntheticRun(["bun-bare", "bun-hono"], ["api"], trials)),
      0.05,
    );
    expect(status.widths.some((w) => w.halfWidth <= 0.05)).toBe(true);
    expect(status.reached).toBe(false);
  });

  test("from exactly 3 processes a comparison has its interval's width", () => {
    const status = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 40_000 }, 3, 0.01)),
      0.5,
    );
    const vs = status.widths.filter((w) => w.what.includes(" vs "));
    expect(vs).toHaveLength(2);
    for (const w of vs) expect(Number.isFinite(w.halfWidth)).toBe(true);
    expect(status.reached).toBe(true);
  });

  test("two processes each: the comparisons have a test but no interval yet", () => {
    const status = precisionStatus(
      analyze(run({ "bun-bare": 50_000, "bun-hono": 40_000 }, 2, 0.01)),
      0.5,
    );
    const vs = status.widths.filter((w) => w.what.includes(" vs "));
    expect(vs).toHaveLength(2);
    for (const w of vs) expect(w.halfWidth).toBe(Number.POSITIVE_INFINITY);
  });

  test("no width at all: the progress line names no widest", () => {
    expect(progressText({ reached: false, widths: [] }, 0.03, 0, 60)).toBe(
      "bench: precision ±3.0% wanted: 0 of 0 not there yet · 0s of 1m00s",
    );
  });

  test("side by side: a failed reference drops its rows, even one ranked above it", () => {
    // bun-bare against node-bare: the cheaper app ranks first, above its reference.
    const trials = [1, 2, 3, 4].map((i) =>
      syntheticPairTrial("node-bare", "bun-bare", i, 1, 22_000, 10_000 * (i % 2 ? 1.02 : 0.98)),
    );
    const r = syntheticSideRun([["node-bare", "bun-bare"]], trials);
    expect(analyze(r).side?.groups.get("api")?.rows[0]?.app).toBe("bun-bare");
    expect(precisionStatus(analyze(r), 0.5).widths).toHaveLength(1);
    r.apps = r.apps.map((a) => (a.name === "node-bare" ? { ...a, status: "failed" as const } : a));
    expect(precisionStatus(analyze(r), 0.5).widths).toEqual([]);
  });

  test("a comparison with a side that cannot be tested is infinitely wide, not a crash", () => {
    // bun-bare, the fastest, has one process: no test against it, whatever bun-hono's three.
    const trials = [
      syntheticTrial("bun-bare", "api", 1, 50, 60_000, 5),
      ...[1, 2, 3].map((i) => syntheticTrial("bun-hono", "api", i, 50, 40_000, 5)),
    ];
    const status = precisionStatus(
      analyze(syntheticRun(["bun-bare", "bun-hono"], ["api"], trials)),
      0.5,
    );
    const vs = status.widths.find((w) => w.what === "bun-hono vs bun-bare (api)");
    expect(vs?.halfWidth).toBe(Number.POSITIVE_INFINITY);
    expect(status.reached).toBe(false);
  });

  test("a comparison against a failed app is dropped, one against an app that did not fail kept", () => {
    const r = run({ "bun-hono": 60_000, "bun-bare": 50_000 }, 5, 0.01);
    r.apps = r.apps.map((a) => (a.name === "bun-bare" ? { ...a, status: "failed" as const } : a));
    const what = precisionStatus(analyze(r), 0.05).widths.map((w) => w.what);
    expect(what).toContain("bun-hono (api)");
    expect(what).not.toContain("bun-hono vs its bare baseline (api)");
    expect(what.filter((w) => w.startsWith("bun-bare"))).toEqual([]);
  });

  test("side by side: from exactly 3 pairs a width; a failed row or reference, none", () => {
    const three = precisionStatus(analyze(sideRun(3)), 0.5).widths;
    expect(three).toHaveLength(1);
    expect(Number.isFinite(three[0]?.halfWidth)).toBe(true);
    const r = sideRun(4);
    r.apps = r.apps.map((a) => (a.name === "node-bare" ? { ...a, status: "failed" as const } : a));
    expect(precisionStatus(analyze(r), 0.5).widths).toEqual([]);
  });

  test("time reads in seconds below a minute, minutes and seconds from one on", () => {
    expect(formatSec(59.4)).toBe("59s");
    expect(formatSec(59.6)).toBe("1m00s");
    expect(formatSec(60)).toBe("1m00s");
    expect(formatSec(-3)).toBe("0s");
    expect(formatSec(3725)).toBe("62m05s");
  });
});

/** A calibration run: bun-bare and its rows, `rounds` processes each with noise `spread`. */
function calibrationRun(rounds: number, spread: number, effect = 1): Results {
  const sizing = { costPerRequestNs: 16_000, nsPerIteration: 1.6 };
  const rows = calibrationRows(getApp("bun-bare"), sizing);
  const means: Record<string, number> = {};
  for (const row of rows)
    means[row.name] = 50_000 * (1 + effect * expectedChange(row.extraWork?.share ?? 0));
  // Deterministic noise: mostly what a round shares (every row alike), a little of each row's.
  const noise = (i: number, j: number) =>
    Math.sin(i * 12.9898) * spread + Math.sin(i * 3.1 + j * 7.7) * 0.002;
  const trials = rows.flatMap((row, j) =>
    Array.from({ length: rounds }, (_, i) =>
      syntheticTrial(
        row.name,
        "api",
        i + 1,
        50,
        (means[row.name] as number) * (1 + noise(i, j)),
        5,
      ),
    ),
  );
  const r = syntheticRun(
    rows.map((a) => a.name),
    ["api"],
    trials,
  );
  r.manifest.calibration = { app: "bun-bare", ...sizing, subsampleRounds: Math.floor(rounds / 2) };
  r.apps = r.apps.map((a, i) => {
    const w = rows[i]?.extraWork;
    return { ...a, runtime: "bun", framework: "bare", ...(w ? { extraWork: { ...w } } : {}) };
  });
  return r;
}

describe("calibration", () => {
  test("rows: the base, then +0% (A/A) +2% +5% +10%, iterations in proportion to the share", () => {
    const rows = calibrationRows(getApp("bun-bare"), {
      costPerRequestNs: 16_000,
      nsPerIteration: 1.6,
    });
    expect(rows.map((r) => r.name)).toEqual([
      "bun-bare",
      "bun-bare+0%",
      "bun-bare+2%",
      "bun-bare+5%",
      "bun-bare+10%",
    ]);
    // 10,000 iterations are the request's whole cost.
    // The base runs through the same wrapper with 0 iterations: rows differ by the loop alone.
    expect(rows.map((r) => r.extraWork?.iterations)).toEqual([0, 0, 200, 500, 1000]);
    expect(rows.every((r) => r.port === 3004)).toBe(true);
    expect(CALIBRATION_SHARES).toEqual([0, 0.02, 0.05, 0.1]);
    expect(calibrationName("bun-bare", 0.1)).toBe("bun-bare+10%");
  });

  test("the known answer: x more CPU per request serves 1/(1+x)", () => {
    expect(expectedChange(0)).toBe(0);
    expect(expectedChange(0.1)).toBeCloseTo(-0.0909, 4);
  });

  test("the cost per request is the median of CPU-seconds per request, in ns", () => {
    expect(
      costPerRequestNs([
        { cpuPercent: 100, rps: 50_000 },
        { cpuPercent: 90, rps: 60_000 },
        { cpuPercent: 100, rps: 0 },
        { cpuPercent: 80, rps: 40_000 },
      ]),
    ).toBeCloseTo(20_000, 6);
    expect(costPerRequestNs([])).toBeNaN();
  });

  test("a run with clear effects: +10% found in every subsample, A/A in almost none", () => {
    const r = calibrationRun(40, 0.02);
    const rates = subsampleRates(r, 20, 200);
    expect(rates?.get("bun-bare+10%")).toBe(1);
    expect(rates?.get("bun-bare+5%")).toBe(1);
    expect(rates?.get("bun-bare+0%")).toBeLessThan(0.05);
    // Reproducible: the same seed, the same subsamples.
    expect(subsampleRates(r, 20, 200)).toEqual(rates);
  });

  test("no effect at all: every row a tie in the run, and rarely in the subsamples", () => {
    const r = calibrationRun(40, 0.02, 0);
    const [view] = calibrationViews(analyze(r), 100);
    expect(view?.rows.map((x) => x.different)).toEqual([false, false, false, false]);
    for (const row of view?.rows ?? []) expect(row.rate).toBeLessThan(0.1);
    expect(view?.subsample).toEqual({ rounds: 20, draws: 100 });
  });

  test("no more rounds than a subsample: no rates, and the view says so", () => {
    const r = calibrationRun(6, 0.02);
    const sized = r.manifest.calibration as NonNullable<Results["manifest"]["calibration"]>;
    r.manifest.calibration = { ...sized, subsampleRounds: 6 };
    expect(subsampleRates(r, 6, 10)).toBeUndefined();
    const [view] = calibrationViews(analyze(r), 10);
    expect(view?.subsample).toBeUndefined();
    // One row per share of extra work (+0%, +2%, +5%, +10%): `every` must not pass on none.
    expect(view?.rows).toHaveLength(4);
    expect(view?.rows.every((x) => x.rate === undefined)).toBe(true);
  });

  test("the expected change comes from what the iterations cost in this run's own samples", () => {
    // Every base sample: 50,000 req/s at 97% CPU, 19,400 ns per request. The +5% row's 500
    // iterations at 1.6 ns are 800 ns: 4.12% of it (the sizing had thought 16,000 ns, 5%).
    const [view] = calibrationViews(analyze(calibrationRun(6, 0)), 10);
    const five = view?.rows.find((r) => r.name === "bun-bare+5%");
    expect(five?.share).toBe(0.05);
    // (the rows carry a 0.2% noise of their own, hence 4 digits)
    expect(five?.realized).toBeCloseTo(800 / 19_400, 4);
    expect(five?.expected).toBeCloseTo(1 / (1 + 800 / 19_400) - 1, 4);
  });

  test("a run that is no calibration has no calibration view", () => {
    expect(calibrationViews(analyze(run({ "bun-bare": 1 }, 3, 0)))).toEqual([]);
  });
});
