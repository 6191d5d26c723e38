// The analysis of a side-by-side run (analysis/ratios.ts) on synthetic samples whose answer is
// known by construction: each row's CPU time per request relative to its reference, its
// interval over pairs of processes, the comparisons through a shared reference, the ranks and
// ties, the flags, --against's verdicts, and the interval's coverage on simulated runs.
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { calibrationViews } from "../src/analysis/calibration.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import {
  againstFails,
  analyzeSide,
  DISTURBED,
  disturbedSamples,
  medianNsPerRequest,
  roundRatios,
  sampleLogRatio,
  throughReference,
} from "../src/analysis/ratios.ts";
import { tCritical } from "../src/analysis/stats.ts";
import { logRatioTest } from "../src/analysis/verdicts.ts";
import { bmfOf } from "../src/report/bmf.ts";
import type { PairTrial, Results } from "../src/results/schema.ts";
import { syntheticPairTrial, syntheticSideRun } from "./support/synthetic.ts";

/** A whole round's slowdown, shared by both servers of every pair (what the mode cancels). */
const ROUND = [1, 1.1, 0.95, 1.2, 1.05, 1];
/** Per round, two samples' own wobble of a row's cost against the reference's. */
const WOBBLE = [
  [1.01, 0.99],
  [1.0, 1.02],
  [0.98, 1.0],
  [1.01, 1.01],
  [0.99, 0.98],
  [1.02, 1.0],
];

/** Six rounds of two samples: `app` at `ratio` × the reference's 10 µs, wobbling as WOBBLE. */
function pairTrials(reference: string, app: string, ratio: number, shift = 0): PairTrial[] {
  return ROUND.flatMap((shared, r) =>
    [0, 1].map((s) => {
      const wobble = WOBBLE[(r + shift) % 6]?.[s] as number;
      return syntheticPairTrial(
        reference,
        app,
        r + 1,
        s + 1,
        10_000 * shared,
        10_000 * shared * ratio * wobble,
      );
    }),
  );
}

const RUN = syntheticSideRun(
  [
    ["bun-bare", "bun-hono"],
    ["bun-bare", "node-bare"],
    ["bun-bare", "bun-elysia"],
  ],
  [
    ...pairTrials("bun-bare", "bun-hono", 1.2),
    ...pairTrials("bun-bare", "node-bare", 2.2, 3),
    // ≈ the reference: a 0.5% difference under ±1–2% wobble, in three rounds only
    ...pairTrials("bun-bare", "bun-elysia", 1.005, 2).filter((t) => t.round <= 3),
  ],
);

const logs = (values: number[]) => values.map(Math.log);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

/** The sample with `app`'s side carrying no CPU time per request (nothing to divide by). */
const withoutFigure = (t: PairTrial, app: string): PairTrial => ({
  ...t,
  sides: t.sides.map((s) =>
    s.app === app ? { ...s, nsPerRequest: undefined } : s,
  ) as PairTrial["sides"],
});

/** The same sample, invalid for `reason`, its own figure far off (3× the reference's). */
const spoiled = (t: PairTrial, reason: string): PairTrial =>
  syntheticPairTrial(t.reference, t.app, t.round, t.sample ?? 1, 10_000, 30_000, {
    valid: false,
    invalidReasons: [reason],
  });

const sideRow = (run: Results, app: string) =>
  analyzeSide(run)
    ?.groups.get("api")
    ?.rows.find((r) => r.app === app);

