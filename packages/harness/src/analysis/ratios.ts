// The analysis of a side-by-side run (--side-by-side): per scenario, each row's CPU time per
// request relative to its reference, from samples in which both served at once on one core.
// A sample gives one log ratio, ln(ns per request of the row / of its reference); a pair of
// processes (one round) gives the mean of its samples' log ratios; the estimate is over the
// rounds, tested as the crossover the pairs' alternating positions make of them (verdicts.ts's
// crossoverTest: Student's t within each arrangement of the slots). Two rows with
// the same reference are compared round by round through it (the difference of their log
// ratios), and every comparison of a scenario is one family, held to ALPHA by Holm, from which
// the ranks, the ties and what a tie could have detected come. With --against, each row's
// verdict (slower, faster, no change beyond the threshold, inconclusive) is verdicts.ts's gate.

import type { PairSide, PairTrial, Results } from "../results/schema.ts";
import type { Flag } from "./analysis.ts";
import { type Estimate, estimate } from "./estimate.ts";
import { type Interval, median } from "./stats.ts";
import { counted, type Exclusion, exclusionOf, stealFlag } from "./steal.ts";
import {
  ALPHA,
  crossoverTest,
  familyVerdicts,
  flipped,
  type Gate,
  gate,
  type PairTest,
  type Verdict,
} from "./verdicts.ts";

/** The verdict a comparison's family gives it, with the test behind it. */
export type SideDifference = Verdict;

export interface SideRow {
  readonly app: string;
  /** The row it is measured against; undefined for a reference itself. */
  readonly reference?: string;
  readonly scenario: string;
  readonly status: "ok" | "failed";
  readonly failure?: string;
  /** Its CPU time per request relative to the reference's: 1 for a reference. */
  readonly ratio: number;
  /** 95% CI of the ratio (over rounds); undefined for a reference, or with too few rounds. */
  readonly ci?: Interval;
  /** Against its reference: the test, Holm's verdict, the detectable difference. */
  readonly vsReference?: SideDifference;
  /** Its own CPU time per request, ns: the mean over its processes of their sample means. */
  readonly nsPerRequest: Estimate;
  /** req/s while sharing the core: context, not a ranking. */
  readonly rps: number;
  /** Rounds (pairs of processes) with a counted sample. */
  readonly pairs: number;
  /** Samples that count: valid, and not excluded for CPU steal (analysis/steal.ts). */
  readonly validSamples: number;
  readonly samples: number;
  readonly unsaturatedSamples: number;
  readonly ceilingSamples: number;
  readonly contendedSamples: number;
  /** Valid samples in which the machine slowed the pair's reference itself (see DISTURBED). */
  readonly disturbedSamples: number;
  /** Rank within its reference's group, cheapest first: ≈ for a tie with the group's opener. */
  readonly rank?: { readonly position: number; readonly tie: boolean; readonly mdd?: number };
  /** --against: the gate's verdict on the row against the commit it is compared with. */
  readonly gate?: Gate;
  /** What qualifies the row: failed, invalid samples, unsaturated, generator ceiling... */
  readonly flags: readonly Flag[];
  readonly notes: readonly string[];
}

export interface SideGroup {
  readonly scenario: string;
  /** Grouped by reference, each group cheapest first. */
  readonly rows: readonly SideRow[];
  /** Testable comparisons in the scenario's family. */
  readonly comparisons: number;
  /** The verdict of row `b` against row `a` (b's cost relative to a's), when both share a reference. */
  readonly between: (a: string, b: string) => SideDifference;
}

export interface SideAnalysis {
  readonly groups: ReadonlyMap<string, SideGroup>;
  /** The pairs measured, [reference, app]. */
  readonly pairs: readonly (readonly [string, string])[];
  /** --against: the commit compared with, the threshold of the verdicts and their outcome. */
  readonly against?: {
    readonly ref: string;
    readonly commit: string;
    readonly threshold: number;
    readonly outcome: AgainstOutcome;
  };
}

