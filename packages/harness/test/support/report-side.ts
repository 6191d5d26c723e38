// The runs the report tests of the CPU time per request and of --side-by-side share
// (markdown.test.ts, html.test.ts, html-charts.test.ts, extras.test.ts): one app at a time with
// its CPU cost, side by side, --against and a side-by-side calibration. Each figure they show was
// worked out by hand (or with scipy) as noted beside the tests.

import type { PairTrial, Results, Trial } from "../../src/results/schema.ts";
import { syntheticPairTrial, syntheticRun, syntheticSideRun, syntheticTrial } from "./synthetic.ts";

/** A closed-loop trial whose server spent `ns` of CPU time per request. */
const costed = (app: string, scenario: string, round: number, ns: number): Trial => {
  const t = syntheticTrial(app, scenario, round, 64, 1000, 5);
  return { ...t, server: { ...t.server, cpuNsPerRequest: ns } };
};

/**
 * Three rounds, one process each: bun-bare 10, 11, 12 µs per request on api and echo, node-bare
 * 22, 24, 26 µs on api only.
 */
export const COSTED = syntheticRun(
  ["bun-bare", "node-bare"],
  ["api", "echo"],
  [1, 2, 3].flatMap((r) => [
    costed("bun-bare", "api", r, 9_000 + 1_000 * r),
    costed("node-bare", "api", r, 20_000 + 2_000 * r),
    costed("bun-bare", "echo", r, 9_000 + 1_000 * r),
  ]),
);

/**
 * Two samples a round, the row at `ratio` × its reference's 10 µs, × 0.99, 1, 1.01, 1 by round:
 * four rounds, so each arrangement of the slots (odd rounds, even ones) has two.
 */
export const rounds = (reference: string, app: string, ratio: number, n = 4): PairTrial[] =>
  [0.99, 1, 1.01, 1]
    .slice(0, n)
    .flatMap((k, r) =>
      [1, 2].map((s) => syntheticPairTrial(reference, app, r + 1, s, 10_000, 10_000 * ratio * k)),
    );

/**
 * bun-hono at 1.2 × bun-bare over four rounds; node-bare one round only (a ratio, no test);
 * deno-bare failed, so neither deno row has a pair.
 */
export const SIDE: Results = (() => {
  const run = syntheticSideRun(
    [
      ["bun-bare", "bun-hono"],
      ["bun-bare", "node-bare"],
      ["deno-bare", "deno-hono"],
    ],
    [...rounds("bun-bare", "bun-hono", 1.2), ...rounds("bun-bare", "node-bare", 2, 1)],
  );
  return {
    ...run,
    apps: run.apps.map((a) =>
      a.name === "deno-bare" ? { ...a, status: "failed" as const, failure: "no deno\nmore" } : a,
    ),
  };
})();

// ln(1.2 × 0.99), ln 1.2, ln(1.2 × 1.01), ln 1.2: a crossover, odd rounds against even ones;
// mean → ×1.200, se 0.005000 on 2 df, t(0.975, 2) = 4.3027: exp(mean ± 0.02151) = 1.174–1.226,
// ±2.2% of the ratio (computed apart, in Python).
export const SIDE_TABLE =
  "| rank | app | CPU per request (× reference, 95% CI) | ± | CPU µs per request | req/s sharing the core | pairs | valid samples |\n" +
  "| :-- | :-- | --: | --: | --: | --: | --: | --: |\n" +
  "| 1 | bun-bare | ×1.000 (the reference) | — | 10.00 | 40,000 | 4 | 10/10 |\n" +
  "| 2 | bun-hono | ×1.200 (1.174–1.226) | ±2.2% | 12.00 | 40,000 | 4 | 8/8 |\n" +
  // 2 × 10 µs × 0.99 in its one round
  "| — | node-bare ⚠️ 1 pair | — | — | 19.80 | 40,000 | 1 | 2/2 |\n" +
  "| — | deno-bare ⚠️ failed | ×1.000 (the reference) | — | — | — | 0 | 0/0 |\n" +
  "| — | deno-hono | — | — | — | — | 0 | 0/0 |";

/** bun-bare against itself at commit 1a2b3c4, `ratio` × as costly now. */
export const against = (ratio: number): Results =>
  syntheticSideRun(
    [["bun-bare@1a2b3c4", "bun-bare"]],
    rounds("bun-bare@1a2b3c4", "bun-bare", ratio),
    { against: { ref: "HEAD~1", commit: "1a2b3c4d5e6f7a8b" }, threshold: 0.02 },
  );

/** bun-hono at `ratio` × bun-bare on api and echo alike. */
export const onTwoScenarios = (ratio = 1.2): Results => {
  const trials = rounds("bun-bare", "bun-hono", ratio);
  const run = syntheticSideRun(
    [["bun-bare", "bun-hono"]],
    [...trials, ...trials.map((t) => ({ ...t, scenario: "echo" }))],
  );
  run.manifest.settings.scenarios = ["api", "echo"];
  return run;
};

/** onTwoScenarios as a calibration: bun-hono stands for bun-bare with 5% extra work. */
export const CALIBRATED_SIDE: Results = (() => {
  const run = onTwoScenarios(1.05);
  return {
    ...run,
    manifest: {
      ...run.manifest,
      // more rounds than the run has: no subsampled rates, so no subsampling at all
      calibration: {
        app: "bun-bare",
        costPerRequestNs: 10_000,
        nsPerIteration: 1,
        subsampleRounds: 100,
      },
    },
    apps: run.apps.map((a) => ({
      ...a,
      extraWork:
        a.name === "bun-hono" ? { share: 0.05, iterations: 500 } : { share: 0, iterations: 0 },
    })),
  };
})();
