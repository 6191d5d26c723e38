// The steal rule (analysis/steal.ts): which samples it excludes, which processes or pairs it
// leaves missing, what it tells the summary, and what it does to the estimates: a planted bias
// carried by stolen samples is removed, and the kept run of a steal-heavy night re-analysed by
// the harness gives the figures its clean samples give.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyze } from "../src/analysis/analysis.ts";
import { mulberry32 } from "../src/analysis/random.ts";
import {
  cleanNeeded,
  counted,
  DEFAULT_MAX_STEAL,
  exclusionOf,
  isStolen,
  maxStealOf,
  retakeBound,
  STEAL_OFF,
  stealFlag,
  stealOf,
  stealSummary,
  thresholdText,
} from "../src/analysis/steal.ts";
import type { PairTrial, Results, Trial } from "../src/results/schema.ts";
import { normal } from "./support/simulate.ts";
import {
  syntheticPairTrial,
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
} from "./support/synthetic.ts";

/** One at a time: `rounds` processes of `samples` samples; `steal(round, sample)` per sample. */
function run(
  rounds: number,
  samples: number,
  steal: (round: number, sample: number) => number,
  rps: (round: number, sample: number) => number = () => 10_000,
  maxSteal?: number,
): Results {
  const trials: Trial[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (let s = 1; s <= samples; s++) {
      const t = syntheticTrial("bun-bare", "api", r, 64, rps(r, s), 4);
      trials.push({ ...t, round: r, sample: s, stealPercent: steal(r, s) });
    }
  }
  const results = syntheticRun(["bun-bare"], ["api"], trials, {
    samples,
    trials: rounds,
    ...(maxSteal === undefined ? {} : { maxSteal }),
  });
  return results;
}

describe("the rule", () => {
  test("the server's core's steal where recorded, the machine's otherwise", () => {
    expect(stealOf({ stealPercent: 30 })).toBe(30);
    expect(stealOf({ stealPercent: 30, serverStealPercent: 4 })).toBe(4);
    expect(stealOf({ stealPercent: 0, serverStealPercent: 40 })).toBe(40);
  });

  test("at or above the threshold is stolen; STEAL_OFF keeps everything", () => {
    expect(isStolen({ stealPercent: 15 }, 15)).toBe(true);
    expect(isStolen({ stealPercent: 14.99 }, 15)).toBe(false);
    expect(isStolen({ stealPercent: 99.9 }, STEAL_OFF)).toBe(false);
    expect(isStolen({ stealPercent: 100 }, STEAL_OFF)).toBe(false);
    expect(isStolen({ stealPercent: 100 }, 99.5)).toBe(true);
  });

  test("a run's threshold is its own, or the default for a run from before it existed", () => {
    const r = run(1, 1, () => 0);
    expect(maxStealOf(r)).toBe(DEFAULT_MAX_STEAL);
    expect(maxStealOf(run(1, 1, () => 0, undefined, 30))).toBe(30);
    expect(DEFAULT_MAX_STEAL).toBe(15);
  });

  test("bounds: half the planned samples again at most, and half of them clean to count", () => {
    expect([1, 2, 3, 4, 5].map(retakeBound)).toEqual([1, 1, 2, 2, 3]);
    expect([1, 2, 3, 4, 5].map(cleanNeeded)).toEqual([1, 1, 2, 2, 3]);
    expect(cleanNeeded(0)).toBe(1);
  });

  test("thresholdText: the threshold, or off", () => {
    expect(thresholdText(15)).toBe("≥ 15%");
    expect(thresholdText(STEAL_OFF)).toBe("off (--max-steal 100)");
  });
});