/**
 * --against's outcome over every row compared with the commit ("app (scenario)" each): slower
 * when one row is; else inconclusive when one row was shown neither faster nor within the
 * threshold (or could not be tested: failed, one pair); else not slower.
 */
export interface AgainstOutcome {
  readonly verdict: "slower" | "inconclusive" | "not slower";
  readonly slower: readonly string[];
  readonly unsettled: readonly string[];
}

function againstOutcome(groups: ReadonlyMap<string, SideGroup>): AgainstOutcome {
  const rows = [...groups.values()].flatMap((g) =>
    g.rows.filter((r) => r.reference).map((r) => ({ r, name: `${r.app} (${g.scenario})` })),
  );
  const slower = rows.filter(({ r }) => r.gate?.verdict === "regression").map((x) => x.name);
  const settled = ["improvement", "no change beyond the threshold"];
  const unsettled = rows
    .filter(({ r }) => !settled.includes(r.gate?.verdict ?? "") && r.gate?.verdict !== "regression")
    .map((x) => x.name);
  const verdict =
    slower.length > 0 ? "slower" : unsettled.length > 0 ? "inconclusive" : "not slower";
  return { verdict, slower, unsettled };
}

/** Whether --against's gate fails the run (exit 1): slower, or, strict, inconclusive too. */
export const againstFails = (side: SideAnalysis | undefined, strict = false): boolean =>
  side?.against?.outcome.verdict === "slower" ||
  (strict && side?.against?.outcome.verdict === "inconclusive");

const sideOf = (trial: PairTrial, app: string): PairSide | undefined =>
  trial.sides.find((s) => s.app === app);

/** ln(row / reference) of one valid sample; undefined when a side has no figure. */
export function sampleLogRatio(trial: PairTrial): number | undefined {
  const a = sideOf(trial, trial.reference)?.nsPerRequest;
  const b = sideOf(trial, trial.app)?.nsPerRequest;
  return a && b && a > 0 && b > 0 ? Math.log(b / a) : undefined;
}

/** Which samples count: valid ones, less those the steal rule excludes (analysis/steal.ts). */
type Keep = (t: PairTrial) => boolean;
const validOnly: Keep = (t) => t.checks.valid;

/** Per round, the mean log ratio of its counted samples: one observation per pair of processes. */
export function roundRatios(
  trials: readonly PairTrial[],
  keep: Keep = validOnly,
): Map<number, number> {
  const byRound = new Map<number, number[]>();
  for (const t of trials) {
    const r = keep(t) ? sampleLogRatio(t) : undefined;
    if (r !== undefined) byRound.set(t.round, [...(byRound.get(t.round) ?? []), r]);
  }
  return new Map(
    [...byRound].map(([round, logs]) => [round, logs.reduce((a, b) => a + b, 0) / logs.length]),
  );
}

/** b's cost against a's, round by round, when both are measured against the same reference. */
export function throughReference(
  a: Map<number, number>,
  b: Map<number, number>,
): PairTest | undefined {
  const diffs = [...b].flatMap(([round, lb]): [number, number][] => {
    const la = a.get(round);
    return la === undefined ? [] : [[round, lb - la]];
  });
  return crossoverTest(new Map(diffs));
}

/**
 * Each process's mean of one side's valid samples, for an app's own ns per request or req/s:
 * an estimate to show, never to pair (a reference has a process per pair in each round, so its
 * `round` numbers the processes instead; comparisons go through the pairs' own log ratios).
 */
function processMeans(
  trials: readonly PairTrial[],
  app: string,
  value: (s: PairSide) => number | undefined,
  keep: Keep,
) {
  const byProcess = new Map<string, number[]>();
  for (const t of trials) {
    const side = sideOf(t, app);
    const v = keep(t) && side ? value(side) : undefined;
    if (v === undefined || !Number.isFinite(v)) continue;
    const key = `${t.round}\u0000${t.reference}\u0000${t.app}`;
    byProcess.set(key, [...(byProcess.get(key) ?? []), v]);
  }
  return [...byProcess.values()].map((values, i) => ({ round: i + 1, values }));
}

