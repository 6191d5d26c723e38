// The statistics of estimate.ts (one app's figure) checked against known truth: thousands of
// simulated runs with a nested noise structure like this VM's (samples within processes; the
// simulations are in support/simulate.ts), from a seeded generator, so every rate below is the
// same on every machine and every run. Each test fails when the rule it names is broken:
// intervals built from samples instead of process means cover far less than 95%; variance
// components that do not recover the CoVs they were built with. Comparing two estimates is
// verdicts.test.ts's (here only that a mean of 0 is never tested).
import { describe, expect, test } from "bun:test";
import {
  estimate,
  MIN_CI_PROCESSES,
  roundComponent,
  varianceComponents,
} from "../src/analysis/estimate.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import { roundLogRatios, testPair } from "../src/analysis/verdicts.ts";
import { normal, RUNS, simulate, simulate4k, VM } from "./support/simulate.ts";

describe("confidence intervals over processes", () => {
  simulate4k("cover the true mean at their nominal 95% (±2 points) on nested noise", () => {
    for (const design of [VM, { ...VM, processes: 3, samples: 5 }, { ...VM, between: 0.02 }]) {
      const z = normal(mulberry32(7));
      let covered = 0;
      for (let i = 0; i < RUNS; i++) {
        const ci = estimate(simulate(design, z)).ci;
        if (ci && ci.low <= design.mean && design.mean <= ci.high) covered++;
      }
      expect(covered / RUNS).toBeGreaterThan(0.93);
      expect(covered / RUNS).toBeLessThan(0.97);
    }
  });

  simulate4k("an interval over every sample, ignoring the processes, would cover far less", () => {
    // The reason for process means: the same runs, the samples treated as independent.
    const z = normal(mulberry32(11));
    let covered = 0;
    for (let i = 0; i < RUNS; i++) {
      const flat = simulate(VM, z).flatMap((p) =>
        p.values.map((v, j) => ({ round: j, values: [v] })),
      );
      const ci = estimate(flat).ci;
      if (ci && ci.low <= VM.mean && VM.mean <= ci.high) covered++;
    }
    expect(covered / RUNS).toBeLessThan(0.9);
  });

  test(`fewer than ${MIN_CI_PROCESSES} processes: no interval, however many samples`, () => {
    const z = normal(mulberry32(3));
    const two = estimate(simulate({ ...VM, processes: 2, samples: 50 }, z));
    expect(two.ci).toBeUndefined();
    expect(two.halfWidth).toBeUndefined();
    expect(two.processes).toBe(2);
    expect(two.samples).toBe(100);
    expect(Number.isFinite(two.se)).toBe(true);
    const three = estimate(simulate({ ...VM, processes: 3 }, z));
    expect(three.ci).toBeDefined();
    expect(three.halfWidth).toBeCloseTo(((three.ci?.high ?? 0) - three.mean) / three.mean, 12);
  });

  test("each process weighs the same, whatever its number of samples", () => {
    const e = estimate([
      { round: 1, values: [100] },
      { round: 2, values: [200, 200, 200, 200] },
      { round: 3, values: [] },
    ]);
    expect(e.mean).toBe(150);
    expect(e.processes).toBe(2);
    expect(e.means).toEqual([100, 200]);
  });
});

describe("variance components", () => {
  test("recover the within- and between-process CoV of a large synthetic run (±10%)", () => {
    const z = normal(mulberry32(37));
    const c = varianceComponents(simulate({ ...VM, processes: 400, samples: 6 }, z));
    expect(c?.within).toBeGreaterThan(0.135);
    expect(c?.within).toBeLessThan(0.165);
    expect(c?.between).toBeGreaterThan(0.09);
    expect(c?.between).toBeLessThan(0.11);
    expect(c?.perProcess).toBe(6);
  });

  test("no between-process term when processes differ only by their samples' noise", () => {
    const z = normal(mulberry32(41));
    const c = varianceComponents(simulate({ ...VM, between: 0, processes: 400 }, z));
    // Sampling noise of the estimator only: a third of the true term of the test above.
    expect(c?.between).toBeLessThan(0.035);
  });

  test("undefined with one process or one sample per process", () => {
    expect(varianceComponents([{ round: 1, values: [1, 2, 3] }])).toBeUndefined();
    expect(
      varianceComponents([
        { round: 1, values: [1] },
        { round: 2, values: [2] },
      ]),
    ).toBeUndefined();
  });

  test("the round component finds a shift every app of a round shared, and none without", () => {
    const z = normal(mulberry32(43));
    const apps = (shared: number) => {
      const rounds = Array.from({ length: 200 }, () => 1 + shared * z());
      return [50_000, 30_000, 10_000].map(
        (mean) => new Map(rounds.map((shift, r) => [r + 1, mean * shift * (1 + 0.08 * z())])),
      );
    };
    expect(roundComponent(apps(0.06))).toBeGreaterThan(0.05);
    expect(roundComponent(apps(0.06))).toBeLessThan(0.07);
    expect(roundComponent(apps(0))).toBeLessThan(0.03);
    // Too few complete rounds, or one app: no estimate.
    expect(roundComponent(apps(0).map((m) => new Map([...m].slice(0, 2))))).toBeUndefined();
    expect(roundComponent(apps(0).slice(0, 1))).toBeUndefined();
  });
});

