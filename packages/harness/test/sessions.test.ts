// The statistics of a history of sessions (sessions.ts): exact values checked against scipy, the
// edges, and the known answers on simulated histories (support/history.ts; skipped under
// mutation testing, as estimate.test.ts's are). Each simulation fails when the rule it names is
// broken: an interval from one session's own standard error covers the truth in a third of
// histories, not 95%; a newest session judged without Holm flags a family of unchanged series
// far more often than 5%.
import { describe, expect, test } from "bun:test";
import {
  acrossSessions,
  heldOut,
  MIN_EARLIER_SESSIONS,
  newestChanged,
  type SessionPoint,
  slopeAgainst,
} from "../src/analysis/sessions.ts";
import { power } from "../src/analysis/stats.ts";
import { coverage, newestFlagged, SESSION_SD, WITHIN_SE } from "./support/history.ts";
import { simulate4k } from "./support/simulate.ts";

/** Points of one series from log estimates (and standard errors), a day apart. */
function points(estimates: readonly number[], se: readonly number[] = []): SessionPoint[] {
  return estimates.map((estimate, i) => ({
    run: `run-${i}`,
    startedAt: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    estimate,
    se: se[i] ?? 0.01,
  }));
}

describe("acrossSessions", () => {
  // The five side-by-side sessions of node-bare/bun-bare in one hour (docs/findings.md):
  // ×2.52, 2.66, 2.90, 2.86, 2.96, each with its own standard error.
  const five = points(
    [2.52, 2.66, 2.9, 2.86, 2.96].map(Math.log),
    [0.012, 0.02, 0.034, 0.015, 0.01],
  );

  test("matches scipy: mean, t interval, SDs, the session component, the prediction", () => {
    // python3: x = log([2.52, 2.66, 2.90, 2.86, 2.96]); se = [0.012, 0.02, 0.034, 0.015, 0.01];
    // m = x.mean(); s = x.std(ddof=1); t = scipy.stats.t.ppf(0.975, 4);
    // m ∓ t·s/√5, √mean(se²), √(s² − mean(se²)), m ∓ t·s·√(1 + 1/5)
    const a = acrossSessions(five);
    expect(a?.n).toBe(5);
    expect(a?.level).toBe(0.95);
    expect(a?.estimate).toBeCloseTo(1.0206613308954195, 14);
    expect(a?.low).toBeCloseTo(0.9371379742519206, 12);
    expect(a?.high).toBeCloseTo(1.1041846875389185, 12);
    expect(a?.betweenSd).toBeCloseTo(0.06726727743119465, 14);
    expect(a?.withinSe).toBeCloseTo(0.020124611797498106, 14);
    expect(a?.sessionComponent).toBeCloseTo(0.0641863428854247, 14);
    expect(a?.prediction.low).toBeCloseTo(0.8160717255143476, 12);
    expect(a?.prediction.high).toBeCloseTo(1.2252509362764914, 12);
  });

  test("another level narrows both intervals (scipy: t.ppf(0.95, 4))", () => {
    const a = acrossSessions(five, 0.9);
    expect(a?.level).toBe(0.9);
    expect(a?.low).toBeCloseTo(0.9565293229870647, 12);
    expect(a?.prediction.high).toBeCloseTo(1.1777520264510244, 12);
  });

  test("each session weighs the same, whatever its standard error", () => {
    const a = acrossSessions(points([0, 1], [0.001, 0.5]));
    expect(a?.estimate).toBe(0.5);
    expect(a?.withinSe).toBeCloseTo(Math.sqrt((0.001 ** 2 + 0.5 ** 2) / 2), 15);
  });

  test("sessions that part less than their own noise add nothing: the component is 0", () => {
    const a = acrossSessions(points([0, 0.01, 0.02], [0.05, 0.05, 0.05]));
    expect(a?.betweenSd).toBeCloseTo(0.01, 15);
    expect(a?.sessionComponent).toBe(0);
  });

  test("fewer than two sessions: no interval", () => {
    expect(acrossSessions([])).toBeUndefined();
    expect(acrossSessions(points([1]))).toBeUndefined();
    expect(acrossSessions(points([1, 1]))?.high).toBe(1);
  });
});