interface Comparison {
  readonly key: string;
  readonly test: PairTest | undefined;
}

/** The rows' raw figures in one scenario, before the family's verdicts. */
function rawRows(results: Results, scenario: string, exclusion: Exclusion) {
  const keep = counted(exclusion);
  const trials = (results.pairTrials ?? []).filter((t) => t.scenario === scenario);
  const pairs = results.manifest.settings.sideBySide?.pairs ?? [];
  const references = [...new Set(pairs.map(([ref]) => ref))];
  const names = [...references, ...pairs.map(([, app]) => app)];
  return names.map((name) => {
    const record = results.apps.find((a) => a.name === name);
    const mine = trials.filter((t) => t.app === name || t.reference === name);
    const reference = pairs.find(([, app]) => app === name)?.[0];
    const own =
      reference === undefined
        ? undefined
        : roundRatios(
            mine.filter((t) => t.app === name),
            keep,
          );
    const valid = mine.filter(keep);
    return {
      app: name,
      ...(reference === undefined ? {} : { reference }),
      scenario,
      status: record?.status === "failed" ? ("failed" as const) : ("ok" as const),
      ...(record?.status === "failed" && record.failure ? { failure: record.failure } : {}),
      rounds: own,
      test: own ? crossoverTest(own) : undefined,
      nsPerRequest: estimate(processMeans(mine, name, (s) => s.nsPerRequest, keep)),
      rps: estimate(processMeans(mine, name, (s) => s.result?.rps, keep)).mean,
      pairs: own ? own.size : new Set(valid.map((t) => t.round)).size,
      validSamples: valid.length,
      samples: mine.length,
      unsaturatedSamples: valid.filter((t) => t.checks.unsaturated).length,
      ceilingSamples: valid.filter((t) => t.checks.generatorCeiling).length,
      contendedSamples: valid.filter((t) => t.checks.contended).length,
      disturbedSamples:
        reference === undefined
          ? 0
          : disturbedSamples(
              mine.filter((t) => t.app === name),
              keep,
            ),
      steal: stealFlag(mine, exclusion),
      invalidSamples: mine.filter((t) => !t.checks.valid).length,
      invalidReasons: [
        ...new Set(mine.filter((t) => !t.checks.valid).flatMap((t) => t.checks.invalidReasons)),
      ],
      notes: [...new Set(valid.flatMap((t) => t.checks.notes))],
    };
  });
}

type RawRow = ReturnType<typeof rawRows>[number];

/**
 * A sample in which the reference's own CPU time per request was this many times its median
 * over the pair's valid samples: the machine itself slowed down (a neighbour's cache and memory
 * traffic: bun-bare's cost rose 1.8x and node-bare's 3.5x in one second on this VM), which two
 * apps of one runtime share in their ratio but unlike runtimes need not. Flagged, and kept.
 */
export const DISTURBED = 1.15;

/** The pair's counted samples in which its reference ran DISTURBED times its median or slower. */
export function disturbedSamples(trials: readonly PairTrial[], keep: Keep = validOnly): number {
  const costs = trials.flatMap((t) => {
    const ns = keep(t) ? sideOf(t, t.reference)?.nsPerRequest : undefined;
    return ns === undefined ? [] : [ns];
  });
  const typical = median(costs);
  return costs.filter((ns) => ns >= DISTURBED * typical).length;
}

