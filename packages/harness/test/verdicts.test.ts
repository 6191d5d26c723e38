// The statistics of verdicts.ts (comparing estimates) checked against known truth: thousands of
// simulated runs with a nested noise structure like this VM's (samples within processes, rounds
// that move every app at once; the simulations are in support/simulate.ts), from a seeded
// generator, so every rate below is the same on every machine and every run. Each test fails
// when the rule it names is broken: a change's interval that does not cover the true change at
// its nominal rate; no multiple-comparison control lets A/A families cry wolf; a detectable
// difference stated too small is not detected 80% of the time.
import { describe, expect, test } from "bun:test";
import { estimate } from "../src/analysis/estimate.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import { tCdf, tTwoSidedP } from "../src/analysis/stats.ts";
import {
  ALPHA,
  crossoverTest,
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
import {
  normal,
  PAIRED,
  ROUND_COV,
  RUNS,
  simulate,
  simulate4k,
  simulateRounds,
  VM,
} from "./support/simulate.ts";

describe("confidence intervals over processes", () => {
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

describe("exact values (what the simulations check loosely, pinned here)", () => {
  const p = (values: number[][]) => values.map((v, i) => ({ round: i + 1, values: v }));

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

  test("side by side, a crossover by hand: the mean of the two arrangements' means, their pooled spread", () => {
    // Odd rounds 1, 3, 5 (one arrangement of the slots): 0.10, 0.12, 0.14; even 2, 4: 0.05, 0.07.
    const byRound = new Map([
      [1, 0.1],
      [2, 0.05],
      [3, 0.12],
      [4, 0.07],
      [5, 0.14],
    ]);
    const t = crossoverTest(byRound);
    // Means 0.12 and 0.06: 0.09, not the five rounds' 0.096. Sums of squares 0.0008 and
    // 0.0002 over 5 − 2 = 3 df; se = √(0.001 / 3 · (1/3 + 1/2)) / 2 = 0.0083333.
    const se = Math.sqrt((0.001 / 3) * (1 / 3 + 1 / 2)) / 2;
    expect(t?.df).toBe(3);
    expect(t?.paired).toBe(5);
    expect(t?.change).toBeCloseTo(Math.expm1(0.09), 12);
    expect(t?.se).toBeCloseTo(se, 12);
    expect(t?.t).toBeCloseTo(0.09 / se, 10);
    expect(t?.p).toBeCloseTo(tTwoSidedP(0.09 / se, 3), 12);
    // t(0.975, 3) = 3.182446305284263
    expect(t?.ci.low).toBeCloseTo(Math.exp(0.09 - 3.182446305284263 * se) - 1, 8);
    expect(t?.ci.high).toBeCloseTo(Math.exp(0.09 + 3.182446305284263 * se) - 1, 8);
    // The one-sample test would count the arrangements' 0.06 apart as noise: se √(0.00532 / 4 / 5).
    expect(logRatioTest([...byRound.values()])?.se).toBeCloseTo(Math.sqrt(0.00532 / 20), 12);
    // Every round in one arrangement: nothing to cancel, the one-sample test.
    const odd = new Map([
      [1, 0.1],
      [3, 0.12],
      [5, 0.15],
    ]);
    expect(crossoverTest(odd)).toEqual(logRatioTest([0.1, 0.12, 0.15]) as never);
    const even = new Map([
      [2, 0.1],
      [4, 0.12],
      [6, 0.15],
    ]);
    expect(crossoverTest(even)).toEqual(logRatioTest([0.1, 0.12, 0.15]) as never);
    // One round in each: no spread within either, the one-sample test over the two.
    expect(
      crossoverTest(
        new Map([
          [1, 0.1],
          [2, 0.2],
        ]),
      ),
    ).toEqual(logRatioTest([0.1, 0.2]) as never);
    expect(crossoverTest(new Map([[2, 0.1]]))).toBeUndefined();
    expect(crossoverTest(new Map())).toBeUndefined();
    // A log ratio that is no number gives no test, as it gives the one-sample test none.
    const nan = new Map([
      [1, Number.NaN],
      [2, 0.1],
      [3, 0.2],
    ]);
    expect(crossoverTest(nan)).toBeUndefined();
    // No spread within either arrangement: certain, as the one-sample test is.
    const flat = crossoverTest(
      new Map([
        [1, 0.1],
        [2, 0.2],
        [3, 0.1],
      ]),
    );
    expect(flat).toMatchObject({ se: 0, p: 0, t: Number.POSITIVE_INFINITY, df: 1 });
    expect(flat?.change).toBeCloseTo(Math.expm1(0.15), 12);
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
});