describe("exact values (what the simulations check loosely, pinned here)", () => {
  const p = (values: number[][]) => values.map((v, i) => ({ round: i + 1, values: v }));

  test("an estimate of three processes, by hand", () => {
    // Process means 90, 100, 110: sd 10, se 10/√3, t(0.975, 2) = 4.3027.
    const e = estimate(p([[80, 100], [100], [110, 110, 110]]));
    expect(e.means).toEqual([90, 100, 110]);
    expect(e.mean).toBe(100);
    expect(e.sd).toBeCloseTo(10, 12);
    expect(e.cov).toBeCloseTo(0.1, 12);
    expect(e.se).toBeCloseTo(10 / Math.sqrt(3), 12);
    expect(e.samples).toBe(6);
    expect(e.processes).toBe(3);
    const half = (4.302652729911275 * 10) / Math.sqrt(3);
    expect(e.ci?.low).toBeCloseTo(100 - half, 6);
    expect(e.ci?.high).toBeCloseTo(100 + half, 6);
    expect(e.halfWidth).toBeCloseTo(half / 100, 8);
    // A 90% interval is narrower: the level is honoured.
    const ninety = estimate(p([[80, 100], [100], [110, 110, 110]]), 0.9);
    expect((ninety.halfWidth ?? 1) < (e.halfWidth ?? 0)).toBe(true);
  });

  test("one process: a mean, no se, no interval; none: nothing", () => {
    const one = estimate(p([[5, 7]]));
    expect([one.processes, one.mean, one.sd]).toEqual([1, 6, 0]);
    expect(one.se).toBeNaN();
    expect(one.ci).toBeUndefined();
    const none = estimate([]);
    expect(none.processes).toBe(0);
    expect(none.mean).toBeNaN();
    expect(none.components).toBeUndefined();
  });

  test("a mean of 0 has an infinitely wide relative interval and is never tested", () => {
    const zero = estimate(p([[0], [0], [0]]));
    expect(zero.halfWidth).toBe(Number.POSITIVE_INFINITY);
    expect(testPair(zero, estimate(p([[1], [2], [3]])))).toBeUndefined();
    expect(testPair(estimate(p([[1], [2], [3]])), zero)).toBeUndefined();
    expect(roundLogRatios(zero, estimate(p([[1], [2], [3]])))).toEqual([]);
  });

  test("variance components by hand: two processes of two samples", () => {
    // Means 10 and 20, grand 15; within: (1² + 1² + 1² + 1²) / (4 − 2) = 2; between:
    // MSB = 2 × (25 + 25) / 1 = 100, n0 = 2: (100 − 2) / 2 = 49.
    const c = varianceComponents(
      p([
        [9, 11],
        [19, 21],
      ]),
    );
    expect(c?.within).toBeCloseTo(Math.sqrt(2) / 15, 12);
    expect(c?.between).toBeCloseTo(7 / 15, 12);
    expect(c?.perProcess).toBe(2);
    // Unbalanced: n0 = (N − Σn²/N) / (k − 1) = (5 − 13/5) / 1 = 2.4.
    const u = varianceComponents(
      p([
        [9, 11],
        [19, 20, 21],
      ]),
    );
    const grand = (9 + 11 + 19 + 20 + 21) / 5;
    const msb = 2 * (10 - grand) ** 2 + 3 * (20 - grand) ** 2;
    const msw = (1 + 1 + 1 + 0 + 1) / 3;
    expect(u?.between).toBeCloseTo(Math.sqrt((msb - msw) / 2.4) / grand, 12);
    expect(u?.within).toBeCloseTo(Math.sqrt(msw) / grand, 12);
    // Processes with no sample do not count.
    expect(varianceComponents(p([[9, 11], [], [19, 21]]))).toEqual(c);
    expect(
      varianceComponents(
        p([
          [0, 0],
          [0, 0],
        ]),
      ),
    ).toEqual({ within: 0, between: 0, perProcess: 2 });
  });

  test("the estimate carries its variance components (two processes of two samples)", () => {
    // As by hand above: within √2 / 15, between 7 / 15, two samples per process.
    const e = estimate(
      p([
        [9, 11],
        [19, 21],
      ]),
    );
    expect(e.components?.within).toBeCloseTo(Math.sqrt(2) / 15, 12);
    expect(e.components?.between).toBeCloseTo(7 / 15, 12);
    expect(e.components?.perProcess).toBe(2);
  });

  test("the round component by hand: two apps, three complete rounds", () => {
    // Log means app 1: 0, 0.2, 0.4; app 2: 1, 1.4, 1.2. Grand 0.7, app means 0.2 and 1.2,
    // round means 0.5, 0.8, 0.8: SS rounds = 2 · (0.04 + 0.01 + 0.01) = 0.12, MS = 0.12 / 2;
    // residuals 0, −0.1, 0.1 and 0, 0.1, −0.1: SS = 0.04, MS = 0.04 / (1 · 2) = 0.02.
    // Component: √((0.06 − 0.02) / 2) = √0.02.
    const app = (logs: number[]) => new Map(logs.map((y, r) => [r + 1, Math.exp(y)]));
    const byApp = [app([0, 0.2, 0.4]), app([1, 1.4, 1.2])];
    expect(roundComponent(byApp)).toBeCloseTo(Math.sqrt(0.02), 10);
    // A round only one app has (or one with a zero mean) is not complete: it does not count.
    const extra = [new Map([...(byApp[0] ?? []), [4, 5]]), new Map([...(byApp[1] ?? []), [5, 7]])];
    expect(roundComponent(extra)).toBeCloseTo(Math.sqrt(0.02), 10);
    const zero = [new Map([...(byApp[0] ?? []), [4, 5]]), new Map([...(byApp[1] ?? []), [4, 0]])];
    expect(roundComponent(zero)).toBeCloseTo(Math.sqrt(0.02), 10);
  });
});