/** A row's qualifiers, counted over its samples like the closed-loop tables' flags. */
export function sideFlags(
  r: Pick<
    RawRow,
    | "failure"
    | "status"
    | "pairs"
    | "samples"
    | "validSamples"
    | "unsaturatedSamples"
    | "ceilingSamples"
    | "contendedSamples"
    | "disturbedSamples"
  > & {
    readonly invalidReasons: readonly string[];
    /** Invalid samples (the judge's); those lost to steal are counted by `steal`. */
    readonly invalidSamples: number;
    readonly steal?: Flag;
  },
): Flag[] {
  const flags: Flag[] = [];
  if (r.status === "failed") {
    flags.push({ tag: "FAILED", text: `FAILED: ${(r.failure ?? "unknown").split("\n")[0]}` });
  }
  if (r.invalidSamples > 0) {
    const tag = `INVALID ${r.invalidSamples}/${r.samples}`;
    flags.push({ tag, text: `${tag} (${r.invalidReasons.join("; ")}): excluded` });
  }
  if (r.steal) flags.push(r.steal);
  const counted = (tag: string, count: number, why: string) => {
    if (count > 0) {
      const head = `${tag} ${count}/${r.validSamples}`;
      flags.push({ tag: head, text: `${head}: ${why}` });
    }
  };
  counted(
    "GENERATOR CEILING",
    r.ceilingSamples,
    "the generators used all they can while the servers' core had room: a cost measured below saturation",
  );
  counted(
    "UNSATURATED",
    r.unsaturatedSamples,
    "the servers did not fill their core (see the notes)",
  );
  counted(
    "CONTENDED",
    r.contendedSamples,
    "something else had the servers' core, or CPU steal was high (see the notes)",
  );
  counted(
    "DISTURBED",
    r.disturbedSamples,
    `the reference's own CPU time per request was ${Math.round((DISTURBED - 1) * 100)}% or more above its median: the machine slowed down, which unlike runtimes need not feel alike (kept)`,
  );
  if (r.pairs > 0 && r.pairs < 3) {
    flags.push({
      tag: `${r.pairs} PAIR${r.pairs === 1 ? "" : "S"}`,
      text: `${r.pairs} pair${r.pairs === 1 ? "" : "s"} of processes with valid samples: too few for a CI`,
    });
  }
  return flags;
}

/** Every comparison of a scenario: each row against its reference, each two rows through theirs. */
function comparisons(rows: readonly RawRow[]): Comparison[] {
  const out: Comparison[] = rows.flatMap((r) =>
    r.reference ? [{ key: r.app, test: r.test }] : [],
  );
  for (const [i, a] of rows.entries()) {
    for (const b of rows.slice(i + 1)) {
      if (!a.reference || a.reference !== b.reference || !a.rounds || !b.rounds) continue;
      out.push({ key: `${a.app}\u0000${b.app}`, test: throughReference(a.rounds, b.rounds) });
    }
  }
  return out;
}

/** The verdict of b against a from the family (either way round); a tie when it holds none. */
function reader(rows: readonly RawRow[], family: Map<string, Verdict>) {
  const referenceOf = (name: string) => rows.find((r) => r.app === name)?.reference;
  const flip = (v: Verdict | undefined): Verdict =>
    v?.test ? { ...v, test: flipped(v.test) } : (v ?? { significant: false });
  return (a: string, b: string): Verdict => {
    if (a === b) return { significant: false };
    if (referenceOf(b) === a) return family.get(b) ?? { significant: false };
    if (referenceOf(a) === b) return flip(family.get(a));
    const direct = family.get(`${a}\u0000${b}`);
    return direct ?? flip(family.get(`${b}\u0000${a}`));
  };
}