describe("exclusionOf", () => {
  test("stolen samples are excluded; a process left with too few clean ones is missing", () => {
    // round 1: one of three stolen (2 clean: counts); round 2: two stolen (1 clean: missing)
    const r = run(3, 3, (round, sample) =>
      round === 1 && sample === 2 ? 40 : round === 2 && sample > 1 ? 20 : 0,
    );
    const x = exclusionOf(r);
    expect(x.max).toBe(15);
    expect(x.need).toBe(2);
    expect(x.stolen.size).toBe(3);
    expect(x.missing).toHaveLength(1);
    expect(x.missing[0]?.map((t) => t.round)).toEqual([2, 2, 2]);
    expect(x.excluded.size).toBe(4);
    const keep = counted(x);
    expect(r.trials.filter(keep).map((t) => `${t.round}.${t.sample}`)).toEqual([
      "1.1",
      "1.3",
      "3.1",
      "3.2",
      "3.3",
    ]);
  });

  test("an invalid sample is not counted, whatever its steal", () => {
    const r = run(1, 2, () => 0);
    const t = r.trials[0] as Trial;
    r.trials[0] = { ...t, checks: { ...t.checks, valid: false } };
    expect(r.trials.filter(counted(exclusionOf(r)))).toHaveLength(1);
  });

  test("a unit untouched by steal is never missing, however few its samples", () => {
    const r = run(2, 3, () => 0);
    r.trials.splice(0, 2); // round 1 keeps one sample of three, none stolen
    expect(exclusionOf(r).missing).toHaveLength(0);
  });

  test("processes are told apart by scenario, connections and workers as well as round", () => {
    const a = syntheticTrial("bun-bare", "api", 1, 64, 10_000, 4);
    const samples: Trial[] = [
      { ...a, round: 1, sample: 1, stealPercent: 50 },
      { ...a, round: 1, sample: 1, connections: 10, stealPercent: 0 },
      { ...a, round: 1, sample: 1, workers: 2, stealPercent: 0 },
      { ...a, round: 1, sample: 1, scenario: "echo", stealPercent: 0 },
    ];
    const r = syntheticRun(["bun-bare"], ["api", "echo"], samples, { samples: 1 });
    const x = exclusionOf(r);
    expect(x.missing).toHaveLength(1);
    expect(x.excluded.size).toBe(1);
  });

  test("two worker counts of one app are two processes", () => {
    const a = syntheticTrial("bun-bare", "api", 1, 64, 10_000, 4);
    const samples: Trial[] = [
      { ...a, round: 1, sample: 1, workers: 2, stealPercent: 50 },
      { ...a, round: 1, sample: 1, workers: 4, stealPercent: 0 },
    ];
    const r = syntheticRun(["bun-bare"], ["api"], samples, { samples: 1 });
    expect(exclusionOf(r).missing.map((u) => u.map((t) => (t as Trial).workers))).toEqual([[2]]);
  });

  test("pairs: the unit is the pair of processes in a round", () => {
    const t = (round: number, sample: number, steal: number): PairTrial => ({
      ...syntheticPairTrial("bun-bare", "node-bare", round, sample, 10_000, 20_000),
      stealPercent: steal,
    });
    const r = syntheticSideRun(
      [["bun-bare", "node-bare"]],
      [t(1, 1, 30), t(1, 2, 30), t(2, 1, 30), t(2, 2, 0)],
    );
    r.manifest.settings.samples = 2;
    const x = exclusionOf(r);
    expect(x.stolen.size).toBe(3);
    expect(x.missing.map((u) => u.map((s) => s.round))).toEqual([[1, 1]]);
  });

  test("at another threshold (a re-analysis), or off", () => {
    const r = run(2, 2, (round) => (round === 1 ? 20 : 12));
    expect(exclusionOf(r).stolen.size).toBe(2);
    expect(exclusionOf(r, 10).stolen.size).toBe(4);
    expect(exclusionOf(r, 25).stolen.size).toBe(0);
    expect(exclusionOf(r, STEAL_OFF).excluded.size).toBe(0);
  });
});

