// The reports' "Workers" section (--workers N): did every worker serve, how the load spread over
// them, what the primary costs, and with several counts (--workers 1,2,4) how req/s scaled.
// The figures and verdicts are analysis/scaling.ts's; rendered by markdown.ts, html.ts and extras.ts.

import type { Analysis } from "../analysis/analysis.ts";
import type { WorkersRow } from "../analysis/scaling.ts";
import { PAIRED_MIN_ROUNDS } from "../analysis/verdicts.ts";
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
  return analysis.scaling.map(({ scenario, counts, apps }) => ({
    scenario,
    header: ["app", ...counts.map((w) => `${w} worker(s)`)],
    rows: apps.map(({ app, cells }) => [
      app,
      ...cells.map((cell) => {
        if (!cell) return "—";
        if (cell.multiple === undefined) return fmt(cell.rps);
        return `${fmt(cell.rps)} (${cell.significant ? "" : "≈"}×${fmt(cell.multiple, 2)})`;
      }),
    ]),
  }));
}
