// What one summary table covers: a scenario, or, when a run measured several connection counts
// (--connections 1,10,100) or worker counts (--workers 1,2,4), a scenario at one of each.
// Trials are compared, ranked and reported only within a group, so 10 and 400 connections, or
// one and four workers, never mix.

import type { Results, Trial } from "../results/schema.ts";

export interface Group {
  /** The table's name: "api", "api (c=10)", "api (w=2)" or "api (c=10, w=2)". */
  readonly key: string;
  readonly scenario: string;
  /** Set when the run measured several connection counts. */
  readonly connections?: number;
  /** Set when the run measured several worker counts (--workers 1,2,4). */
  readonly workers?: number;
}

const several = (list: readonly number[] | undefined): readonly (number | undefined)[] =>
  list && list.length > 1 ? list : [undefined];

export function groupsOf(results: Pick<Results, "manifest">): Group[] {
  const { scenarios, connectionCounts, workerCounts } = results.manifest.settings;
  return scenarios.flatMap((scenario) =>
    several(connectionCounts).flatMap((connections) =>
      several(workerCounts).map((workers) => {
        const tags = [
          ...(connections === undefined ? [] : [`c=${connections}`]),
          ...(workers === undefined ? [] : [`w=${workers}`]),
        ];
        return {
          key: tags.length > 0 ? `${scenario} (${tags.join(", ")})` : scenario,
          scenario,
          ...(connections === undefined ? {} : { connections }),
          ...(workers === undefined ? {} : { workers }),
        };
      }),
    ),
  );
}

/** The trial belongs to the group (its connections are those it really opened). */
export const inGroup = (
  t: Pick<Trial, "scenario" | "connections" | "workers">,
  g: Group,
): boolean =>
  t.scenario === g.scenario &&
  (g.connections === undefined || t.connections === g.connections) &&
  (g.workers === undefined || (t.workers ?? 1) === g.workers);

/** The scenario a group key names. */
export const scenarioOfKey = (key: string): string =>
  key.replace(/ \((c=\d+)?(, )?(w=\d+)?\)$/, "");

/** "400", or the counts of a run that measured several: "1, 10, 100". */
export const connectionsText = (settings: Results["manifest"]["settings"]): string =>
  settings.connectionCounts && settings.connectionCounts.length > 1
    ? settings.connectionCounts.join(", ")
    : String(settings.connections);

/** "1 process per app", or with --workers: "2 worker(s) per app", "1, 2, 4 worker(s) per app". */
export const workersText = (settings: Results["manifest"]["settings"]): string => {
  const counts = settings.workerCounts ?? [settings.workers ?? 1];
  return counts.length === 1 && counts[0] === 1
    ? "1 process per app"
    : `${counts.join(", ")} worker(s) per app`;
};

/**
 * The rounds a run measured: those with a sample, one at a time or side by side. A run cut
 * short measured fewer than its settings planned (settings.trials), and its header must say so.
 */
export function roundsMeasured(results: Pick<Results, "trials" | "pairTrials">): number {
  const rounds = [...results.trials, ...(results.pairTrials ?? [])].map((t) => t.round);
  return new Set(rounds).size;
}
