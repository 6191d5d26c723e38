// CPU steal in the reports: one line for the run's steal and what --max-steal did (the summary's
// header, so a reader knows the hour was bad), and the "CPU steal" section listing every
// excluded sample with its steal. The rule and the counts are analysis/steal.ts's.

import type { Analysis } from "../analysis/analysis.ts";
import { STEAL_OFF, stealOf, thresholdText } from "../analysis/steal.ts";
import type { PairTrial, Trial } from "../results/schema.ts";
import { fmt } from "./format.ts";

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * "CPU steal on the server's core: median 0.7%, worst 47.3% · --max-steal 15: 58 of 252
 * samples excluded, 12 re-taken, 46 not replaced; 3 pairs missing".
 */
export function stealLine(analysis: Analysis): string {
  const s = analysis.steal;
  const side = analysis.side !== undefined;
  const head =
    `CPU steal on the server${side ? "s'" : "'s"} core: median ${fmt(s.median, 1)}%, ` +
    `worst ${fmt(s.worst, 1)}% over ${count(s.samples, "sample", "samples")}`;
  if (s.max >= STEAL_OFF) return `${head} · --max-steal ${STEAL_OFF}: off, every sample kept`;
  if (s.stolen === 0) return `${head} · none at ${thresholdText(s.max)} (--max-steal)`;
  const unit = side ? ["pair", "pairs"] : ["process", "processes"];
  return (
    `${head} · ${s.stolen} at ${thresholdText(s.max)} (--max-steal) excluded, ` +
    `${s.retaken} re-taken, ${s.unreplaced} not replaced` +
    (s.missing > 0 ? `; ${count(s.missing, unit[0] as string, unit[1] as string)} missing` : "")
  );
}

// Stryker disable StringLiteral: the section's prose, read by people; no figure comes from it
export const STEAL_INTRO =
  "CPU steal is time the hypervisor gave this machine's CPUs to other guests. A sample during " +
  "which it took the threshold (--max-steal) or more of the server's core is not a measurement " +
  "of the server: it is excluded from every estimate and, while the run lasts, taken again at " +
  "the end of its process (side by side: its pair), up to half as many extra samples as " +
  "planned. A process or pair left with fewer than half its planned samples clean counts as " +
  "missing; its other samples are excluded too. Steal is read from /proc/stat for the server's " +
  "own CPU set (pinned runs), else over all the cores.";
// Stryker restore StringLiteral

export const STEAL_HEADER = ["app", "scenario", "round", "sample", "steal", "why"];

const nameOf = (t: Trial | PairTrial) => ("reference" in t ? `${t.app} vs ${t.reference}` : t.app);

/** Every excluded sample, in the order taken: stolen, or the rest of a missing unit. */
export function stealRows(analysis: Analysis): string[][] {
  const { excluded, stolen } = analysis.exclusion;
  return [...excluded]
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
    .map((t) => [
      nameOf(t),
      t.scenario,
      String(t.round),
      `${t.sample ?? 1}${t.retake ? " (re-take)" : ""}`,
      `${fmt(stealOf(t), 1)}%`,
      stolen.has(t) ? "stolen" : "its process or pair is missing",
    ]);
}