describe("stealSummary and stealFlag", () => {
  const r = run(
    4,
    2,
    (round, sample) => [0, 3, 50, 0, 16, 16, 7, 0][(round - 1) * 2 + sample - 1] ?? 0,
  );
  // a re-take in round 1 that was clean
  r.trials.push({ ...(r.trials[0] as Trial), sample: 3, retake: true, stealPercent: 1 });

  test("median and worst over every sample; stolen, re-taken, not replaced, missing", () => {
    expect(stealSummary(r)).toEqual({
      max: 15,
      samples: 9,
      median: 3,
      worst: 50,
      stolen: 3,
      retaken: 1,
      unreplaced: 2,
      missing: 1,
    });
  });

  test("an empty run: no steal at all", () => {
    const empty = run(0, 1, () => 0);
    expect(stealSummary(empty)).toMatchObject({ samples: 0, median: 0, worst: 0, stolen: 0 });
  });

  test("a row's flag: what was excluded, re-taken and left missing; none without steal", () => {
    const x = exclusionOf(r);
    expect(stealFlag(r.trials, x)).toEqual({
      tag: "STEAL 3/9",
      text:
        "STEAL 3/9: CPU steal ≥ 15% on the server's core: excluded, 1 re-taken; 1 process with " +
        "fewer than 1 clean sample(s) count as missing",
    });
    expect(stealFlag(r.trials.slice(0, 2), x)).toBeUndefined();
  });

  test("the flag: stolen but none missing; missing with no other sample; one pair; a row's own", () => {
    // three samples a process, one stolen: two clean, enough
    const one = run(1, 3, (_, sample) => (sample === 2 ? 30 : 0));
    expect(stealFlag(one.trials, exclusionOf(one))?.text).toBe(
      "STEAL 1/3: CPU steal ≥ 15% on the server's core: excluded, 0 re-taken",
    );
    // one sample a process, stolen: missing, nothing else of it to exclude
    const lone = run(2, 1, (round) => (round === 1 ? 30 : 0));
    expect(stealFlag(lone.trials, exclusionOf(lone))?.text).toBe(
      "STEAL 1/2: CPU steal ≥ 15% on the server's core: excluded, 0 re-taken; 1 process with " +
        "fewer than 1 clean sample(s) count as missing",
    );
    // a row's flag counts only the missing units of its own samples
    const two = run(2, 1, () => 30);
    const x = exclusionOf(two);
    expect(stealFlag(two.trials.slice(0, 1), x)?.text).toContain("; 1 process with fewer");
    expect(stealFlag(two.trials, x)?.text).toContain("; 2 processes with fewer");
    const pair = (round: number, steal: number) => ({
      ...syntheticPairTrial("bun-bare", "node-bare", round, 1, 10_000, 20_000),
      stealPercent: steal,
    });
    const side = syntheticSideRun([["bun-bare", "node-bare"]], [pair(1, 30), pair(2, 0)]);
    side.manifest.settings.samples = 1;
    expect(stealFlag(side.pairTrials ?? [], exclusionOf(side))?.text).toContain(
      "; 1 pair with fewer than 1 clean sample(s) count as missing",
    );
    // part of a unit among the samples still names the unit
    const three = run(1, 3, (_, sample) => (sample < 3 ? 30 : 0));
    expect(stealFlag(three.trials.slice(0, 1), exclusionOf(three))?.text).toContain(
      "; 1 process with fewer than 2 clean sample(s)",
    );
  });

  test("the flag counts a missing unit's other samples, and pairs as pairs", () => {
    const three = run(2, 3, (round, sample) => (round === 1 && sample < 3 ? 30 : 0));
    const flag = stealFlag(three.trials, exclusionOf(three));
    expect(flag?.text).toBe(
      "STEAL 2/6: CPU steal ≥ 15% on the server's core: excluded, 0 re-taken; 1 process with " +
        "fewer than 2 clean sample(s) count as missing (1 more sample(s) of theirs excluded)",
    );
    const pair = (round: number, steal: number) => ({
      ...syntheticPairTrial("bun-bare", "node-bare", round, 1, 10_000, 20_000),
      stealPercent: steal,
    });
    const side = syntheticSideRun(
      [["bun-bare", "node-bare"]],
      [pair(1, 30), pair(2, 30), pair(3, 0)],
    );
    side.manifest.settings.samples = 1;
    expect(stealFlag(side.pairTrials ?? [], exclusionOf(side))?.text).toContain(
      "2 pairs with fewer than 1 clean sample(s) count as missing",
    );
  });
});