describe("newestChanged", () => {
  // python3: for each series, e = earlier, n = len(e), s = e.std(ddof=1), scale = s·√(1 + 1/n),
  // t = (x − e.mean()) / scale, p = 2·scipy.stats.t.sf(|t|, n − 1),
  // prediction = e.mean() ∓ t.ppf(0.975, n − 1)·scale; Holm at 0.05 by hand.
  const a = points([0, 0.02, -0.01, 0.03, 0.01, 0.2]);
  const b = points([1, 1.05, 0.98, 1.02, 1.06]);
  const d = points([0.5, 0.52, 0.49, 0.6]);

  test("p against the earlier sessions' prediction, matching scipy", () => {
    const result = newestChanged([
      { key: "a", points: a },
      { key: "b", points: b },
      { key: "d", points: d },
    ]);
    expect([...result.keys()]).toEqual(["a", "b", "d"]);
    const ra = result.get("a");
    expect(ra?.p).toBeCloseTo(0.0003923682203050259, 13);
    expect(ra?.prediction.low).toBeCloseTo(-0.038089439866284935, 12);
    expect(ra?.prediction.high).toBeCloseTo(0.05808943986628494, 12);
    expect(ra?.earlier).toBe(5);
    expect(ra?.run).toBe("run-5");
    expect(ra?.estimate).toBe(0.2);
    expect(ra?.changed).toBe(true);
    expect(result.get("b")?.p).toBeCloseTo(0.2499598029978655, 12);
    expect(result.get("b")?.prediction.low).toBeCloseTo(0.9062528333709409, 12);
    expect(result.get("b")?.changed).toBe(false);
    // p = 0.032 < 0.05, but Holm holds the second smallest of three to 0.05/2.
    expect(result.get("d")?.p).toBeCloseTo(0.03171818322344222, 12);
    expect(result.get("d")?.prediction.high).toBeCloseTo(0.5792249940052685, 12);
    expect(result.get("d")?.changed).toBe(false);
  });

  test("alone, the same newest session of d is a change; at alpha 0.01 it is not", () => {
    expect(newestChanged([{ key: "d", points: d }]).get("d")?.changed).toBe(true);
    const strict = newestChanged([{ key: "d", points: d }], 0.01).get("d");
    expect(strict?.changed).toBe(false);
    // The prediction interval follows alpha: e.mean() ∓ t.ppf(0.995, 2)·s·√(1 + 1/3).
    expect(strict?.prediction.low).toBeCloseTo(0.3282755539270662, 11);
    expect(strict?.prediction.high).toBeCloseTo(0.6783911127396004, 11);
  });

  test(`the newest is the latest startedAt, and needs ${MIN_EARLIER_SESSIONS} earlier sessions`, () => {
    const shuffled = [a[5], a[2], a[0], a[4], a[1], a[3]] as SessionPoint[];
    expect(newestChanged([{ key: "a", points: shuffled }]).get("a")?.run).toBe("run-5");
    const short = newestChanged([
      { key: "three", points: d.slice(0, 3) },
      { key: "none", points: [] },
      { key: "four", points: d },
    ]);
    expect([...short.keys()]).toEqual(["four"]);
    expect(short.get("four")?.earlier).toBe(MIN_EARLIER_SESSIONS);
  });

  test("earlier sessions all equal: a different newest is a change, the same one is not", () => {
    const same = newestChanged([
      { key: "moved", points: points([1, 1, 1, 1.01]) },
      { key: "still", points: points([1, 1, 1, 1]) },
    ]);
    expect(same.get("moved")?.p).toBe(0);
    expect(same.get("moved")?.changed).toBe(true);
    expect(same.get("still")?.p).toBe(1);
    expect(same.get("still")?.changed).toBe(false);
  });

  test("a series named twice is an error, not a family of the wrong size", () => {
    expect(() =>
      newestChanged([
        { key: "a", points: a },
        { key: "a", points: b },
      ]),
    ).toThrow("series a twice");
    // even where the first is too short to test
    const twice = [
      { key: "d", points: d.slice(0, 2) },
      { key: "d", points: d },
    ];
    expect(() => newestChanged(twice)).toThrow("series d twice");
  });
});

describe("slopeAgainst", () => {
  test("matches scipy.stats.linregress: slope, its standard error, p and t interval", () => {
    // python3: r = scipy.stats.linregress(x, y); r.slope ∓ t.ppf(0.975, 6)·r.stderr
    const x = [9.1, 9.25, 9.02, 9.4, 9.31, 9.18, 9.05, 9.36];
    const y = [0.93, 0.97, 0.9, 1.05, 1.0, 0.95, 0.94, 1.01];
    const s = slopeAgainst(x.map((v, i) => ({ x: v, y: y[i] as number })));
    expect(s?.n).toBe(8);
    expect(s?.slope).toBeCloseTo(0.32637391079285666, 12);
    expect(s?.se).toBeCloseTo(0.03798165698559699, 12);
    expect(s?.p).toBeCloseTo(0.00013655328677456005, 14);
    expect(s?.low).toBeCloseTo(0.23343614418867592, 11);
    expect(s?.high).toBeCloseTo(0.4193116773970374, 11);
  });

  test("three points are enough (1 df: t = 12.7)", () => {
    const s = slopeAgainst([
      { x: 1, y: 0.5 },
      { x: 2, y: 0.1 },
      { x: 4, y: 0.3 },
    ]);
    expect(s?.slope).toBeCloseTo(-0.042857142857142864, 14);
    expect(s?.se).toBeCloseTo(0.12371791482634836, 14);
    expect(s?.p).toBeCloseTo(0.7877043849903435, 12);
    expect(s?.low).toBeCloseTo(-1.614842298173348, 10);
    expect(s?.high).toBeCloseTo(1.529128012459062, 10);
  });

  test("no slope below three points or without any spread in x", () => {
    expect(slopeAgainst([])).toBeUndefined();
    expect(
      slopeAgainst([
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ]),
    ).toBeUndefined();
    // 0.1 three times: a mean of 0.10000000000000002, yet no spread at all
    const same = [0.1, 0.1, 0.1].map((x, i) => ({ x, y: i }));
    expect(slopeAgainst(same)).toBeUndefined();
    // scipy.stats.linregress([0.1, 0.1, 0.1, 0.2], [0, 1, 2, 4]): 30.0, stderr 11.547005383792520
    const spread = slopeAgainst([...same, { x: 0.2, y: 4 }]);
    expect(spread?.slope).toBeCloseTo(30, 10);
    expect(spread?.se).toBeCloseTo(11.54700538379252, 9);
  });

  test("a perfect line has the slope exactly, with no width", () => {
    const s = slopeAgainst([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })));
    expect(s?.slope).toBe(2);
    expect(s?.se).toBe(0);
    expect(s?.low).toBe(2);
    expect(s?.p).toBe(0);
  });
});

