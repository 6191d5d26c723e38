// The statistics of estimate.ts checked against known truth: thousands of simulated runs with
// a nested noise structure like this VM's (samples within processes), from a seeded generator,
// so every rate below is the same on every machine and every run. Each test fails when the
// rule it names is broken: intervals built from samples instead of process means cover far
// less than 95%; no multiple-comparison control lets A/A families cry wolf; a detectable
// difference stated too small is not detected 80% of the time.
import { describe, expect, test } from "bun:test";
import {
  estimate,
  MIN_CI_PROCESSES,
  type ProcessSamples,
  roundComponent,
  varianceComponents,
} from "../src/analysis/estimate.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import { tCdf, tTwoSidedP } from "../src/analysis/stats.ts";
import {
  ALPHA,
  detectable,
  equivalenceP,
  gate,
  logRatioTest,
  oneSidedP,
  PAIRED_MIN_ROUNDS,
  pairFamily,
  roundLogRatios,
  testPair,
  verdictOf,
  welchPair,
} from "../src/analysis/verdicts.ts";

function normal(random: () => number): () => number {
  return () => {
    const u = 1 - random();
    const v = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

interface Design {
  readonly mean: number;
  /** CoV of a process's own level around the true mean. */
  readonly between: number;
  /** CoV of one sample around its process's level. */
  readonly within: number;
  readonly processes: number;
  readonly samples: number;
}

/** This VM's noise (docs/statistics.md, "Precision"): ~10% between processes, ~15% within, 1 s samples. */
const VM: Design = { mean: 50_000, between: 0.1, within: 0.15, processes: 12, samples: 3 };

function simulate(d: Design, z: () => number): ProcessSamples[] {
  return Array.from({ length: d.processes }, (_, p) => {
    const level = d.mean * (1 + d.between * z());
    return {
      round: p + 1,
      values: Array.from({ length: d.samples }, () => level * (1 + d.within * z())),
    };
  });
}

/**
 * Apps measured in the same rounds, as a run measures them: every process of round r shares
 * that round's factor (1 + roundCov · z), which is how this VM's noise moves every app at
 * once (docs/statistics.md, "Precision"), then has its own level and samples as in simulate().
 */
function simulateRounds(
  d: Design,
  means: readonly number[],
  roundCov: number,
  z: () => number,
): ProcessSamples[][] {
  const shared = Array.from({ length: d.processes }, () => 1 + roundCov * z());
  return means.map((mean) =>
    shared.map((factor, p) => {
      const level = mean * factor * (1 + d.between * z());
      return {
        round: p + 1,
        values: Array.from({ length: d.samples }, () => level * (1 + d.within * z())),
      };
    }),
  );
}

/** The VM in a noisy hour: a tenth of every process's level shared by its whole round. */
const ROUND_COV = 0.1;
/** A default run's rounds: the fewest at which a run's comparisons are paired by round. */
const PAIRED: Design = { ...VM, processes: PAIRED_MIN_ROUNDS };

const RUNS = 4000;
/**
 * The simulations take seconds; mutation testing (scripts/mutation.sh) runs this file once per
 * mutant, so there they are skipped and only the exact, deterministic tests below count.
 */
const simulate4k = process.env.BENCH_MUTATION === "1" ? test.skip : test;

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

  simulate4k("Welch's 95% CI of a change covers the true change at its nominal rate", () => {
    const z = normal(mulberry32(19));
    let covered = 0;
    for (let i = 0; i < RUNS; i++) {
      const a = estimate(simulate(VM, z));
      const b = estimate(simulate({ ...VM, mean: VM.mean * 0.9, between: 0.05 }, z));
      const ci = welchPair(a, b)?.ci;
      // The true change relative to the estimated base mean is -10% only on average; the
      // interval is for (b − a) / a at the observed a, so check it on the difference scale.
      if (ci && ci.low * a.mean <= -0.1 * VM.mean && -0.1 * VM.mean <= ci.high * a.mean) covered++;
    }
    expect(covered / RUNS).toBeGreaterThan(0.93);
    expect(covered / RUNS).toBeLessThan(0.97);
  });

  simulate4k("the paired 95% CI of a ratio covers the true ratio at its nominal rate", () => {
    // Rounds that move both apps alike: the paired interval must still hold its 95%.
    const z = normal(mulberry32(20));
    let covered = 0;
    for (let i = 0; i < RUNS; i++) {
      const [a, b] = simulateRounds(PAIRED, [VM.mean, VM.mean * 0.9], ROUND_COV, z).map((p) =>
        estimate(p),
      );
      const ci = testPair(a as never, b as never)?.ci;
      if (ci && ci.low <= -0.1 && -0.1 <= ci.high) covered++;
    }
    expect(covered / RUNS).toBeGreaterThan(0.93);
    expect(covered / RUNS).toBeLessThan(0.97);
  });
});

