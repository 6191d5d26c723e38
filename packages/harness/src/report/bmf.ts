// --export bmf FILE: the run's figures in Bencher Metric Format, so a team can keep their
// history in an existing continuous-benchmarking service (`bencher run --adapter json --file
// FILE`) instead of a home-made one. One benchmark per app and table ("bun-hono api"), each
// figure with its 95% interval where the analysis has one:
// - throughput: mean req/s over processes (Bencher's built-in measure, operations/s);
// - latency: the median of the samples' p99, in ns (Bencher's built-in unit);
// - cpu-per-request: a side-by-side row's CPU time per request, ns;
// - cost-ratio: a side-by-side row's CPU time per request relative to its reference (1: the
//   same; with --against, above 1 is slower than the commit it was compared with).
// Renders the one analysis; computes nothing of its own.

import type { Analysis } from "../analysis/analysis.ts";
import type { Interval } from "../analysis/stats.ts";
import { writeJson } from "../common/json-file.ts";

export interface Metric {
  readonly value: number;
  readonly lower_value?: number;
  readonly upper_value?: number;
}

export type Bmf = Record<string, Record<string, Metric>>;

const metric = (value: number, ci?: Interval): Metric =>
  ci ? { value, lower_value: ci.low, upper_value: ci.high } : { value };

/** The analysis as BMF JSON: only what was measured, never a NaN. */
export function bmfOf(analysis: Analysis): Bmf {
  const out: Bmf = {};
  for (const [key, group] of analysis.groups) {
    for (const row of group.rows) {
      if (row.rps.n === 0) continue;
      out[`${row.app} ${key}`] = {
        throughput: metric(row.rps.mean, row.ci),
        ...(Number.isFinite(row.latencyMs.p99) ? { latency: metric(row.latencyMs.p99 * 1e6) } : {}),
      };
    }
  }
  for (const [scenario, group] of analysis.side?.groups ?? []) {
    for (const row of group.rows) {
      if (row.pairs === 0 || !Number.isFinite(row.nsPerRequest.mean)) continue;
      out[`${row.app} ${scenario}`] = {
        "cpu-per-request": metric(row.nsPerRequest.mean, row.nsPerRequest.ci),
        ...(row.reference && Number.isFinite(row.ratio)
          ? { "cost-ratio": metric(row.ratio, row.ci) }
          : {}),
      };
    }
  }
  return out;
}

export function writeBmf(file: string, analysis: Analysis): void {
  writeJson(file, bmfOf(analysis));
}