/** Ranks within each reference's group, cheapest first (competition ranking, ties ≈). */
function ranked(rows: readonly RawRow[], between: (a: string, b: string) => Verdict): SideRow[] {
  const groups = new Map<string, RawRow[]>();
  for (const r of rows) {
    const ref = r.reference ?? r.app;
    groups.set(ref, [...(groups.get(ref) ?? []), r]);
  }
  return [...groups.values()].flatMap((group) => {
    const ratio = (r: RawRow) => (r.reference ? 1 + (r.test?.change ?? Number.NaN) : 1);
    const sorted = [...group].sort((a, b) => (ratio(a) || Infinity) - (ratio(b) || Infinity));
    let opener: RawRow | undefined;
    let openerRank = 0;
    return sorted.map((r, i): SideRow => {
      const measured = r.pairs > 0 && Number.isFinite(ratio(r));
      let rank: SideRow["rank"];
      if (measured && (!opener || between(opener.app, r.app).significant)) {
        opener = r;
        openerRank = i + 1;
        rank = { position: i + 1, tie: false };
      } else if (measured && opener) {
        const mdd = between(opener.app, r.app).mdd;
        rank = { position: openerRank, tie: true, ...(mdd === undefined ? {} : { mdd }) };
      }
      const { rounds: _, test, invalidReasons: __, invalidSamples: ___, steal: ____, ...rest } = r;
      const v = r.reference ? between(r.reference, r.app) : undefined;
      return {
        ...rest,
        flags: sideFlags(r),
        ratio: ratio(r),
        ...(test && r.pairs >= 3 ? { ci: { low: 1 + test.ci.low, high: 1 + test.ci.high } } : {}),
        ...(v ? { vsReference: v } : {}),
        ...(rank ? { rank } : {}),
      };
    });
  });
}

function analyzeScenario(results: Results, scenario: string, exclusion: Exclusion): SideGroup {
  const raw = rawRows(results, scenario, exclusion);
  const all = comparisons(raw);
  const family = familyVerdicts(all, (t) => t.p, 2);
  const between = reader(raw, family);
  return {
    scenario,
    rows: ranked(raw, between),
    comparisons: all.filter((c) => c.test).length,
    between,
  };
}

/**
 * --against: every row against the commit it is compared with, on the scale the table shows:
 * CPU time per request, where a rise of the threshold or more is slower.
 */
function withGates(groups: Map<string, SideGroup>, threshold: number): void {
  const members = [...groups.values()].flatMap((g) =>
    g.rows.flatMap((r) =>
      r.reference && r.vsReference?.test
        ? [{ key: `${g.scenario}\u0000${r.app}`, test: r.vsReference.test }]
        : [],
    ),
  );
  const gates = gate(members, threshold, ALPHA, "up");
  for (const [scenario, g] of groups) {
    const rows = g.rows.map((r) => {
      const found = gates.get(`${scenario}\u0000${r.app}`);
      return found ? { ...r, gate: found } : r;
    });
    groups.set(scenario, { ...g, rows });
  }
}

/**
 * A scenario no pair measured because an app of each pair cannot serve it (the contract's
 * "not supported", which the reports show with its reason): no table of empty rows.
 */
function unservedByAny(results: Results, scenario: string): boolean {
  const measured = (results.pairTrials ?? []).some((t) => t.scenario === scenario);
  return !measured && (results.unsupported ?? []).some((c) => c.scenario === scenario);
}

/** The analysis of a side-by-side run; undefined for any other run. */
export function analyzeSide(results: Results): SideAnalysis | undefined {
  const side = results.manifest.settings.sideBySide;
  if (!side) return undefined;
  const groups = new Map<string, SideGroup>();
  const exclusion = exclusionOf(results);
  for (const scenario of results.manifest.settings.scenarios) {
    if (unservedByAny(results, scenario)) continue;
    groups.set(scenario, analyzeScenario(results, scenario, exclusion));
  }
  if (!side.against) return { groups, pairs: side.pairs };
  const threshold = side.threshold ?? DEFAULT_AGAINST_THRESHOLD;
  withGates(groups, threshold);
  const against = { ...side.against, threshold, outcome: againstOutcome(groups) };
  return { groups, pairs: side.pairs, against };
}

/** --against's threshold when --threshold is not given: a 2% change, what the mode settles. */
export const DEFAULT_AGAINST_THRESHOLD = 0.02;

/** A row's median ns per request over its counted samples (the calibration's sizing figure). */
export function medianNsPerRequest(results: Results, app: string): number {
  const keep = counted(exclusionOf(results));
  const values = (results.pairTrials ?? []).flatMap((t) => {
    const side = keep(t) ? sideOf(t, app) : undefined;
    return side?.nsPerRequest === undefined ? [] : [side.nsPerRequest];
  });
  return median(values);
}
