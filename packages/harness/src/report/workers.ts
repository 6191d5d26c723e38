// The reports' "Workers" section (--workers N): did every worker serve, how the load spread over
// them, and what the primary costs. One model, rendered by markdown.ts, html.ts and extras.ts.

import type { Results, Trial } from "../schema.ts";
import { median } from "../stats.ts";
import { fmt } from "./format.ts";

export const WORKERS_INTRO =
  "Each app served its port from several processes (--workers). Per app and scenario, over " +
  "its trials: how many workers held connections halfway through a trial (the fewest in any " +
  "trial), each worker's CPU and connections (median per rank, busiest first), and the " +
  "memory of the primary alone and of the whole tree. Node's cluster hands connections out " +
  "in turn from its primary; with reusePort (Bun, and @elysiajs/node) the kernel spreads them " +
  "by a hash of the client's address and port, so an uneven spread is a finding, not noise.";

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
  const keys = [...new Set(withWorkers.map((t) => `${t.app}\u0000${t.scenario}`))];
  return keys.map((key) => {
    const [app, scenario] = key.split("\u0000") as [string, string];
    const trials = withWorkers.filter((t) => t.app === app && t.scenario === scenario);
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
