// The flags a valid sample can carry (judge.ts decides each), defined once: which sample has
// it, the row's count of them, its tag and why it matters in the tables, and the word a chart's
// label carries for it. analysis.ts counts and words them; html.ts and mermaid.ts mark the
// bars they qualify.

import type { Trial } from "../results/schema.ts";

export type ValidTrial = Trial & { result: NonNullable<Trial["result"]> };

/** A row's count of valid samples with each flag (SummaryRow's fields of the same names). */
export interface FlagCounts {
  /** The load generator, not the server, was the limit. */
  readonly boundTrials: number;
  /** Neither was saturated: something else limited the run. */
  readonly unsaturatedTrials: number;
  /** The server's core was busy with something other than the server. */
  readonly contendedTrials: number;
  /** The server and the load generator shared the cores and filled them. */
  readonly machineFullTrials: number;
  /** The load generator was at its ceiling: a lower bound of the server's. */
  readonly ceilingTrials: number;
  /** A run across two hosts whose pace the network may have set. */
  readonly networkTrials: number;
  /** --db postgres: the database used more of the core than the app. */
  readonly databaseTrials: number;
  /** In-flight requests far below the connections (Little's law). */
  readonly idleTrials: number;
}

export interface TrialFlag {
  readonly count: keyof FlagCounts;
  readonly has: (trial: ValidTrial) => boolean;
  /** In the tables: "LOAD-GENERATOR BOUND 3/60: why". */
  readonly tag: string;
  readonly why: string;
  /** What a chart's bar is, where this flag makes it other than the server's best. */
  readonly chart?: "lower bound" | "unsaturated" | "contended" | "machine full";
}

/** In the order the tables list them. */
export const TRIAL_FLAGS: readonly TrialFlag[] = [
  {
    count: "boundTrials",
    has: (t) => t.checks.loadGeneratorBound,
    tag: "LOAD-GENERATOR BOUND",
    why: "a lower bound (the load generator was saturated, the server was not)",
    chart: "lower bound",
  },
  {
    count: "unsaturatedTrials",
    has: (t) => t.checks.unsaturated,
    tag: "UNSATURATED",
    why: "neither the server nor the load generator was saturated (not the server's best)",
    chart: "unsaturated",
  },
  {
    count: "contendedTrials",
    has: (t) => t.checks.contended === true,
    tag: "CONTENDED",
    why:
      "the server's core was busy with something other than the server, or CPU steal was " +
      "high (not the server's best; see the notes)",
    chart: "contended",
  },
  {
    count: "machineFullTrials",
    has: (t) => t.checks.machineFull === true,
    tag: "MACHINE FULL",
    why:
      "the server and the load generator shared the cores and filled them (not the server's " +
      "best, nor a load-generator limit)",
    chart: "machine full",
  },
  {
    count: "ceilingTrials",
    has: (t) => t.checks.generatorCeiling === true,
    tag: "GENERATOR CEILING",
    why:
      "a lower bound of the server's capacity, not its measure (the load generator was at its " +
      "ceiling, or connections waited on it while the server's core had room; see the notes)",
    chart: "lower bound",
  },
  {
    count: "networkTrials",
    has: (t) => t.checks.networkBound === true,
    tag: "NETWORK-BOUND",
    why: "the network between the hosts may have set the pace (see the notes)",
  },
  {
    count: "databaseTrials",
    has: (t) => t.checks.databaseBound === true,
    tag: "DATABASE-BOUND",
    why:
      "the database server used more of the server's core than the app: the figure measures " +
      "the database as much as the app (see the notes)",
  },
  {
    // On a valid sample, a failed Little's law check can only mean in-flight far below the
    // connections: above the upper bound the sample would be invalid.
    count: "idleTrials",
    has: (t) => !t.checks.littlesLaw.ok,
    tag: "IDLE CONNECTIONS",
    why:
      "in-flight requests well below the connections: connections waited without a counted " +
      "request (unserved by the server, or paced by the load generator; see the notes)",
  },
];

/** A flag's tag, by its count's name: the word every view uses for it. */
export const tagOf = (count: keyof FlagCounts): string =>
  (TRIAL_FLAGS.find((f) => f.count === count) as TrialFlag).tag;

/** Each flag's count over a row's valid samples. */
export function flagCounts(valid: readonly ValidTrial[]): FlagCounts {
  return Object.fromEntries(
    TRIAL_FLAGS.map((f) => [f.count, valid.filter(f.has).length]),
  ) as unknown as FlagCounts;
}

/** What a row's chart bar is besides the server's best, once each, in the flags' order. */
export function chartQualifiers(counts: FlagCounts): string[] {
  const words = TRIAL_FLAGS.filter((f) => f.chart && counts[f.count] > 0).map((f) => f.chart);
  return [...new Set(words)] as string[];
}
