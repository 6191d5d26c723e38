// Simulated runs for the statistics' tests against known truth (estimate.test.ts,
// verdicts.test.ts): a nested noise structure like this VM's (samples within processes, and
// rounds that move every app at once), from a seeded generator, so every rate the tests check is
// the same on every machine and every run.
import { test } from "bun:test";
import type { ProcessSamples } from "../../src/analysis/estimate.ts";
import { PAIRED_MIN_ROUNDS } from "../../src/analysis/verdicts.ts";

export function normal(random: () => number): () => number {
  return () => {
    const u = 1 - random();
    const v = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

export interface Design {
  readonly mean: number;
  /** CoV of a process's own level around the true mean. */
  readonly between: number;
  /** CoV of one sample around its process's level. */
  readonly within: number;
  readonly processes: number;
  readonly samples: number;
}

/** This VM's noise (docs/statistics.md, "Precision"): ~10% between processes, ~15% within, 1 s samples. */
export const VM: Design = { mean: 50_000, between: 0.1, within: 0.15, processes: 12, samples: 3 };

export function simulate(d: Design, z: () => number): ProcessSamples[] {
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
export function simulateRounds(
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
export const ROUND_COV = 0.1;
/** A default run's rounds: the fewest at which a run's comparisons are paired by round. */
export const PAIRED: Design = { ...VM, processes: PAIRED_MIN_ROUNDS };

export const RUNS = 4000;
/**
 * The simulations take seconds; mutation testing (scripts/mutation.sh) runs estimate.test.ts and
 * verdicts.test.ts once per mutant, so there they are skipped and only the exact, deterministic
 * tests count.
 */
export const simulate4k = process.env.BENCH_MUTATION === "1" ? test.skip : test;