describe("known answers on simulated histories (session SD 7%, within-session SE 1.5%)", () => {
  simulate4k("the across-session 95% CI covers the truth in 93–97% of 2,000 histories of 6", () => {
    const c = coverage(1, 2000, 6);
    expect(c.across).toBeGreaterThan(0.93);
    expect(c.across).toBeLessThan(0.97);
    expect(c.prediction).toBeGreaterThan(0.93);
    expect(c.prediction).toBeLessThan(0.97);
    // A session's own interval describes that session, not the next: about a third.
    expect(c.withinZ).toBeLessThan(0.4);
    expect(c.withinT).toBeLessThan(0.4);
  });

  // The newest session's t is noncentral t with ncp = shift / (σ·√(1 + 1/n)), n − 1 df.
  const sigma = Math.hypot(SESSION_SD, WITHIN_SE);
  const ncp = (shift: number) => shift / (sigma * Math.sqrt(1 + 1 / 8));

  simulate4k("unchanged newest sessions: at most 5% of families of five flag any", () => {
    expect(newestFlagged(21, 2000, 5, 0).any).toBeLessThanOrEqual(0.05);
    const alone = newestFlagged(20, 2000, 1, 0).any;
    expect(alone).toBeGreaterThan(0.03);
    expect(alone).toBeLessThan(0.06);
  });

  simulate4k("a newest session 20% up is flagged at the noncentral t's power", () => {
    const shift = Math.log(1.2);
    const expected = power(ncp(shift), 7, 0.05); // 0.543
    const alone = newestFlagged(20, 2000, 1, shift).shifted;
    const se = Math.sqrt((expected * (1 - expected)) / 2000);
    expect(Math.abs(alone - expected)).toBeLessThan(3 * se);
    // In a family of five, Holm holds it to between alpha/5 and alpha.
    const family = newestFlagged(21, 2000, 5, shift);
    expect(family.shifted).toBeGreaterThan(power(ncp(shift), 7, 0.01) - 3 * se);
    expect(family.shifted).toBeLessThan(expected);
    expect(family.others).toBeLessThanOrEqual(0.05);
  });
});

describe("heldOut: each session against the others' prediction", () => {
  const at = (i: number) => new Date(Date.UTC(2026, 10, 28, i)).toISOString();
  const points = (xs: number[]) =>
    xs.map((estimate, i) => ({ run: `s${i}`, startedAt: at(i), estimate, se: 0.01 }));

  test("a steady series: every session inside; one far away: outside", () => {
    expect(heldOut(points([0, 0.01, -0.01, 0.02, -0.02, 0.005]))).toEqual({ inside: 6, of: 6 });
    expect(heldOut(points([0, 0.01, -0.01, 0.02, -0.02, 0.5]))).toEqual({ inside: 5, of: 6 });
  });

  test("the interval is the others' (computed apart): inside at its edge, outside beyond it", () => {
    // others 0, 0.1, 0.2: mean 0.1, sd 0.1, t(2) = 4.302653, half = 4.302653 × 0.1 × √(4/3)
    const half = 4.302652729749464 * 0.1 * Math.sqrt(4 / 3);
    expect(heldOut(points([0, 0.1, 0.2, 0.1 + half - 1e-9]))?.inside).toBe(4);
    expect(heldOut(points([0, 0.1, 0.2, 0.1 + half + 1e-6]))?.inside).toBe(3);
  });

  test("too few sessions: nothing to say", () => {
    expect(heldOut(points([0, 0.1, 0.2]))).toBeUndefined();
  });
});
