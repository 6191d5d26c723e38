// --export bmf (report/bmf.ts): the run's figures in Bencher Metric Format. The closed-loop
// tables' throughput and latency here; the side-by-side rows' CPU time per request and cost
// ratio in ratios.test.ts. Only what was measured, never a NaN.
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { analyze } from "../src/analysis/analysis.ts";
import { bmfOf, writeBmf } from "../src/report/bmf.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

/** bun-bare and bun-hono over three rounds on api; node-bare never measured. */
const CLOSED = syntheticRun(
  ["bun-bare", "bun-hono", "node-bare"],
  ["api"],
  [
    syntheticTrial("bun-bare", "api", 1, 64, 10_000, 5),
    syntheticTrial("bun-bare", "api", 2, 64, 10_100, 7),
    syntheticTrial("bun-bare", "api", 3, 64, 9_900, 6),
    syntheticTrial("bun-hono", "api", 1, 64, 8_000, 4),
    syntheticTrial("bun-hono", "api", 2, 64, 8_400, 4),
    syntheticTrial("bun-hono", "api", 3, 64, 7_600, 4),
  ],
);

describe("closed-loop tables", () => {
  test("throughput with its t interval, latency as the median p99 in ns; unmeasured rows left out", () => {
    // mean ± t(0.975, 2) · sd / √3 over the processes (scipy: stats.t.ppf(0.975, 2) = 4.3027).
    expect(bmfOf(analyze(CLOSED))).toEqual({
      "bun-bare api": {
        throughput: {
          value: 10_000,
          lower_value: expect.closeTo(9_751.586228824966, 4),
          upper_value: expect.closeTo(10_248.413771175034, 4),
        },
        latency: { value: 6e6 }, // p99s 5, 7 and 6 ms: the median 6 ms
      },
      "bun-hono api": {
        throughput: {
          value: 8_000,
          lower_value: expect.closeTo(7_006.344915299868, 4),
          upper_value: expect.closeTo(8_993.655084700133, 4),
        },
        latency: { value: 4e6 },
      },
    });
  });

  test("writeBmf writes the same figures as JSON", () => {
    const dir = temp("bench-bmf-");
    const analysis = analyze(CLOSED);
    writeBmf(join(dir, "bmf.json"), analysis);
    expect(JSON.parse(readFileSync(join(dir, "bmf.json"), "utf8"))).toEqual(
      JSON.parse(JSON.stringify(bmfOf(analysis))),
    );
    rmSync(dir, { recursive: true });
  });
});
