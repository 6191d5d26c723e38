// Kalibera & Jones's processes per session (allocation.ts): the variance components and the
// repetition count against libkalibera's own code (softdevteam/libkalibera, pykalibera/data.py,
// run under Python 3 with two shims: func.__name__ for func.func_name, base64.b64decode for
// str.decode("base64"); `Data({(j,): processes of session j}, [sessions, k])`, then Ti2(1),
// Ti2(2) and optimalreps(1, (c₂, c₁))), the fallbacks, and on simulated histories that the
// estimators recover the components they were built from (skipped under mutation testing).
import { describe, expect, test } from "bun:test";
import {
  type AllocationSession,
  allocateRounds,
  allocationComponents,
  MIN_ALLOCATION_SESSIONS,
} from "../src/analysis/allocation.ts";
import { MIN_CI_PROCESSES } from "../src/analysis/estimate.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import { spread } from "../src/analysis/stats.ts";
import { normal, simulate4k } from "./support/simulate.ts";

/** A session as a run reports it, from its process means (log). */
function session(processes: readonly number[]): AllocationSession {
  const s = spread(processes);
  return { estimate: s.mean, se: s.stddev / Math.sqrt(s.n), processes: s.n };
}

// libkalibera's examples: four sessions of three processes, five of five.
const four = [
  [0.0, 0.05, -0.02],
  [0.1, 0.12, 0.07],
  [-0.05, 0.02, 0.0],
  [0.2, 0.15, 0.18],
].map(session);
const five = [
  [0.0, 0.05, -0.02, 0.01, 0.03],
  [0.1, 0.12, 0.07, 0.09, 0.11],
  [-0.05, 0.02, 0.0, -0.01, 0.04],
  [0.2, 0.15, 0.18, 0.17, 0.12],
  [0.05, 0.02, 0.08, 0.03, 0.06],
].map(session);

describe("the variance components, against libkalibera", () => {
  test("four sessions of three: Ti2(1), Ti2(2) and the unrounded optimum", () => {
    // libkalibera: Ti2(1) = 0.0009666666666666666, Ti2(2) = 0.007037037037037038;
    // √(60/8 · Ti2(1)/Ti2(2)) = 1.0150187968184317
    const c = allocationComponents(four, { session: 60, process: 8 });
    expect(c?.sessions).toBe(4);
    expect(c?.processVariance).toBeCloseTo(0.0009666666666666666, 16);
    expect(c?.sessionVariance).toBeCloseTo(0.007037037037037038, 16);
    expect(c?.optimum).toBeCloseTo(1.0150187968184317, 13);
  });

  test("five sessions of five", () => {
    // libkalibera: Ti2(1) = 0.00075, Ti2(2) = 0.0043512; optimalreps(1, (300, 2)) = 6
    const c = allocationComponents(five, { session: 300, process: 2 });
    expect(c?.processVariance).toBeCloseTo(0.00075, 16);
    expect(c?.sessionVariance).toBeCloseTo(0.0043512, 15);
    expect(c?.optimum).toBeCloseTo(5.084774977245531, 12);
  });

  test("unbalanced sessions: S₁² pooled by degrees of freedom, S₂² less S₁²·mean(1/k)", () => {
    // numpy: S1 = Σ(k−1)·k·se² / Σ(k−1); T2 = est.var(ddof=1) − S1·mean(1/k); √(45/5·S1/T2)
    const sessions = [
      { estimate: 0.01, se: 0.02, processes: 2 },
      { estimate: 0.12, se: 0.015, processes: 4 },
      { estimate: -0.03, se: 0.03, processes: 8 },
      { estimate: 0.08, se: 0.01, processes: 3 },
      { estimate: 0.05, se: 0.025, processes: 6 },
    ];
    const c = allocationComponents(sessions, { session: 45, process: 5 });
    expect(c?.processVariance).toBeCloseTo(0.004069444444444445, 16);
    expect(c?.sessionVariance).toBeCloseTo(0.002310902777777777, 16);
    expect(c?.optimum).toBeCloseTo(3.9810531829797577, 12);
    expect(allocateRounds(sessions, { session: 45, process: 5 }, 10).rounds).toBe(4);
  });

  test(`fewer than ${MIN_ALLOCATION_SESSIONS} sessions with an interval: none`, () => {
    const costs = { session: 60, process: 8 };
    expect(allocationComponents(four.slice(0, 2), costs)).toBeUndefined();
    // a session of one process, or without a standard error, has no interval of its own
    const unusable = [
      { estimate: 0.3, se: Number.NaN, processes: 1 },
      { estimate: 0.3, se: Number.NaN, processes: 4 },
      { estimate: 0.3, se: 0.01, processes: 1 },
    ];
    expect(allocationComponents([...four.slice(0, 2), ...unusable], costs)).toBeUndefined();
    expect(allocationComponents([...four.slice(0, 3), ...unusable], costs)).toEqual(
      allocationComponents(four.slice(0, 3), costs),
    );
    expect(
      allocationComponents(
        [four[0], four[1], { ...four[2], processes: 2 }] as AllocationSession[],
        costs,
      )?.sessions,
    ).toBe(3);
  });
});

