// CPU steal: time the hypervisor gave this VM's CPUs to other guests. A sample during which it
// took a large share of the server's core is not a measurement of the server: on this VM's
// steal-heavy night (docs/statistics.md, "CPU steal") such samples moved a side-by-side ratio
// by several percent, and the two servers of a pair did not feel it alike. The rule, one for
// every estimate and for the run that re-takes such samples: a sample whose steal on the
// server's core is at or above the run's --max-steal is excluded, and a process (or pair) left
// with fewer than half its planned samples clean is missing, not measured.

import type { PairTrial, Results, Trial } from "../results/schema.ts";
import type { Flag } from "./analysis.ts";
import { median } from "./stats.ts";

/**
 * --max-steal's default, %: chosen on the kept calibration of 2026-11-28 (docs/statistics.md,
 * "CPU steal"), where every threshold from 10 to 20% put each known answer inside its interval
 * at a third of the width, and 15% reproduced the published clean figures; 30% let in samples
 * at 20–30% steal that moved +2% to +1.7% (+0.5 to +2.8).
 */
export const DEFAULT_MAX_STEAL = 15;

/** --max-steal 100 keeps every sample: steal can reach 100% only on a core never run. */
export const STEAL_OFF = 100;

/** What the rule reads of a sample. */
export type Stealable = Pick<Trial | PairTrial, "stealPercent" | "serverStealPercent" | "retake">;

/**
 * The steal that counts: on the server's own core where it was recorded (pinned runs since
 * it was), else over all the machine's cores (older runs, unpinned runs).
 */
export const stealOf = (t: Stealable): number => t.serverStealPercent ?? t.stealPercent;

/** The threshold a run is analysed at: its own, or the default for a run from before it existed. */
export const maxStealOf = (results: Pick<Results, "manifest">): number =>
  results.manifest.settings.maxSteal ?? DEFAULT_MAX_STEAL;

/** Whether a sample is lost to steal at threshold `max` (never at STEAL_OFF). */
export const isStolen = (t: Stealable, max: number): boolean =>
  max < STEAL_OFF && stealOf(t) >= max;

/**
 * Re-takes a process (or pair) may add, as a share of its planned samples (rounded up): a
 * stolen sample is taken again at its end, so a bad minute costs time, bounded.
 */
export const RETAKE_SHARE = 0.5;

/** The re-takes a process or pair of `planned` samples may add. */
export const retakeBound = (planned: number): number => Math.ceil(planned * RETAKE_SHARE);

/** Clean samples a process or pair needs to count: half its planned samples, rounded up. */
export const cleanNeeded = (planned: number): number => Math.ceil(Math.max(1, planned) / 2);

/** The unit a sample belongs to: a process (one at a time) or a pair of processes. */
function unitOf(t: Trial | PairTrial): string {
  if ("reference" in t) return `${t.reference}\u0000${t.app}\u0000${t.scenario}\u0000${t.round}`;
  return `${t.app}\u0000${t.scenario}\u0000${t.workers ?? 1}\u0000${t.connections}\u0000${t.round}`;
}

const samplesOf = (results: Results): (Trial | PairTrial)[] => [
  ...results.trials,
  ...(results.pairTrials ?? []),
];

/** The samples the rule takes out of a run, and the units left missing. */
export interface Exclusion {
  readonly max: number;
  /** Clean samples a process or pair needs to count (cleanNeeded of the run's samples). */
  readonly need: number;
  /** Every excluded sample: stolen ones, and the rest of a missing unit's. */
  readonly excluded: ReadonlySet<Trial | PairTrial>;
  readonly stolen: ReadonlySet<Trial | PairTrial>;
  /** Units (processes or pairs) with some samples stolen and too few clean left. */
  readonly missing: readonly (Trial | PairTrial)[][];
}

/** The exclusion at the run's own threshold, or at `max` (a re-analysis at another one). */
export function exclusionOf(results: Results, max = maxStealOf(results)): Exclusion {
  const need = cleanNeeded(results.manifest.settings.samples ?? 1);
  const units = new Map<string, (Trial | PairTrial)[]>();
  for (const t of samplesOf(results)) {
    const key = unitOf(t);
    units.set(key, [...(units.get(key) ?? []), t]);
  }
  const stolen = new Set(samplesOf(results).filter((t) => isStolen(t, max)));
  const excluded = new Set(stolen);
  const missing: (Trial | PairTrial)[][] = [];
  for (const unit of units.values()) {
    const clean = unit.filter((t) => !isStolen(t, max)).length;
    if (clean === unit.length || clean >= need) continue;
    missing.push(unit);
    for (const t of unit) excluded.add(t);
  }
  return { max, need, excluded, stolen, missing };
}

/** The samples every estimate uses: valid ones the exclusion keeps. */
export function counted(exclusion: Exclusion): (t: Trial | PairTrial) => boolean {
  return (t) => t.checks.valid && !exclusion.excluded.has(t);
}

/** The run's steal, for the summary's line: how bad the hour was and what the rule did. */
export interface StealSummary {
  readonly max: number;
  readonly samples: number;
  /** Median and highest steal over every sample (the figure the rule reads). */
  readonly median: number;
  readonly worst: number;
  /** Samples at or above the threshold. */
  readonly stolen: number;
  /** Samples taken again at the end of their process or pair. */
  readonly retaken: number;
  /** Stolen samples no clean re-take replaced (the bound was reached, or the run stopped). */
  readonly unreplaced: number;
  /** Processes or pairs that count as missing. */
  readonly missing: number;
}

export function stealSummary(results: Results, exclusion = exclusionOf(results)): StealSummary {
  const all = samplesOf(results);
  const steal = all.map(stealOf);
  const retaken = all.filter((t) => t.retake).length;
  return {
    max: exclusion.max,
    samples: all.length,
    median: steal.length > 0 ? median(steal) : 0,
    worst: steal.length > 0 ? Math.max(...steal) : 0,
    stolen: exclusion.stolen.size,
    retaken,
    unreplaced: Math.max(0, exclusion.stolen.size - retaken),
    missing: exclusion.missing.length,
  };
}

/** "≥ 15%", or "off": the threshold as the reports say it. */
export const thresholdText = (max: number): string =>
  max >= STEAL_OFF ? "off (--max-steal 100)" : `≥ ${max}%`;

/** A row's flag for its samples lost to steal, or undefined when it lost none. */
export function stealFlag(
  samples: readonly (Trial | PairTrial)[],
  exclusion: Exclusion,
): Flag | undefined {
  const stolen = samples.filter((t) => exclusion.stolen.has(t)).length;
  if (stolen === 0) return undefined;
  const others = samples.filter((t) => exclusion.excluded.has(t)).length - stolen;
  const retaken = samples.filter((t) => t.retake).length;
  const pairs = samples.some((t) => "reference" in t);
  const units = exclusion.missing.filter((u) => u.some((t) => samples.includes(t))).length;
  const tag = `STEAL ${stolen}/${samples.length}`;
  const unit = pairs ? (units === 1 ? "pair" : "pairs") : units === 1 ? "process" : "processes";
  const missing =
    units === 0
      ? ""
      : `; ${units} ${unit} with fewer than ${exclusion.need} clean sample(s) count as missing` +
        (others > 0 ? ` (${others} more sample(s) of theirs excluded)` : "");
  return {
    tag,
    text: `${tag}: CPU steal ${thresholdText(exclusion.max)} on the ${pairs ? "servers'" : "server's"} core: excluded, ${retaken} re-taken${missing}`,
  };
}
