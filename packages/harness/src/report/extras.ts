// What the terminal summary (and summary.txt) adds after its closed-loop tables when the run
// measured more: capacity at the p99 budget (--rates), start-up figures, how the workers shared
// the load (--workers), and each app across its runtime's versions (--node, --bun, --deno).
// Plain text.

import type { Analysis } from "../analysis/analysis.ts";
import { workersRows } from "../analysis/scaling.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
  calibrationSections,
} from "./calibration-table.ts";
import { CPU_COST_HEADER, cpuCostViews } from "./cpu-cost.ts";
import { rateViews } from "./rates-table.ts";
import { startupCells, startupTable } from "./startup-table.ts";
import { alignColumns } from "./text-table.ts";
import { versionViews } from "./versions.ts";
import { scalingViews, WORKERS_HEADER, workersCells } from "./workers.ts";

export function summaryExtras(analysis: Analysis): string[] {
  const { results } = analysis;
  const out: string[] = [];
  const budget = results.manifest.settings.sloP99Ms;
  for (const v of rateViews(results)) {
    out.push(
      [
        `== ${v.scenario}: capacity at p99 ≤ ${budget} ms (open loop, oha --latency-correction)`,
        ...alignColumns([["app", "capacity", "how"], ...v.capacity]),
      ].join("\n"),
    );
  }
  for (const v of cpuCostViews(analysis)) {
    out.push(
      [
        `== ${v.group}: CPU time per request, one app at a time (× the cheapest; ≈ not significant)`,
        ...alignColumns([CPU_COST_HEADER, ...v.rows]),
      ].join("\n"),
    );
  }
  const starts = startupTable(results);
  if (starts.length > 0) {
    out.push(
      [
        "== start-up: runtime start to first correct answer; RSS when ready and after 1 s idle (median, range)",
        ...alignColumns([
          ["app", "starts (fresh)", "ready ms", "RSS ready MiB", "RSS idle MiB"],
          ...starts.map(startupCells),
        ]),
      ].join("\n"),
    );
  }
  const workers = workersRows(results);
  if (workers.length > 0) {
    out.push(
      [
        "== workers: how many held connections; CPU and connections per worker, busiest first",
        ...alignColumns([WORKERS_HEADER, ...workers.map(workersCells)]),
      ].join("\n"),
    );
  }
  for (const v of scalingViews(analysis)) {
    out.push(
      [
        `== ${v.scenario}: req/s by worker count (× the first; ≈ not significant)`,
        ...alignColumns([v.header, ...v.rows]),
      ].join("\n"),
    );
  }
  for (const v of calibrationSections(analysis)) {
    out.push(
      [
        `== calibration: ${calibrationCaption(v)}`,
        ...alignColumns([CALIBRATION_HEADER, ...calibrationCells(v)]),
      ].join("\n"),
    );
  }
  for (const v of versionViews(analysis)) {
    out.push(
      [
        `== ${v.group}: req/s by ${v.runtime} version (% of the first; ≈ not significant)`,
        ...alignColumns([v.header, ...v.rows]),
      ].join("\n"),
    );
  }
  return out;
}