describe("the estimates", () => {
  test("one at a time: a process mean without its stolen sample; a missing process drops out", () => {
    // round 1: 10k, 10k, 4k stolen; round 2: 12k, 4k stolen, 4k stolen (missing); round 3: 14k
    const rps = [10_000, 10_000, 4_000, 12_000, 4_000, 4_000, 14_000, 14_000, 14_000];
    const r = run(
      3,
      3,
      (round, sample) => (rps[(round - 1) * 3 + sample - 1] === 4_000 ? 45 : 0),
      (round, sample) => rps[(round - 1) * 3 + sample - 1] as number,
    );
    const row = analyze(r).groups.get("api")?.rows[0];
    expect(row?.rps.n).toBe(2);
    expect(row?.rps.mean).toBe(12_000);
    expect(row?.validTrials).toBe(5);
    expect(row?.flags.map((f) => f.tag)).toContain("STEAL 3/9");
    // off: every sample counts again
    const off = analyze({
      ...r,
      manifest: { ...r.manifest, settings: { ...r.manifest.settings, maxSteal: STEAL_OFF } },
    });
    expect(off.groups.get("api")?.rows[0]?.rps.n).toBe(3);
  });

  test("side by side: a planted bias carried by stolen samples is removed (simulated)", () => {
    // 30 pairs × 2 samples of a +2% row; a quarter of the samples ran at 40% steal and read the
    // row 6% dearer, as the servers of a pair do not feel steal alike.
    const random = mulberry32(7);
    const z = normal(random);
    const trials: PairTrial[] = [];
    for (let round = 1; round <= 30; round++) {
      for (let sample = 1; sample <= 2; sample++) {
        const stolen = random() < 0.25;
        const ratio = 1.02 * Math.exp(0.005 * z()) * (stolen ? 1.06 : 1);
        trials.push({
          ...syntheticPairTrial("bun-bare", "bun-bare+2%", round, sample, 10_000, 10_000 * ratio),
          stealPercent: stolen ? 40 : 1,
        });
      }
    }
    const side = syntheticSideRun([["bun-bare", "bun-bare+2%"]], trials);
    side.manifest.settings.samples = 2;
    const at = (maxSteal: number) => {
      side.manifest.settings.maxSteal = maxSteal;
      const row = analyze(side)
        .side?.groups.get("api")
        ?.rows.find((x) => x.reference);
      return { ratio: row?.ratio ?? Number.NaN, ci: row?.ci };
    };
    const kept = at(STEAL_OFF);
    const clean = at(DEFAULT_MAX_STEAL);
    expect(kept.ci && kept.ci.low > 1.02).toBe(true); // biased: the truth is outside
    expect(clean.ci && clean.ci.low < 1.02 && clean.ci.high > 1.02).toBe(true);
    expect(Math.abs(clean.ratio - 1.02)).toBeLessThan(0.003);
  });
});

describe("the kept calibration of 2026-11-28, re-analysed (docs/results)", () => {
  const file = join(
    import.meta.dir,
    "..",
    "..",
    "..",
    "docs",
    "results",
    "2026-11-28-steal-side-calibrate",
    "results.json",
  );
  const results = JSON.parse(readFileSync(file, "utf8")) as Results;

  /** Each row's change against bun-bare, with its interval, in % to one decimal. */
  const figures = (maxSteal?: number) => {
    const r: Results =
      maxSteal === undefined
        ? results
        : {
            ...results,
            manifest: { ...results.manifest, settings: { ...results.manifest.settings, maxSteal } },
          };
    const rows = analyze(r).side?.groups.get("api")?.rows ?? [];
    const pct = (x: number) => Number(((x - 1) * 100).toFixed(1));
    return Object.fromEntries(
      rows
        .filter((x) => x.reference)
        .map((x) => [x.app, [pct(x.ratio), pct(x.ci?.low ?? 0), pct(x.ci?.high ?? 0)]]),
    );
  };

  test("at the default threshold: the figures of its clean samples (crossover intervals)", () => {
    expect(results.manifest.settings.maxSteal).toBeUndefined();
    expect(figures()).toEqual({
      "bun-bare+0%": [0.2, -0.5, 0.9],
      "bun-bare+1%": [0.4, -0.3, 1.0],
      "bun-bare+2%": [1.4, 0.8, 1.9],
      "bun-bare+5%": [4.5, 3.7, 5.3],
    });
  });

  test("with every sample kept: the figures it published", () => {
    expect(figures(STEAL_OFF)).toEqual({
      "bun-bare+0%": [1.0, -1.1, 3.1],
      "bun-bare+1%": [3.0, -0.0, 6.0],
      "bun-bare+2%": [0.9, -2.4, 4.3],
      "bun-bare+5%": [6.2, 4.2, 8.3],
    });
  });

  test("the excluded samples: 62 of 240, none re-taken (the rule did not exist yet)", () => {
    expect(stealSummary(results)).toMatchObject({
      samples: 240,
      stolen: 62,
      retaken: 0,
      unreplaced: 62,
      missing: 29,
    });
  });
});