describe("allocateRounds", () => {
  test("rounds up the optimum: five of five at 300 s a session, 2 s a round, give 6", () => {
    const a = allocateRounds(five, { session: 300, process: 2 }, 12);
    expect(a.rounds).toBe(6);
    expect(a.why).toBe(
      "over 5 sessions: processes vary 2.7%, sessions 6.6% beyond them; a session's fixed part costs 300 s, a round 2 s: ⌈√(300/2 · 2.7%² / 6.6%²)⌉ = 6 rounds",
    );
    expect(a.components?.sessions).toBe(5);
  });

  test(`never fewer than ${MIN_CI_PROCESSES}: a session needs its own interval`, () => {
    const a = allocateRounds(four, { session: 60, process: 8 }, 12);
    expect(a.rounds).toBe(MIN_CI_PROCESSES);
    expect(a.why).toEndWith("= 2, raised to 3: a session needs its own interval");
    // a session that costs nothing beyond its processes: as many sessions as possible
    expect(allocateRounds(five, { session: 0, process: 2 }, 12).rounds).toBe(MIN_CI_PROCESSES);
  });

  test("too short a history: the fallback, never below the minimum", () => {
    const a = allocateRounds(four.slice(0, 2), { session: 60, process: 8 }, 12);
    expect(a).toEqual({
      rounds: 12,
      why: "fewer than 3 earlier sessions with an interval of their own: the default, 12 rounds",
    });
    expect(allocateRounds([], { session: 60, process: 8 }, 2).rounds).toBe(MIN_CI_PROCESSES);
  });

  test("sessions that part no more than their processes explain: the fallback, with why", () => {
    // three sessions a little apart, each with a wide interval of its own
    const noisy = [0, 0.01, 0.02].map((estimate) => ({ estimate, se: 0.05, processes: 5 }));
    const a = allocateRounds(noisy, { session: 60, process: 8 }, 12);
    expect(a.rounds).toBe(12);
    expect(a.components?.sessionVariance).toBeLessThan(0);
    expect(a.components?.optimum).toBe(Number.POSITIVE_INFINITY);
    expect(a.why).toBe(
      "over 3 sessions the sessions part no more than their processes explain (processes 11.2%): more rounds would always pay, so the default, 12 rounds",
    );
    // exactly no spread beyond the processes' is the same case
    const equal = [0, 0, 0].map((estimate) => ({ estimate, se: 0, processes: 5 }));
    const none = allocateRounds(equal, { session: 60, process: 8 }, 4);
    expect(none.rounds).toBe(4);
    expect(none.components?.sessionVariance).toBe(0);
    expect(none.components?.optimum).toBe(Number.POSITIVE_INFINITY);
  });

  test("costs: a round must cost something, a session nothing or more", () => {
    const costs = (session: number, process: number) => () =>
      allocateRounds(five, { session, process }, 12);
    expect(costs(60, 0)).toThrow("a process must cost more than 0 s");
    expect(costs(-1, 8)).toThrow(RangeError);
    expect(costs(Number.POSITIVE_INFINITY, 8)).toThrow(RangeError);
    expect(costs(Number.NaN, 8)).toThrow(RangeError);
    expect(costs(0, 8)).not.toThrow();
  });
});

describe("known answers on simulated histories", () => {
  simulate4k("the estimators recover the components they were built from, unbiased", () => {
    // Process SD 10%, session SD 7%, five processes each; 2,000 histories of 6 sessions.
    const z = normal(mulberry32(41));
    let t1 = 0;
    let t2 = 0;
    const histories = 2000;
    for (let h = 0; h < histories; h++) {
      const sessions = Array.from({ length: 6 }, () => {
        const level = 0.07 * z();
        return session(Array.from({ length: 5 }, () => level + 0.1 * z()));
      });
      const c = allocationComponents(sessions, { session: 60, process: 8 });
      t1 += (c?.processVariance ?? 0) / histories;
      t2 += (c?.sessionVariance ?? 0) / histories;
    }
    expect(t1 / 0.1 ** 2).toBeGreaterThan(0.97);
    expect(t1 / 0.1 ** 2).toBeLessThan(1.03);
    expect(t2 / 0.07 ** 2).toBeGreaterThan(0.93);
    expect(t2 / 0.07 ** 2).toBeLessThan(1.07);
  });
});