describe("one row against its reference", () => {
  const group = analyzeSide(RUN)?.groups.get("api");
  const row = (app: string) => group?.rows.find((r) => r.app === app);

  test("a sample's log ratio, a round's mean of them, the ratio over rounds with its crossover interval", () => {
    const hono = RUN.pairTrials?.filter((t) => t.app === "bun-hono") ?? [];
    expect(sampleLogRatio(hono[0] as PairTrial)).toBeCloseTo(Math.log(1.2 * 1.01), 12);
    const rounds = roundRatios(hono);
    expect([...rounds.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
    const perRound = WOBBLE.map((w) => mean(logs(w.map((x) => 1.2 * x))));
    for (const [i, v] of [...rounds.values()].entries()) {
      expect(v).toBeCloseTo(perRound[i] as number, 12);
    }
    // Over six rounds: the shared slowdown has cancelled; the wobble is what is left. The
    // rounds are a crossover: odd rounds (reference in slot 0) and even ones, three each; the
    // mean of their means, its spread pooled within each, on 6 − 2 degrees of freedom.
    const odd = perRound.filter((_, i) => i % 2 === 0);
    const even = perRound.filter((_, i) => i % 2 === 1);
    const m = (mean(odd) + mean(even)) / 2;
    const ss = (v: number[]) => v.reduce((a, x) => a + (x - mean(v)) ** 2, 0);
    const pooled = (ss(odd) + ss(even)) / 4;
    const half = tCritical(0.05, 4) * (Math.sqrt(pooled * (1 / 3 + 1 / 3)) / 2);
    expect(m).toBeCloseTo(mean(perRound), 12); // balanced: the plain mean
    expect(row("bun-hono")?.ratio).toBeCloseTo(Math.exp(m), 12);
    expect(row("bun-hono")?.ci?.low).toBeCloseTo(Math.exp(m - half), 10);
    expect(row("bun-hono")?.ci?.high).toBeCloseTo(Math.exp(m + half), 10);
    expect(row("bun-hono")?.vsReference?.significant).toBe(true);
    expect(row("bun-hono")?.pairs).toBe(6);
    expect([row("bun-hono")?.validSamples, row("bun-hono")?.samples]).toEqual([12, 12]);
  });

  test("a side without a figure, or with none above 0, gives no log ratio", () => {
    const t = syntheticPairTrial("bun-bare", "bun-hono", 1, 1, 10_000, 12_000);
    expect(sampleLogRatio(t)).toBeCloseTo(Math.log(1.2), 12);
    expect(sampleLogRatio(withoutFigure(t, "bun-bare"))).toBeUndefined();
    expect(sampleLogRatio(withoutFigure(t, "bun-hono"))).toBeUndefined();
    // A malformed sample, without the side of its reference or of its app: no figure either.
    expect(sampleLogRatio({ ...t, reference: "node-bare" })).toBeUndefined();
    expect(sampleLogRatio({ ...t, app: "node-bare" })).toBeUndefined();
    for (const [ref, app] of [
      [0, 12_000],
      [10_000, 0],
      [-10_000, 12_000],
      [10_000, -12_000],
    ] as const) {
      expect(sampleLogRatio(syntheticPairTrial("bun-bare", "bun-hono", 1, 1, ref, app))).toBe(
        undefined,
      );
    }
  });

  test("a round's mean leaves out its invalid samples; a round with none valid is absent", () => {
    const trials = pairTrials("bun-bare", "bun-hono", 1.2).map((t) =>
      t.round === 3 || (t.round === 2 && t.sample === 1) ? spoiled(t, "3 failed requests") : t,
    );
    const rounds = roundRatios(trials);
    expect([...rounds.keys()]).toEqual([1, 2, 4, 5, 6]);
    expect(rounds.get(2)).toBeCloseTo(Math.log(1.2 * 1.02), 12); // its second sample alone
  });

  test("rounds only one row has are left out of a comparison through the reference", () => {
    const a = new Map([
      [1, 0.1],
      [2, 0.2],
      [3, 0.15],
    ]);
    const b = new Map([
      [1, 0.3],
      [2, 0.5],
      [3, 0.2],
      [4, 9],
    ]);
    const compared = throughReference(a, b);
    expect(compared?.paired).toBe(3);
    // Differences 0.2 and 0.05 in the odd rounds, 0.3 in the even one: each arrangement
    // weighs half, however many rounds it kept.
    expect(compared?.change).toBeCloseTo(Math.exp((mean([0.2, 0.05]) + 0.3) / 2) - 1, 12);
    expect(compared?.df).toBe(1);
  });

  test("the reference is 1 by definition, its own ns per request over all its processes", () => {
    const ref = row("bun-bare");
    expect(ref?.ratio).toBe(1);
    expect(ref?.reference).toBeUndefined();
    expect(ref?.ci).toBeUndefined();
    // 15 processes (three pairs a round, or one in rounds 4–6): 6 + 6 + 3, all of two samples.
    expect(ref?.nsPerRequest.processes).toBe(15);
    expect(ref?.samples).toBe(30);
    expect(ref?.pairs).toBe(6); // rounds with a valid sample
    // Its processes are numbered in turn (its rounds would repeat: three pairs a round).
    expect(ref?.nsPerRequest.rounds).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(row("bun-hono")?.nsPerRequest.mean).toBeCloseTo(
      mean(ROUND.map((f, r) => 12_000 * f * mean(WOBBLE[r] as number[]))),
      6,
    );
    // Its 30 samples: 9,500 ×6, 10,000 ×10, 10,500 ×4, 11,000 ×6, 12,000 ×4: the middle two 10,000.
    expect(medianNsPerRequest(RUN, "bun-bare")).toBe(10_000);
    // bun-hono's 12 (1.2 × the reference's, wobbling): the middle two 12,240 and 12,348.
    expect(medianNsPerRequest(RUN, "bun-hono")).toBeCloseTo(12_294, 6);
    expect(medianNsPerRequest({ ...RUN, pairTrials: undefined }, "bun-bare")).toBeNaN();
    // req/s while sharing: context only (40,000 in every synthetic sample).
    expect(row("bun-hono")?.rps).toBe(40_000);
  });

  test("ranks within the reference's group, cheapest first; a tie says what it could detect", () => {
    const ranks = group?.rows.map((r) => [r.app, r.rank?.position, r.rank?.tie]);
    expect(ranks).toEqual([
      ["bun-bare", 1, false],
      ["bun-elysia", 1, true],
      ["bun-hono", 3, false],
      ["node-bare", 4, false],
    ]);
    const elysia = row("bun-elysia");
    expect(elysia?.vsReference?.significant).toBe(false);
    expect(elysia?.rank?.mdd).toBeGreaterThan(0.005);
    // Three pairs are enough for an interval: two odd rounds and one even, so one degree of
    // freedom, exp(mean ± t(0.975, 1) · se) with t = 12.7062 (computed apart, in Python).
    expect(elysia?.ci?.low).toBeCloseTo(0.9762930566119776, 6);
    expect(elysia?.ci?.high).toBeCloseTo(1.0317990725582418, 6);
    expect(elysia?.flags.map((f) => f.tag)).toEqual([]);
    expect(group?.comparisons).toBe(6); // three rows against bun-bare, three pairs through it
  });

  test("two rows compared round by round through their reference, either way round", () => {
    const ab = group?.between("bun-hono", "node-bare");
    const ba = group?.between("node-bare", "bun-hono");
    const hono = roundRatios(RUN.pairTrials?.filter((t) => t.app === "bun-hono") ?? []);
    const node = roundRatios(RUN.pairTrials?.filter((t) => t.app === "node-bare") ?? []);
    const direct = throughReference(hono, node);
    const diffs = [...node].map(([r, v]) => v - (hono.get(r) as number));
    expect(direct?.change).toBeCloseTo(Math.exp(mean(diffs)) - 1, 12);
    expect(ab?.test?.change).toBeCloseTo(direct?.change as number, 12);
    expect(ba?.test?.change).toBeCloseTo(1 / (1 + (direct?.change as number)) - 1, 12);
    expect(ab?.significant).toBe(true);
    expect(group?.between("node-bare", "bun-bare").test?.change).toBeCloseTo(
      1 / (row("node-bare")?.ratio as number) - 1,
      12,
    );
    expect(group?.between("bun-bare", "bun-bare")).toEqual({ significant: false });
    // Rounds only one row has are not compared: three in common with bun-elysia.
    expect(
      throughReference(
        hono,
        new Map([
          [1, 0.1],
          [9, 0.2],
        ]),
      ),
    ).toBeUndefined();
    expect(group?.between("bun-elysia", "bun-hono").test?.paired).toBe(3);
  });
});

describe("several scenarios, several references", () => {
  test("each scenario is analysed on its own samples", () => {
    const echo = pairTrials("bun-bare", "bun-hono", 0.9).map((t) => ({ ...t, scenario: "echo" }));
    const run = syntheticSideRun(
      [["bun-bare", "bun-hono"]],
      [...pairTrials("bun-bare", "bun-hono", 1.2), ...echo],
    );
    run.manifest.settings.scenarios = ["api", "echo"];
    const groups = analyzeSide(run)?.groups;
    const hono = (scenario: string) =>
      groups?.get(scenario)?.rows.find((r) => r.app === "bun-hono");
    const api = sideRow(
      syntheticSideRun([["bun-bare", "bun-hono"]], pairTrials("bun-bare", "bun-hono", 1.2)),
      "bun-hono",
    );
    expect(hono("api")?.ratio).toBeCloseTo(api?.ratio as number, 12);
    expect(hono("echo")?.ratio).toBeCloseTo((0.9 / 1.2) * (api?.ratio as number), 12);
    expect([hono("api")?.samples, hono("echo")?.samples]).toEqual([12, 12]);
  });

  test("a scenario no pair could serve has no group; one some pair measured keeps its rows", () => {
    const run = syntheticSideRun(
      [["bun-bare", "node-bare"]],
      pairTrials("bun-bare", "node-bare", 2),
    );
    run.manifest.settings.scenarios = ["api", "h2", "echo"];
    run.unsupported = [
      { app: "bun-bare", scenario: "h2", reason: "no HTTP/2" },
      { app: "bun-bare", scenario: "ws-echo", reason: "another scenario's reason" },
    ];
    const groups = analyzeSide(run)?.groups;
    expect([...(groups?.keys() ?? [])]).toEqual(["api", "echo"]);
    // Unmeasured without a reason (a run stopped before it): its empty rows stay in view.
    expect(groups?.get("echo")?.rows.map((r) => r.samples)).toEqual([0, 0]);
    // Measured, though some app could not serve it: analysed as any other.
    const served = {
      ...run,
      pairTrials: [
        ...(run.pairTrials ?? []),
        ...pairTrials("bun-bare", "node-bare", 2).map((t) => ({ ...t, scenario: "h2" })),
      ],
    };
    expect(analyzeSide(served)?.groups.get("h2")?.rows).toHaveLength(2);
  });

  test("rows of different references are ranked in their own groups and never compared", () => {
    const run = syntheticSideRun(
      [
        ["bun-bare", "bun-hono"],
        ["node-bare", "node-hono"],
      ],
      [...pairTrials("bun-bare", "bun-hono", 1.2), ...pairTrials("node-bare", "node-hono", 0.9, 2)],
    );
    const group = analyzeSide(run)?.groups.get("api");
    expect(group?.rows.map((r) => [r.app, r.rank?.position, r.rank?.tie])).toEqual([
      ["bun-bare", 1, false],
      ["bun-hono", 2, false],
      ["node-hono", 1, false],
      ["node-bare", 2, false],
    ]);
    expect(group?.comparisons).toBe(2); // each row against its own reference only
    expect(group?.between("bun-hono", "node-hono")).toEqual({ significant: false });
    expect(group?.between("node-hono", "bun-bare")).toEqual({ significant: false });
    expect(group?.between("bun-hono", "not-in-the-run")).toEqual({ significant: false });
  });
});

describe("what qualifies a row", () => {
  test("invalid samples excluded and counted, flagged samples counted, too few pairs said", () => {
    const trials = pairTrials("bun-bare", "bun-hono", 1.2).map((t) =>
      t.round === 2 && t.sample === 1
        ? {
            ...t,
            checks: { ...t.checks, valid: false, invalidReasons: ["bun-hono: 3 failed requests"] },
          }
        : t.round === 3
          ? { ...t, checks: { ...t.checks, unsaturated: true, notes: ["unsaturated: ..."] } }
          : t,
    );
    const row = analyzeSide(syntheticSideRun([["bun-bare", "bun-hono"]], trials))
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-hono");
    expect(row?.flags.map((f) => f.text)).toEqual([
      "INVALID 1/12 (bun-hono: 3 failed requests): excluded",
      "UNSATURATED 2/11: the servers did not fill their core (see the notes)",
      "DISTURBED 2/11: the reference's own CPU time per request was 15% or more above its median: the machine slowed down, which unlike runtimes need not feel alike (kept)",
    ]);
    expect(row?.notes).toEqual(["unsaturated: ..."]);
    const two = trials.filter((t) => t.round <= 2);
    const few = analyzeSide(syntheticSideRun([["bun-bare", "bun-hono"]], two))
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-hono");
    expect(few?.flags.map((f) => f.tag)).toEqual(["INVALID 1/4", "2 PAIRS"]);
    expect(few?.flags[1]?.text).toBe("2 pairs of processes with valid samples: too few for a CI");
    expect(few?.ci).toBeUndefined(); // fewer than 3 pairs: no interval shown
  });

  test("an invalid sample counts nowhere in the figures; its reasons are listed", () => {
    const clean = pairTrials("bun-bare", "bun-hono", 1.2);
    const reasons = [
      "bun-hono: 3 failed requests",
      "bun-bare: no CPU time measured for its server",
    ];
    const trials = clean.map((t) =>
      t.round === 2 ? spoiled(t, reasons[(t.sample ?? 1) - 1] as string) : t,
    );
    const run = (ts: PairTrial[]) => syntheticSideRun([["bun-bare", "bun-hono"]], ts);
    const kept = clean.filter((t) => t.round !== 2);
    for (const app of ["bun-bare", "bun-hono"]) {
      expect(sideRow(run(trials), app)?.nsPerRequest.mean).toBeCloseTo(
        sideRow(run(kept), app)?.nsPerRequest.mean as number,
        9,
      );
    }
    const hono = sideRow(run(trials), "bun-hono");
    expect(hono?.ratio).toBeCloseTo(sideRow(run(kept), "bun-hono")?.ratio as number, 12);
    expect(hono?.flags[0]?.text).toBe(`INVALID 2/12 (${reasons.join("; ")}): excluded`);
  });

  test("samples at the generators' ceiling, or on a contended core, are counted over the valid ones", () => {
    const trials = pairTrials("bun-bare", "bun-hono", 1.2).map((t) =>
      t.round === 1
        ? { ...t, checks: { ...t.checks, generatorCeiling: true } }
        : t.round === 5 && t.sample === 2
          ? { ...t, checks: { ...t.checks, contended: true } }
          : t,
    );
    const texts = sideRow(syntheticSideRun([["bun-bare", "bun-hono"]], trials), "bun-hono")
      ?.flags.map((f) => f.text)
      .filter((text) => !text.startsWith("DISTURBED"));
    expect(texts).toEqual([
      "GENERATOR CEILING 2/12: the generators used all they can while the servers' core had room: a cost measured below saturation",
      "CONTENDED 1/12: something else had the servers' core, or CPU steal was high (see the notes)",
    ]);
  });

  test("a pair of samples the hypervisor took: the row says so first among its flags", () => {
    const trials = pairTrials("bun-bare", "bun-hono", 1.2).map((t) =>
      t.round === 1 && t.sample === 1 ? { ...t, stealPercent: 40 } : t,
    );
    const hono = sideRow(syntheticSideRun([["bun-bare", "bun-hono"]], trials), "bun-hono");
    expect(hono?.flags[0]?.text).toBe(
      "STEAL 1/12: CPU steal ≥ 15% on the servers' core: excluded, 0 re-taken; 1 pair with fewer than 3 clean sample(s) count as missing (1 more sample(s) of theirs excluded)",
    );
  });

  test("one pair: said, with no interval, no rank and no test; no valid pair: neither said nor ranked", () => {
    const one = pairTrials("bun-bare", "bun-hono", 1.2).filter((t) => t.round === 1);
    const group = analyzeSide(syntheticSideRun([["bun-bare", "bun-hono"]], one))?.groups.get("api");
    const hono = group?.rows.find((r) => r.app === "bun-hono");
    expect(hono?.flags.map((f) => [f.tag, f.text])).toEqual([
      ["1 PAIR", "1 pair of processes with valid samples: too few for a CI"],
    ]);
    expect([hono?.ci, hono?.rank, group?.comparisons]).toEqual([undefined, undefined, 0]);
    const none = one.map((t) => spoiled(t, "bun-hono: 3 failed requests"));
    const rows = analyzeSide(syntheticSideRun([["bun-bare", "bun-hono"]], none))?.groups.get(
      "api",
    )?.rows;
    expect(rows?.map((r) => [r.app, r.pairs, r.rank, r.flags.map((f) => f.tag)])).toEqual([
      ["bun-bare", 0, undefined, ["INVALID 2/2"]],
      ["bun-hono", 0, undefined, ["INVALID 2/2"]],
    ]);
  });

  test("samples whose reference the machine slowed (15% over its median) are flagged, and kept", () => {
    // Round 4's reference runs at 12,000 ns (ROUND), 1.17 × the median of 10,250: its 2 samples.
    const trials = pairTrials("bun-bare", "bun-hono", 1.2);
    expect(disturbedSamples(trials)).toBe(2);
    const raised = trials.map((t) =>
      t.round === 2
        ? syntheticPairTrial("bun-bare", "bun-hono", 2, t.sample ?? 1, 11_500, 13_800)
        : t,
    );
    // 11,500 against a median of 10,250: 12% over, under the 15% that flags.
    expect(disturbedSamples(raised)).toBe(2);
    const row = analyzeSide(syntheticSideRun([["bun-bare", "bun-hono"]], trials))
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-hono");
    expect(row?.flags.map((f) => f.tag)).toEqual(["DISTURBED 2/12"]);
    expect(row?.validSamples).toBe(12); // kept
    expect(DISTURBED).toBe(1.15);
  });

  test("exactly 15% over the median is disturbed; a sample without the reference's figure is not counted", () => {
    const sample = (round: number, ns: number) =>
      syntheticPairTrial("bun-bare", "bun-hono", round, 1, ns, 1.2 * ns);
    const trials = [sample(1, 10_000), sample(2, 10_000), sample(3, 11_500)];
    expect(disturbedSamples(trials)).toBe(1); // median 10,000: 11,500 is 1.15 × it
    expect(disturbedSamples([...trials, withoutFigure(sample(4, 9_000), "bun-bare")])).toBe(1);
    expect(disturbedSamples([...trials, { ...sample(4, 9_000), reference: "node-bare" }])).toBe(1);
  });

  test("a failed app is flagged with its failure's first line", () => {
    const run = syntheticSideRun(
      [["bun-bare", "bun-hono"]],
      pairTrials("bun-bare", "bun-hono", 1.2).slice(0, 2),
    );
    run.apps = run.apps.map((a) =>
      a.name === "bun-hono"
        ? { ...a, status: "failed" as const, failure: "did not start\nmore" }
        : a,
    );
    const row = analyzeSide(run)
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-hono");
    expect(row?.status).toBe("failed");
    expect(row?.flags[0]).toEqual({ tag: "FAILED", text: "FAILED: did not start" });
    run.apps = run.apps.map((a) => (a.name === "bun-hono" ? { ...a, failure: undefined } : a));
    expect(sideRow(run, "bun-hono")?.flags[0]?.text).toBe("FAILED: unknown");
  });

  test("a row without an app record (a hand-assembled results file) reads as ok", () => {
    const run = syntheticSideRun(
      [["bun-bare", "bun-hono"]],
      pairTrials("bun-bare", "bun-hono", 1.2),
    );
    run.apps = run.apps.filter((a) => a.name !== "bun-hono");
    const row = sideRow(run, "bun-hono");
    expect(row?.status).toBe("ok");
    expect(row?.failure).toBeUndefined();
    expect(row?.pairs).toBe(6);
  });

  test("not a side-by-side run: no side analysis, and the closed-loop groups as before", () => {
    const plain = {
      ...RUN,
      manifest: { ...RUN.manifest, settings: { ...RUN.manifest.settings, sideBySide: undefined } },
    };
    expect(analyzeSide(plain as Results)).toBeUndefined();
    expect(analyze(RUN).groups.size).toBe(0);
    expect(analyze(RUN).side?.groups.size).toBe(1);
  });
});

describe("--against: slower, faster, no change, inconclusive", () => {
  const against = { against: { ref: "HEAD~1", commit: "1a2b3c4d5e6f7a8b" }, threshold: 0.02 };
  const row = (ratio: number, wobble = 1) =>
    ROUND.flatMap((shared, r) =>
      [0, 1].map((s) => {
        const w = 1 + ((WOBBLE[r]?.[s] as number) - 1) * wobble;
        return syntheticPairTrial(
          "bun-bare@1a2b3c4",
          "bun-bare",
          r + 1,
          s + 1,
          10_000 * shared,
          10_000 * shared * ratio * w,
        );
      }),
    );
  const verdict = (ratio: number, wobble = 1) =>
    analyzeSide(syntheticSideRun([["bun-bare@1a2b3c4", "bun-bare"]], row(ratio, wobble), against))
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-bare")?.gate;

  test("5% more CPU per request: slower; 5% less: faster", () => {
    expect(verdict(1.05)?.verdict).toBe("regression");
    expect(verdict(1 / 1.05)?.verdict).toBe("improvement");
  });

  test("the threshold is on the CPU change the table shows, not on its inverse", () => {
    // +2.02% CPU per request is 1/1.0202 − 1 = −1.98% requests per CPU-second: read as speed
    // it would fall short of the 2% threshold.
    expect(verdict(1.0202, 0.001)?.verdict).toBe("regression");
    expect(verdict(1 - 0.0202, 0.001)?.verdict).toBe("improvement");
    const short = verdict(1.0198, 0.001);
    expect(short?.verdict).toBe("no change beyond the threshold");
  });

  test("the same within ±0.2%: no change beyond the 2% threshold", () => {
    expect(verdict(1.001, 0.1)?.verdict).toBe("no change beyond the threshold");
  });

  test("1.5% more under a wobble that cannot place it: inconclusive, with what was detectable", () => {
    const g = verdict(1.015, 3);
    expect(g?.verdict).toBe("inconclusive");
    expect(g?.note).toMatch(
      /^(slower, significantly, but )?not shown within ±2\.0% \(detectable ≥ \d+\.\d%\)$/,
    );
  });

  test("1.5% more, shown to be more but not shown under 2%: inconclusive, slower", () => {
    // Six rounds of log ratios in two arrangements (df 4, se 0.00222): one-sided p ≈ 0.001,
    // TOST p ≈ 0.067; detectable: noncentral t at α 0.05, power 0.8, df 4 (numerical
    // integration): 0.68%. The one-sample test over the six (se 0.00456, df 5) said 1.3%.
    expect(verdict(1.015)?.note).toBe(
      "slower, significantly, but not shown within ±2.0% (detectable ≥ 0.7%)",
    );
  });

  test("the analysis carries the commit and the threshold (2% unless --threshold)", () => {
    const a = analyzeSide(
      syntheticSideRun([["bun-bare@1a2b3c4", "bun-bare"]], row(1), { against: against.against }),
    );
    expect(a?.against).toMatchObject({
      ref: "HEAD~1",
      commit: "1a2b3c4d5e6f7a8b",
      threshold: 0.02,
    });
  });

  test("the outcome: slower, inconclusive (none slower, one unsettled) or not slower; its exit", () => {
    const side = (ratio: number, wobble = 1) =>
      analyzeSide(
        syntheticSideRun([["bun-bare@1a2b3c4", "bun-bare"]], row(ratio, wobble), against),
      );
    const outcome = (ratio: number, wobble = 1) => side(ratio, wobble)?.against?.outcome;
    expect(outcome(1.05)).toEqual({ verdict: "slower", slower: ["bun-bare (api)"], unsettled: [] });
    expect(outcome(1.015, 3)).toEqual({
      verdict: "inconclusive",
      slower: [],
      unsettled: ["bun-bare (api)"],
    });
    expect(outcome(1.001, 0.1)?.verdict).toBe("not slower");
    expect(outcome(1 / 1.05)?.verdict).toBe("not slower");
    // exit 1: slower always; inconclusive only for a strict gate (--fail-inconclusive)
    expect([false, true].map((strict) => againstFails(side(1.05), strict))).toEqual([true, true]);
    expect([false, true].map((strict) => againstFails(side(1.015, 3), strict))).toEqual([
      false,
      true,
    ]);
    expect([false, true].map((strict) => againstFails(side(1.001, 0.1), strict))).toEqual([
      false,
      false,
    ]);
    expect(againstFails(analyzeSide(RUN), true)).toBe(false); // side by side, no --against
    expect(againstFails(undefined, true)).toBe(false); // one at a time: no side at all
  });

  test("a row with no gate (one pair: untestable) leaves the outcome inconclusive", () => {
    const one = row(1.05).filter((t) => t.round === 1);
    const a = analyzeSide(syntheticSideRun([["bun-bare@1a2b3c4", "bun-bare"]], one, against));
    expect(a?.against?.outcome).toEqual({
      verdict: "inconclusive",
      slower: [],
      unsettled: ["bun-bare (api)"],
    });
  });
});

describe("--export bmf", () => {
  test("cpu-per-request for every measured row, cost-ratio with its interval beside a reference", () => {
    const bmf = bmfOf(analyze(RUN));
    const hono = analyzeSide(RUN)
      ?.groups.get("api")
      ?.rows.find((r) => r.app === "bun-hono");
    expect(Object.keys(bmf).sort()).toEqual([
      "bun-bare api",
      "bun-elysia api",
      "bun-hono api",
      "node-bare api",
    ]);
    expect(bmf["bun-hono api"]?.["cost-ratio"]).toEqual({
      value: hono?.ratio as number,
      lower_value: hono?.ci?.low as number,
      upper_value: hono?.ci?.high as number,
    });
    expect(bmf["bun-bare api"]?.["cost-ratio"]).toBeUndefined();
    expect(bmf["bun-bare api"]?.["cpu-per-request"]?.value).toBeCloseTo(
      analyzeSide(RUN)?.groups.get("api")?.rows[0]?.nsPerRequest.mean as number,
      9,
    );
  });

  test("a row without a figure of its own is left out, never a NaN", () => {
    // No sample carries the reference's CPU time: no figure for bun-bare, no ratio for bun-hono.
    const trials = pairTrials("bun-bare", "bun-hono", 1.2).map((t) => withoutFigure(t, "bun-bare"));
    expect(bmfOf(analyze(syntheticSideRun([["bun-bare", "bun-hono"]], trials)))).toEqual({});
  });
});

describe("--calibrate --side-by-side", () => {
  test("expected = the realized share; detection rates over subsamples of the rounds", () => {
    const base = "bun-bare";
    const rows: [string, number][] = [
      ["bun-bare+0%", 1],
      ["bun-bare+5%", 1.05],
    ];
    const trials = rows.flatMap(([name, ratio]) =>
      Array.from({ length: 12 }, (_, r) =>
        [0, 1].map((s) =>
          syntheticPairTrial(
            base,
            name,
            r + 1,
            s + 1,
            10_000,
            10_000 * ratio * (1 + (((r + s) % 3) - 1) * 0.004),
          ),
        ),
      ).flat(),
    );
    const run = syntheticSideRun(
      rows.map(([name]) => [base, name]),
      trials,
    );
    run.manifest.calibration = {
      app: base,
      costPerRequestNs: 10_000,
      nsPerIteration: 1,
      subsampleRounds: 6,
    };
    run.apps = run.apps.map((a) =>
      a.name === base
        ? { ...a, extraWork: { share: 0, iterations: 0 } }
        : a.name === "bun-bare+5%"
          ? { ...a, extraWork: { share: 0.05, iterations: 500 } }
          : { ...a, extraWork: { share: 0, iterations: 0 } },
    );
    const [view] = calibrationViews(analyze(run), 50);
    const five = view?.rows.find((r) => r.name === "bun-bare+5%");
    expect(five?.realized).toBeCloseTo(0.05, 9); // 500 × 1 ns of a 10,000 ns request
    expect(five?.expected).toBeCloseTo(0.05, 9);
    expect(five?.different).toBe(true);
    expect(five?.rate).toBe(1);
    expect(view?.rows.find((r) => r.name === "bun-bare+0%")?.rate).toBeLessThanOrEqual(0.05);
    expect(view?.subsample).toEqual({ rounds: 6, draws: 50 });
  });
});

/** Simulations take a second or two; mutation testing runs the exact tests only. */
const simulate = process.env.BENCH_MUTATION === "1" ? test.skip : test;

describe("on simulated runs with this VM's side-by-side noise", () => {
  // Per round a shared slowdown (CoV 15%), per pair of processes a 0.5% level of its own,
  // per sample 2% (the A/A ratio's spread on this VM): 10 rounds of 5 samples. `position`:
  // what the first slot adds to the row's cost (it holds it in even rounds).
  function simulated(ratio: number, random: () => number, position = 0): Results {
    const z = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const trials = Array.from({ length: 10 }, (_, r) => {
      const shared = 1 + 0.15 * z();
      const level = (1 + 0.005 * z()) * (r % 2 === 1 ? 1 + position : 1);
      return Array.from({ length: 5 }, (_, s) =>
        syntheticPairTrial(
          "bun-bare",
          "bun-hono",
          r + 1,
          s + 1,
          10_000 * shared,
          10_000 * shared * ratio * level * (1 + 0.02 * z()),
        ),
      );
    }).flat();
    return syntheticSideRun([["bun-bare", "bun-hono"]], trials);
  }

  simulate(
    "A/A is called different in about 5% of runs, and the interval covers the truth ~95%",
    () => {
      const random = mulberry32(17);
      let different = 0;
      let covered = 0;
      const runs = 1000;
      for (let i = 0; i < runs; i++) {
        const row = analyzeSide(simulated(1.05, random))
          ?.groups.get("api")
          ?.rows.find((r) => r.app === "bun-hono");
        if (row?.ci && row.ci.low <= 1.05 && 1.05 <= row.ci.high) covered++;
        const aa = analyzeSide(simulated(1, random))
          ?.groups.get("api")
          ?.rows.find((r) => r.app === "bun-hono");
        if (aa?.vsReference?.significant) different++;
      }
      expect(covered / runs).toBeGreaterThan(0.93);
      expect(covered / runs).toBeLessThan(0.97);
      expect(different / runs).toBeLessThan(0.07);
      expect(different / runs).toBeGreaterThan(0.03);
    },
    60_000, // thousands of simulated runs: seconds when idle, more on a busy machine
  );

  simulate(
    "a position worth 3% to one arrangement: the crossover still covers ~95% (5% of runs miss), where the one-sample test would have widened",
    () => {
      const random = mulberry32(23);
      let covered = 0;
      let coveredPlain = 0;
      let different = 0;
      let width = 0;
      let widthPlain = 0;
      const runs = 1000;
      for (let i = 0; i < runs; i++) {
        const run = simulated(1.05, random, 0.03);
        const row = analyzeSide(run)
          ?.groups.get("api")
          ?.rows.find((r) => r.app === "bun-hono");
        // What the rounds average to: half the rounds hold the position.
        const truth = 1.05 * Math.sqrt(1.03);
        if (row?.ci && row.ci.low <= truth && truth <= row.ci.high) covered++;
        width += (row?.ci?.high ?? 0) - (row?.ci?.low ?? 0);
        const plain = logRatioTest([...roundRatios(run.pairTrials ?? []).values()]);
        if (plain && 1 + plain.ci.low <= truth && truth <= 1 + plain.ci.high) coveredPlain++;
        widthPlain += (plain?.ci.high ?? 0) - (plain?.ci.low ?? 0);
        const aa = analyzeSide(simulated(1, random, 0.03))
          ?.groups.get("api")
          ?.rows.find((r) => r.app === "bun-hono");
        // No difference but the position: what the rounds average to is the position's half.
        const aaTruth = Math.sqrt(1.03);
        if (aa?.ci && (aa.ci.low > aaTruth || aa.ci.high < aaTruth)) different++;
      }
      expect(covered / runs).toBeGreaterThan(0.93);
      expect(covered / runs).toBeLessThan(0.97);
      expect(different / runs).toBeGreaterThan(0.03);
      expect(different / runs).toBeLessThan(0.07);
      // The one-sample test counts the position as noise: it covers nearly always, at about
      // twice the width.
      expect(coveredPlain / runs).toBeGreaterThan(0.99);
      expect(width / widthPlain).toBeLessThan(0.7);
    },
    60_000, // thousands of simulated runs: seconds when idle, more on a busy machine
  );
});
