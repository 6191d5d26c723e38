// What one summary table covers: a scenario, or, when a run measured several connection counts
// (--connections 1,10,100), a scenario at one of them. Trials are compared, ranked and reported
// only within a group, so 10 and 400 connections never mix.

import type { Results, Trial } from "./schema.ts";

export interface Group {
  /** The table's name: "api", or "api (c=10)". */
  readonly key: string;
  readonly scenario: string;
  /** Set when the run measured several connection counts. */
  readonly connections?: number;
}

export function groupsOf(results: Pick<Results, "manifest">): Group[] {
  const { scenarios, connectionCounts } = results.manifest.settings;
  if (!connectionCounts || connectionCounts.length < 2) {
    return scenarios.map((scenario) => ({ key: scenario, scenario }));
  }
  return scenarios.flatMap((scenario) =>
    connectionCounts.map((connections) => ({
      key: `${scenario} (c=${connections})`,
      scenario,
      connections,
    })),
  );
}

/** The trial belongs to the group (its connections are those it really opened). */
export const inGroup = (t: Pick<Trial, "scenario" | "connections">, g: Group): boolean =>
  t.scenario === g.scenario && (g.connections === undefined || t.connections === g.connections);

/** The scenario a group key names. */
export const scenarioOfKey = (key: string): string => key.replace(/ \(c=\d+\)$/, "");

/** "400", or the counts of a run that measured several: "1, 10, 100". */
export const connectionsText = (settings: Results["manifest"]["settings"]): string =>
  settings.connectionCounts && settings.connectionCounts.length > 1
    ? settings.connectionCounts.join(", ")
    : String(settings.connections);

/** "1 process per app", or with --workers: "2 workers per app (node:cluster)". */
export const workersText = (settings: Results["manifest"]["settings"]): string =>
  (settings.workers ?? 1) > 1
    ? `${settings.workers} workers per app (node:cluster)`
    : "1 process per app";