describe("a family of comparisons (Holm)", () => {
  simulate4k(
    "A/A with five identical apps: some verdict says 'different' in at most 5% (+2) of runs",
    () => {
      const z = normal(mulberry32(23));
      let falseAlarms = 0;
      let unadjusted = 0;
      for (let i = 0; i < RUNS / 2; i++) {
        const runs = simulateRounds(PAIRED, Array(5).fill(VM.mean), ROUND_COV, z);
        const family = pairFamily(runs.map((p) => estimate(p)));
        if ([...family.values()].some((v) => v.significant)) falseAlarms++;
        if ([...family.values()].some((v) => (v.test?.p ?? 1) < ALPHA)) unadjusted++;
      }
      expect(falseAlarms / (RUNS / 2)).toBeLessThan(0.07);
      // Without the correction, ten tests at 5% each: far more often.
      expect(unadjusted / (RUNS / 2)).toBeGreaterThan(0.15);
    },
  );

  simulate4k(
    "a paired difference as large as the stated detectable one is found 80% of the time",
    () => {
      const z = normal(mulberry32(29));
      const design = PAIRED;
      // The true standard error of a mean log ratio: the round's share cancels, the rest adds.
      const seTrue = Math.sqrt(
        (2 * (design.between ** 2 + design.within ** 2 / design.samples)) / design.processes,
      );
      const probe = { change: 0, t: 0, df: design.processes - 1, p: 1, ci: { low: 0, high: 0 } };
      const mdd = detectable({ ...probe, se: seTrue, paired: design.processes }, ALPHA);
      let found = 0;
      for (let i = 0; i < RUNS; i++) {
        const means = [design.mean, design.mean / (1 + mdd)];
        const [a, b] = simulateRounds(design, means, ROUND_COV, z).map((p) => estimate(p));
        if ((pairFamily([a as never, b as never]).get("0,1")?.significant ?? false) === true)
          found++;
      }
      // Exactly the promised 80% (noncentral t), within the simulation's own spread (±1.9 points).
      expect(found / RUNS).toBeGreaterThan(0.77);
      expect(found / RUNS).toBeLessThan(0.83);
    },
  );

  simulate4k(
    "Welch's: a difference as large as the stated detectable one is found 80% of the time",
    () => {
      const z = normal(mulberry32(30));
      const design = { ...VM, processes: 10 };
      const seTrue =
        Math.sqrt((design.between ** 2 + design.within ** 2 / design.samples) / design.processes) *
        Math.SQRT2;
      const probe = { change: 0, t: 0, p: 1, ci: { low: 0, high: 0 } };
      const mdd = detectable({ ...probe, se: seTrue, df: 2 * design.processes - 2 }, ALPHA);
      let found = 0;
      for (let i = 0; i < RUNS; i++) {
        const a = estimate(simulate(design, z));
        const b = estimate(simulate({ ...design, mean: design.mean * (1 - mdd) }, z));
        const test = welchPair(a, b);
        if (test && test.p < ALPHA) found++;
      }
      // At least the promised 80%; a little more, since b's spread shrinks with its mean here.
      expect(found / RUNS).toBeGreaterThan(0.78);
      expect(found / RUNS).toBeLessThan(0.9);
    },
  );

  simulate4k("with a round effect, pairing by round detects what Welch's test misses", () => {
    // The design the README measured: a ratio's spread is what the round did not share.
    const z = normal(mulberry32(33));
    let paired = 0;
    let unpaired = 0;
    for (let i = 0; i < RUNS / 4; i++) {
      const [a, b] = simulateRounds(PAIRED, [VM.mean, VM.mean * 0.94], 0.15, z).map((p) =>
        estimate(p),
      );
      if ((testPair(a as never, b as never)?.p ?? 1) < ALPHA) paired++;
      if ((welchPair(a as never, b as never)?.p ?? 1) < ALPHA) unpaired++;
    }
    expect(paired / (RUNS / 4)).toBeGreaterThan(unpaired / (RUNS / 4) + 0.1);
  });

  test("each pair's MDD is stated at Holm's strictest level: more pairs, larger MDD", () => {
    const z = normal(mulberry32(31));
    const estimates = Array.from({ length: 4 }, () => estimate(simulate(VM, z)));
    const two = pairFamily(estimates.slice(0, 2)).get("0,1")?.mdd ?? 0;
    const six = pairFamily(estimates).get("0,1")?.mdd ?? 0;
    expect(six).toBeGreaterThan(two);
    const test01 = testPair(estimates[0] as never, estimates[1] as never);
    if (!test01) throw new Error("untestable");
    expect(two).toBeCloseTo(detectable(test01, ALPHA), 12);
    expect(six).toBeCloseTo(detectable(test01, ALPHA / 6), 12);
  });

  test("verdictOf reads a paired pair from either side: the ratio inverts, the rest mirrors", () => {
    const rounds = Array.from({ length: PAIRED_MIN_ROUNDS }, (_, i) => i + 1);
    const family = pairFamily([
      estimate(rounds.map((r) => ({ round: r, values: [100 + r] }))),
      estimate(rounds.map((r) => ({ round: r, values: [80 + (r % 4) * r] }))),
    ]);
    const ab = verdictOf(family, 0, 1);
    const ba = verdictOf(family, 1, 0);
    expect(ab.test?.paired).toBe(PAIRED_MIN_ROUNDS);
    const logs = rounds.map((r) => Math.log((80 + (r % 4) * r) / (100 + r)));
    const mean = logs.reduce((x, y) => x + y) / logs.length;
    expect(ab.test?.change).toBeCloseTo(Math.exp(mean) - 1, 12);
    expect(ba.test?.change).toBeCloseTo(Math.exp(-mean) - 1, 12);
    expect(ba.test?.t).toBeCloseTo(-(ab.test?.t ?? 0), 12);
    expect(ba.test?.se).toBe(ab.test?.se as number);
    expect(ba.significant).toBe(ab.significant);
    expect(ba.mdd).toBe(ab.mdd as number);
    expect(ba.test?.ci.low).toBeCloseTo(1 / (1 + (ab.test?.ci.high ?? 0)) - 1, 12);
    expect(ba.test?.ci.high).toBeCloseTo(1 / (1 + (ab.test?.ci.low ?? 0)) - 1, 12);
  });

  test("verdictOf reads a Welch pair from either side: the change and its interval flip", () => {
    // No round in common: Welch's test, and its flip relative to the other mean.
    const family = pairFamily([
      estimate([1, 2, 3].map((r) => ({ round: r, values: [100 + r] }))),
      estimate([4, 5, 6].map((r) => ({ round: r, values: [80 + r - 3] }))),
    ]);
    const ab = verdictOf(family, 0, 1);
    const ba = verdictOf(family, 1, 0);
    expect(ab.test?.paired).toBeUndefined();
    expect(ab.test?.change).toBeCloseTo(82 / 102 - 1, 12);
    expect(ba.test?.change).toBeCloseTo(102 / 82 - 1, 12);
    expect(ba.test?.t).toBeCloseTo(-(ab.test?.t ?? 0), 12);
    expect(ba.significant).toBe(ab.significant);
    expect(ba.mdd).toBeCloseTo((ab.mdd ?? 0) * (102 / 82), 12);
    // The same difference's se, relative to the other mean: × 102 / 82.
    expect(ba.test?.se).toBeCloseTo((ab.test?.se ?? 0) * (102 / 82), 12);
  });

  test("a wide Welch interval read from the other side stays an interval around its change", () => {
    // Two processes a side, a halving with a wide spread: the 95% CI of b/a − 1 reaches below
    // −100%, where 1/(1 + x) − 1 would turn the interval inside out.
    const a = estimate([1, 2].map((r) => ({ round: r, values: [100 + 40 * r] })));
    const b = estimate([1, 2].map((r) => ({ round: r + 2, values: [30 + 40 * r] })));
    const family = pairFamily([a, b]);
    const ab = verdictOf(family, 0, 1).test;
    expect(ab?.ci.low).toBeLessThan(-1);
    const ba = verdictOf(family, 1, 0).test;
    if (!ba) throw new Error("untestable");
    expect(ba.ci.low).toBeLessThan(ba.change);
    expect(ba.ci.high).toBeGreaterThan(ba.change);
    expect(ba.ci.low).toBeLessThan(0); // it includes no change, as the test says
    expect(ba.ci.high - ba.ci.low).toBeCloseTo(
      ((ab?.ci.high ?? 0) - (ab?.ci.low ?? 0)) / (b.mean / a.mean),
      12,
    );
  });

  test("a pair with a side of one process is untestable: a tie, no MDD", () => {
    const family = pairFamily([
      estimate([{ round: 1, values: [100, 101] }]),
      estimate([1, 2, 3].map((r) => ({ round: r, values: [10 * r] }))),
    ]);
    expect(family.get("0,1")).toEqual({ significant: false });
  });
});

