// --workers, analysed: each worker's share of a trial (per rank, busiest first, median over
// trials) and, with several counts (--workers 1,2,4), each app's req/s at every count against
// its first count, tested as one family per scenario (the summary's test, Holm). report/
// workers.ts renders both; every figure and verdict is made here.

import type { Results, Trial } from "../results/schema.ts";
import type { Analysis, SummaryRow } from "./analysis.ts";
import { groupsOf } from "./groups.ts";
import { median } from "./stats.ts";
import { familyVerdicts, testPair } from "./verdicts.ts";

export interface WorkersRow {
  readonly app: string;
  readonly scenario: string;
  readonly workers: number;
  readonly served: number;
  readonly cpuPercent: number[];
  readonly connections: number[];
  readonly primaryRssMiB: number;
  readonly peakRssMiB: number;
}

/** Per rank (busiest first), the median over the trials. */
function byRank(
  trials: readonly Trial[],
  value: (w: { cpuPercent: number; connections: number }) => number,
) {
  const sorted = trials.map((t) => (t.server.workers ?? []).map(value).sort((a, b) => b - a));
  const ranks = Math.max(...sorted.map((s) => s.length));
  return Array.from({ length: ranks }, (_, i) => median(sorted.map((s) => s[i] ?? 0)));
}

export function workersRows(results: Results): WorkersRow[] {
  const withWorkers = results.trials.filter((t) => (t.server.workers?.length ?? 0) > 0);
  // One row per app, scenario and worker count (a run may measure several: --workers 2,4).
  const key = (t: Trial) => `${t.app}\u0000${t.scenario}\u0000${t.server.workers?.length}`;
  const keys = [...new Set(withWorkers.map(key))];
  return keys.map((k) => {
    const trials = withWorkers.filter((t) => key(t) === k);
    const { app, scenario } = trials[0] as Trial;
    return {
      app,
      scenario,
      workers: Math.max(...trials.map((t) => t.server.workers?.length ?? 0)),
      served: Math.min(
        ...trials.map((t) => (t.server.workers ?? []).filter((w) => w.connections > 0).length),
      ),
      cpuPercent: byRank(trials, (w) => w.cpuPercent),
      connections: byRank(trials, (w) => w.connections),
      primaryRssMiB: median(trials.map((t) => t.server.primaryRssMiB ?? 0)),
      peakRssMiB: median(trials.map((t) => t.server.peakRssMiB)),
    };
  });
}

/** An app at one worker count: its mean req/s and, past the first count, the multiple of it. */
export interface ScalingCell {
  readonly rps: number;
  /** × the app's req/s at the run's first count; absent at the first count or without it. */
  readonly multiple?: number;
  /** The multiple differs from 1 significantly (Holm over the scenario's comparisons). */
  readonly significant?: boolean;
}

export interface ScalingFamily {
  readonly scenario: string;
  readonly counts: readonly number[];
  /** Per app of the run, a cell per count (undefined: not measured there). */
  readonly apps: readonly { readonly app: string; readonly cells: (ScalingCell | undefined)[] }[];
}

/** Per scenario, each app's req/s at each worker count, tested against its first count. */
export function scalingFamilies(analysis: Analysis): ScalingFamily[] {
  const { results } = analysis;
  const counts = results.manifest.settings.workerCounts ?? [];
  if (counts.length < 2) return [];
  const groups = groupsOf(results);
  const { apps } = results.manifest.settings;
  return results.manifest.settings.scenarios.map((scenario) => {
    const row = (app: string, workers: number) => {
      const group = groups.find((g) => g.scenario === scenario && g.workers === workers);
      return analysis.groups.get(group?.key ?? "")?.rows.find((r) => r.app === app && r.rps.n > 0);
    };
    // One family per scenario: every app at every count against its first count.
    const members = apps.flatMap((app) =>
      counts
        .slice(1)
        .map((workers) => ({ app, first: row(app, counts[0] as number), at: row(app, workers) })),
    );
    const family = familyVerdicts(
      members.map((m, i) => ({ key: String(i), test: pairOf(m.first, m.at) })),
      (t) => t.p,
      2,
    );
    const cellsOf = (app: string): (ScalingCell | undefined)[] => {
      const first = row(app, counts[0] as number);
      return counts.map((workers, i) => {
        const at = row(app, workers);
        if (!at) return undefined;
        if (i === 0 || !first) return { rps: at.rps.mean };
        const k = members.findIndex((m) => m.app === app && m.at === at);
        const significant = family.get(String(k))?.significant === true;
        return { rps: at.rps.mean, multiple: at.rps.mean / first.rps.mean, significant };
      });
    };
    return { scenario, counts, apps: apps.map((app) => ({ app, cells: cellsOf(app) })) };
  });
}

const pairOf = (a: SummaryRow | undefined, b: SummaryRow | undefined) =>
  a && b ? testPair(a.estimate, b.estimate) : undefined;
