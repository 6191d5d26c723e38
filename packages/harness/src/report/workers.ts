// The reports' "Workers" section (--workers N): did every worker serve, how the load spread over
// them, what the primary costs, and with several counts (--workers 1,2,4) how req/s scaled. One
// model, rendered by markdown.ts, html.ts and extras.ts.

import type { Analysis, SummaryRow } from "../analysis/analysis.ts";
import { familyVerdicts, PAIRED_MIN_ROUNDS, testPair } from "../analysis/estimate.ts";
import { groupsOf } from "../analysis/groups.ts";
import { median } from "../analysis/stats.ts";
import type { Results, Trial } from "../schema.ts";
import { fmt } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const WORKERS_INTRO =
  "Each app served its port from several processes (--workers). Per app and scenario, over " +
  "its trials: how many workers held connections halfway through a trial (the fewest in any " +
  "trial), each worker's CPU and connections (median per rank, busiest first), and the " +
  "memory of the primary alone and of the whole tree. Connections are every established one " +
  "on the app's port, so they can add up to one or two more than the load generator's: the " +
  "harness's own kept-alive connections from checking the app. Node's cluster hands connections out " +
  "in turn from its primary; with reusePort (Bun, and @elysiajs/node) the kernel spreads them " +
  "by a hash of the client's address and port, so an uneven spread is a finding, not noise.";
// Stryker restore StringLiteral

export const WORKERS_HEADER = [
  "app",
  "scenario",
  "workers that served",
  "CPU % per worker",
  "connections per worker",
  "primary RSS MiB",
  "tree peak RSS MiB",
];

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

export function workersCells(row: WorkersRow): string[] {
  const served = `${row.served} of ${row.workers}${row.served < row.workers ? " (!)" : ""}`;
  return [
    row.app,
    row.scenario,
    served,
    row.cpuPercent.map((c) => fmt(c, 0)).join(" / "),
    row.connections.map((c) => fmt(c, 0)).join(" / "),
    fmt(row.primaryRssMiB, 1),
    fmt(row.peakRssMiB, 1),
  ];
}

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const SCALING_INTRO =
  "Each app at every worker count of the run (--workers), interleaved in the same rounds: mean " +
  "req/s over processes, and in brackets as a multiple of the first count. ≈ marks a " +
  "multiple whose difference from the first count is not significant (the summary's test: " +
  `paired by round from ${PAIRED_MIN_ROUNDS} rounds, else Welch's; Holm over the scenario's comparisons) or cannot ` +
  "be tested (fewer than 2 processes on either side). Near N× means the app " +
  "is CPU-bound per process and scales; read it only where the machine has a CPU per worker " +
  "and one more for the load generator (the Pinning line says whether it had).";
// Stryker restore StringLiteral

export interface ScalingView {
  /** The scenario, with its connection count when the run measured several. */
  readonly scenario: string;
  readonly header: string[];
  readonly rows: string[][];
}

/** Per scenario, each app's req/s at each worker count and as a multiple of the first. */
export function scalingViews(analysis: Analysis): ScalingView[] {
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
    const rows = apps.map((app) => {
      const first = row(app, counts[0] as number);
      return [
        app,
        ...counts.map((workers, i) => {
          const at = row(app, workers);
          if (!at) return "—";
          if (i === 0 || !first) return fmt(at.rps.mean);
          const k = members.findIndex((m) => m.app === app && m.at === at);
          const tie = family.get(String(k))?.significant ? "" : "≈";
          return `${fmt(at.rps.mean)} (${tie}×${fmt(at.rps.mean / first.rps.mean, 2)})`;
        }),
      ];
    });
    return { scenario, header: ["app", ...counts.map((w) => `${w} worker(s)`)], rows };
  });
}

const pairOf = (a: SummaryRow | undefined, b: SummaryRow | undefined) =>
  a && b ? testPair(a.estimate, b.estimate) : undefined;