describe("equivalence (TOST) and one-sided tests", () => {
  const pair = (change: number, se: number, df = 20) => ({
    change,
    t: se === 0 ? 0 : change / se,
    df,
    p: 1,
    se,
    ci: { low: change, high: change },
  });

  test("a 4.8% drop measured with a ±3% detectable difference is not 'within ±5%'", () => {
    // The Done-when case: close to the margin, so equivalence cannot be shown.
    const se = 0.03 / 2.9; // about what makes the MDD ≈ 3% at alpha 0.05, 80% power
    const p = equivalenceP(pair(-0.048, se), 0.05);
    expect(p).toBeGreaterThan(ALPHA);
    // Centred and tight: equivalent.
    expect(equivalenceP(pair(0.001, 0.01), 0.05)).toBeLessThan(ALPHA);
  });

  test("TOST p is the larger of the two one-sided p-values", () => {
    const t = pair(0.02, 0.015, 12);
    const lower = 1 - tCdf((0.02 + 0.05) / 0.015, 12);
    const upper = tCdf((0.02 - 0.05) / 0.015, 12);
    expect(equivalenceP(t, 0.05)).toBeCloseTo(Math.max(lower, upper), 12);
  });

  test("a paired test's margins are ln(1 ± margin) on its log scale", () => {
    const mean = Math.log(1.02);
    const t = { ...pair(0.02, 0.01, 9), t: mean / 0.01, paired: 10 };
    const lower = 1 - tCdf((mean - Math.log(0.95)) / 0.01, 9);
    const upper = tCdf((mean - Math.log(1.05)) / 0.01, 9);
    expect(equivalenceP(t, 0.05)).toBeCloseTo(Math.max(lower, upper), 12);
    // Not the linear margins: those give another p.
    expect(
      Math.abs(equivalenceP(t, 0.05) - equivalenceP({ ...t, paired: undefined } as never, 0.05)),
    ).toBeGreaterThan(1e-4);
  });

  test("one-sided p: small in the direction moved, large in the other; they add to 1", () => {
    const t = pair(-0.1, 0.03);
    expect(oneSidedP(t, "down")).toBeLessThan(0.01);
    expect(oneSidedP(t, "down") + oneSidedP(t, "up")).toBeCloseTo(1, 12);
  });

  test("the gate read as cost (worse: up): a rise is the regression, a fall the improvement", () => {
    const members = [
      { key: "dearer", test: pair(0.1, 0.01) },
      { key: "cheaper", test: pair(-0.1, 0.01) },
      { key: "same", test: pair(0, 0.001) },
    ];
    const cost = gate(members, 0.02, ALPHA, "up");
    expect(cost.get("dearer")?.verdict).toBe("regression");
    expect(cost.get("cheaper")?.verdict).toBe("improvement");
    expect(cost.get("same")?.verdict).toBe("no change beyond the threshold");
    const speed = gate(members, 0.02);
    expect(speed.get("dearer")?.verdict).toBe("improvement");
    expect(speed.get("cheaper")?.verdict).toBe("regression");
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

  test("a pair by hand: Welch's t, df, p and the interval of the change", () => {
    // a: 90, 100, 110 (sd 10); b: 80, 85, 90 (sd 5). se = √(100/3 + 25/3) = 6.455.
    const a = estimate(p([[90], [100], [110]]));
    const b = estimate(p([[80], [85], [90]]));
    const t = welchPair(a, b);
    const se = Math.sqrt(125 / 3);
    expect(t?.change).toBeCloseTo(-0.15, 12);
    expect(t?.t).toBeCloseTo(-15 / se, 12);
    expect(t?.df).toBeCloseTo((125 / 3) ** 2 / ((100 / 3) ** 2 / 2 + (25 / 3) ** 2 / 2), 12);
    expect(t?.se).toBeCloseTo(se / 100, 12);
    expect(t?.p).toBeGreaterThan(0.05);
    expect(t?.p).toBeLessThan(0.2);
    const half = (t?.ci.high ?? 0) - (t?.change ?? 0);
    expect(half).toBeCloseTo((t?.change ?? 0) - (t?.ci.low ?? 0), 12);
    expect(half).toBeGreaterThan(0.15); // it includes no change, as p > 0.05 says
    // df ≈ 2.94 lies between 2 and 3, so t(0.975, df) lies between the table's 3.1824 (df 3)
    // and 4.3027 (df 2): the half-width is that times se / mean = 0.06455.
    expect(half).toBeGreaterThan(3.1824 * (se / 100));
    expect(half).toBeLessThan(4.3027 * (se / 100));
  });

  test("a paired pair by hand: the t-test of the per-round log ratios", () => {
    // Rounds 1-3: a 100, 200, 400; b 110, 200, 480: ratios 1.1, 1, 1.2. Round 4 only a has.
    const a = estimate(p([[100], [200], [400], [50]]));
    const b = estimate(p([[110], [200], [480]]));
    expect(roundLogRatios(a, b)).toEqual([Math.log(1.1), 0, Math.log(1.2)]);
    const logs = [Math.log(1.1), 0, Math.log(1.2)];
    const mean = logs.reduce((x, y) => x + y) / 3;
    const sd = Math.sqrt(logs.reduce((x, y) => x + (y - mean) ** 2, 0) / 2);
    const se = sd / Math.sqrt(3);
    const t = logRatioTest(logs);
    expect(t?.paired).toBe(3);
    expect(t?.df).toBe(2);
    expect(t?.change).toBeCloseTo(Math.exp(mean) - 1, 12);
    expect(t?.se).toBeCloseTo(se, 12);
    expect(t?.t).toBeCloseTo(mean / se, 12);
    expect(t?.p).toBeCloseTo(tTwoSidedP(mean / se, 2), 12);
    // t(0.975, 2) = 4.302652729911275
    expect(t?.ci.low).toBeCloseTo(Math.exp(mean - 4.302652729911275 * se) - 1, 8);
    expect(t?.ci.high).toBeCloseTo(Math.exp(mean + 4.302652729911275 * se) - 1, 8);
    expect(logRatioTest([0.1])).toBeUndefined();
  });

  test(`a run's pair is paired from ${PAIRED_MIN_ROUNDS} rounds in common; Welch's below`, () => {
    const rounds = (n: number, f: (r: number) => number) =>
      estimate(Array.from({ length: n }, (_, i) => ({ round: i + 1, values: [f(i + 1)] })));
    const wobble = (r: number) => 100 * (1 + 0.01 * ((r * 7) % 5));
    const at = (n: number) =>
      testPair(
        rounds(n, wobble),
        rounds(n, (r) => 1.1 * wobble(r) * (1 + 0.01 * (r % 3))),
      );
    expect(at(PAIRED_MIN_ROUNDS)?.paired).toBe(PAIRED_MIN_ROUNDS);
    expect(at(PAIRED_MIN_ROUNDS)).toEqual(
      logRatioTest(
        roundLogRatios(
          rounds(PAIRED_MIN_ROUNDS, wobble),
          rounds(PAIRED_MIN_ROUNDS, (r) => 1.1 * wobble(r) * (1 + 0.01 * (r % 3))),
        ),
      ) as never,
    );
    const short = PAIRED_MIN_ROUNDS - 1;
    expect(at(short)?.paired).toBeUndefined();
    expect(at(short)).toEqual(
      welchPair(
        rounds(short, wobble),
        rounds(short, (r) => 1.1 * wobble(r) * (1 + 0.01 * (r % 3))),
      ) as never,
    );
    // Rounds in common count, not rounds each: twenty apart are not paired.
    const apart = estimate(
      Array.from({ length: 20 }, (_, i) => ({ round: i + 21, values: [100 + i] })),
    );
    expect(testPair(rounds(20, wobble), apart)?.paired).toBeUndefined();
    expect(PAIRED_MIN_ROUNDS).toBe(20);
  });

  test("no spread on either side: a difference is certain, none is impossible", () => {
    const paired = logRatioTest([Math.log(1.2), Math.log(1.2)]);
    expect(paired).toMatchObject({ t: Number.POSITIVE_INFINITY, p: 0, se: 0, paired: 2, df: 1 });
    expect(paired?.change).toBeCloseTo(0.2, 12);
    expect(paired?.ci.low).toBe(paired?.change as number);
    expect(paired?.ci.high).toBe(paired?.change as number);
    expect(logRatioTest([0, 0])).toMatchObject({ change: 0, t: 0, p: 1 });
    expect(logRatioTest([-0.1, -0.1])?.t).toBe(Number.NEGATIVE_INFINITY);
    const same = welchPair(estimate(p([[5], [5]])), estimate(p([[5], [5]])));
    expect(same).toMatchObject({ change: 0, t: 0, p: 1, se: 0, df: 2 });
    const up = welchPair(estimate(p([[5], [5]])), estimate(p([[6], [6]])));
    expect(up).toMatchObject({ t: Number.POSITIVE_INFINITY, p: 0, se: 0 });
    expect(up?.ci).toEqual({ low: 0.2, high: 0.2 });
    const down = welchPair(estimate(p([[6], [6]])), estimate(p([[5], [5]])));
    expect(down?.t).toBe(Number.NEGATIVE_INFINITY);
    // Equivalence with no spread: inside the margin or not.
    if (!up || !down) throw new Error("untestable");
    expect(equivalenceP(up, 0.25)).toBe(0);
    expect(equivalenceP(up, 0.2)).toBe(1);
    expect(equivalenceP(up, 0.1)).toBe(1);
  });

  test("a family: Holm over the testable pairs only, MDD at alpha over their number", () => {
    const e = (values: number[]) => estimate(p(values.map((v) => [v])));
    const family = pairFamily([e([100, 101, 99]), e([50, 51, 49]), e([100]), e([99, 100, 101])]);
    // Six pairs, three testable (the single process is in none of them).
    expect([...family.values()].filter((v) => v.test).length).toBe(3);
    expect(family.get("0,2")).toEqual({ significant: false });
    const v01 = family.get("0,1");
    expect(v01?.significant).toBe(true);
    expect(v01?.mdd).toBeCloseTo(detectable(v01?.test as never, ALPHA / 3), 12);
    expect(family.get("0,3")?.significant).toBe(false);
    expect(verdictOf(family, 2, 0)).toEqual({ significant: false });
    // Every pair has a verdict, and nothing else is in the family: 4 · 3 / 2 = 6.
    expect(family.size).toBe(6);
    // A pair the family does not hold (an index beyond it), from either side: a tie.
    expect(verdictOf(family, 0, 9)).toEqual({ significant: false });
    expect(verdictOf(family, 9, 0)).toEqual({ significant: false });
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

  test("the detectable change: the noncentrality at 80% power, times the se", () => {
    // df = 20, se 0.02; scipy.stats.nct: 2.9454667 two-sided at 0.05, 2.5751231 one-sided.
    const t = { change: 0, t: 0, df: 20, p: 1, se: 0.02, ci: { low: 0, high: 0 } };
    expect(detectable(t, 0.05)).toBeCloseTo(2.945466717 * 0.02, 8);
    expect(detectable(t, 0.05, 2)).toBeCloseTo(2.945466717 * 0.02, 8);
    expect(detectable(t, 0.05, 1)).toBeCloseTo(2.575123129 * 0.02, 8);
    // Paired, on the log scale: the ratio that far from 1, df 9 (3.1496329 two-sided).
    const paired = { ...t, df: 9, paired: 10 };
    expect(detectable(paired, 0.05)).toBeCloseTo(Math.expm1(3.149632886 * 0.02), 8);
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
