// What a run records in the history (analysis/session-estimates.ts): log estimates with their
// within-session standard errors, on runs whose figures follow by hand.

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { METRIC_UNITS, referenceOf, sessionEstimates } from "../src/analysis/session-estimates.ts";
import type { Trial } from "../src/results/schema.ts";
import { ratioTrials } from "./support/side-fixtures.ts";
import { syntheticRun, syntheticSideRun, syntheticTrial } from "./support/synthetic.ts";

/** One sample per process: `rps[r]` req/s and `ns[r]` ns per request in round r + 1. */
function trials(app: string, rps: number[], ns?: number[]): Trial[] {
  return rps.map((x, i) => {
    const t = syntheticTrial(app, "api", i + 1, 64, x, 4);
    return ns ? { ...t, server: { ...t.server, cpuNsPerRequest: ns[i] as number } } : t;
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

describe("one at a time", () => {
  const bun = [100_000, 110_000, 90_000];
  const node = [40_000, 45_000, 35_000];
  const run = syntheticRun(
    ["bun-bare", "node-bare"],
    ["api"],
    [...trials("bun-bare", bun, [10_000, 9_000, 11_000]), ...trials("node-bare", node)],
  );
  const got = sessionEstimates(analyze(run));
  const find = (app: string, metric: string) =>
    got.find((e) => e.app === app && e.metric === metric);

  test("each app's req/s: the mean of its log process means, and their standard error", () => {
    const logs = bun.map(Math.log);
    expect(find("bun-bare", "rps")).toMatchObject({ reference: "", scenario: "api", n: 3 });
    expect(find("bun-bare", "rps")?.estimate).toBeCloseTo(mean(logs), 12);
    expect(find("bun-bare", "rps")?.se).toBeCloseTo(sd(logs) / Math.sqrt(3), 12);
  });

  test("CPU per request in µs where the run has it; none where it has not", () => {
    expect(find("bun-bare", "cpu-us")?.estimate).toBeCloseTo(mean([10, 9, 11].map(Math.log)), 12);
    expect(find("node-bare", "cpu-us")).toBeUndefined();
  });

  test("a ratio against the first app named, paired by round, with the reference's own cost", () => {
    const logs = node.map((x, i) => Math.log(x / (bun[i] as number)));
    const ratio = find("node-bare", "rps-ratio");
    expect(ratio).toMatchObject({ reference: "bun-bare", n: 3 });
    expect(ratio?.estimate).toBeCloseTo(mean(logs), 12);
    expect(ratio?.se).toBeCloseTo(sd(logs) / Math.sqrt(3), 12);
    expect(ratio?.x).toBeCloseTo(mean([10, 9, 11].map(Math.log)), 12);
    expect(find("bun-bare", "rps-ratio")).toBeUndefined();
  });

  test("--reference as recorded; without two processes nothing is recorded", () => {
    const other = {
      ...run,
      manifest: { ...run.manifest, settings: { ...run.manifest.settings, reference: "node-bare" } },
    };
    expect(referenceOf(analyze(other))).toBe("node-bare");
    expect(sessionEstimates(analyze(other)).find((e) => e.metric === "rps-ratio")?.app).toBe(
      "bun-bare",
    );
    const one = syntheticRun(["bun-bare"], ["api"], trials("bun-bare", [100_000]));
    expect(sessionEstimates(analyze(one))).toEqual([]);
  });
});

describe("one at a time: which processes count", () => {
  test("a process whose server showed no CPU time (0 ns per request) is left out of the cost", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      trials("bun-bare", [100_000, 110_000, 90_000, 95_000], [10_000, 0, 11_000, 9_000]),
    );
    const cost = sessionEstimates(analyze(run)).find((e) => e.metric === "cpu-us");
    const logs = [10, 11, 9].map(Math.log);
    expect(cost?.n).toBe(3);
    expect(cost?.estimate).toBeCloseTo(mean(logs), 12);
    expect(cost?.se).toBeCloseTo(sd(logs) / Math.sqrt(3), 12);
  });

  test("two processes are enough for an estimate with a standard error", () => {
    const run = syntheticRun(["bun-bare"], ["api"], trials("bun-bare", [100_000, 110_000]));
    const logs = [100_000, 110_000].map(Math.log);
    const [rps] = sessionEstimates(analyze(run));
    expect(rps).toMatchObject({ app: "bun-bare", metric: "rps", n: 2 });
    expect(rps?.estimate).toBeCloseTo(mean(logs), 12);
    expect(rps?.se).toBeCloseTo(sd(logs) / Math.sqrt(2), 12);
  });
});

describe("the units the history prints", () => {
  test("req/s for an app's rate, µs for its CPU per request, × for a ratio", () => {
    expect(METRIC_UNITS).toEqual({
      rps: "req/s",
      "rps-ratio": "×",
      "cpu-us": "µs",
      "cpu-ratio": "×",
    });
  });
});

describe("side by side", () => {
  // node-bare at 2.0 × 1.01, 0.99, 1.02, 0.98 of bun-bare's 10 µs: one sample a pair
  const pairs = ratioTrials("bun-bare", "node-bare", [[2.02], [1.98], [2.04], [1.96]]);
  const run = syntheticSideRun([["bun-bare", "node-bare"]], pairs);
  const analysis = analyze(run);
  const got = sessionEstimates(analysis);

  test("the row's ratio is the crossover's, on the log scale, with its standard error", () => {
    const row = analysis.side?.groups.get("api")?.rows.find((r) => r.reference);
    const test = row?.vsReference?.test;
    const ratio = got.find((e) => e.metric === "cpu-ratio");
    expect(ratio).toMatchObject({ app: "node-bare", reference: "bun-bare", scenario: "api", n: 4 });
    expect(ratio?.estimate).toBeCloseTo(Math.log(1 + (test?.change ?? 0)), 12);
    expect(ratio?.se).toBe(test?.se as number);
    expect(ratio?.x).toBeCloseTo(Math.log(10), 12);
  });

  test("each app's own CPU per request, µs, over its processes", () => {
    expect(got.find((e) => e.app === "bun-bare" && e.metric === "cpu-us")?.estimate).toBeCloseTo(
      Math.log(10),
      12,
    );
    const node = got.find((e) => e.app === "node-bare" && e.metric === "cpu-us");
    expect(node?.estimate).toBeCloseTo(mean([20.2, 19.8, 20.4, 19.6].map(Math.log)), 12);
    expect(got.some((e) => e.metric === "rps" || e.metric === "rps-ratio")).toBe(false);
  });

  test("everything the run records, and nothing else: each app's own cost, then the ratio", () => {
    expect(got.map((e) => [e.app, e.reference, e.metric])).toEqual([
      ["bun-bare", "", "cpu-us"],
      ["node-bare", "", "cpu-us"],
      ["node-bare", "bun-bare", "cpu-ratio"],
    ]);
  });

  test("two pairs are enough for a ratio; one pair records nothing", () => {
    const two = sessionEstimates(
      analyze(syntheticSideRun([["bun-bare", "node-bare"]], pairs.slice(0, 2))),
    );
    const ratio = two.find((e) => e.metric === "cpu-ratio");
    expect(ratio).toMatchObject({ app: "node-bare", reference: "bun-bare", n: 2 });
    expect(ratio?.estimate).toBeCloseTo(mean([2.02, 1.98].map(Math.log)), 12);
    const one = analyze(syntheticSideRun([["bun-bare", "node-bare"]], pairs.slice(0, 1)));
    expect(sessionEstimates(one)).toEqual([]);
  });
});
