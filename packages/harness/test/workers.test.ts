// report/workers.ts: the scaling table over worker counts (--workers 1,2,4), × the first count,
// ≈ when not significant. Synthetic runs, answers worked out by hand; the real --workers runs
// are in workers.e2e.test.ts. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { scalingViews } from "../src/report/workers.ts";
import type { Results } from "../src/results/schema.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

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
