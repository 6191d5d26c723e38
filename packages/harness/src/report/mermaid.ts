// Mermaid bar charts (xychart-beta) of a run, which GitHub draws where report.md is read.

import type { Analysis, SummaryRow } from "../analysis/analysis.ts";
import { chartQualifiers } from "../analysis/trial-flags.ts";

export function xychart(title: string, labels: string[], values: number[], axis: string): string {
  const max = Math.max(...values);
  // A round top for the axis, a little above the tallest bar.
  const magnitude = 10 ** Math.floor(Math.log10(max || 1));
  const top = Math.ceil((max * 1.1) / magnitude) * magnitude;
  return [
    "```mermaid",
    "xychart-beta",
    `    title "${title}"`,
    `    x-axis [${labels.map((l) => `"${l}"`).join(", ")}]`,
    `    y-axis "${axis}" 0 --> ${top}`,
    `    bar [${values.map((v) => Math.round(v * 100) / 100).join(", ")}]`,
    "```",
  ].join("\n");
}

/** A bar that is not the server's best (a lower bound, or something else had the CPU). */
export const starred = (r: SummaryRow) => chartQualifiers(r).length > 0;

export const CHART_CAPTION =
  "Charts (an app marked * had load-generator-bound or generator-ceiling samples, so its bar is a lower bound, " +
  "or unsaturated, contended or machine-full samples, where neither the server nor the load " +
  "generator was saturated, something else had the CPU, or both shared full cores: not the server's best; ties and confidence intervals are in the tables):";

export function mermaidCharts(analysis: Analysis): string {
  const out: string[] = [];
  for (const [scenario, { rows }] of analysis.groups) {
    const measured = rows.filter((r) => r.rps.n > 0);
    if (measured.length === 0) continue;
    // Mermaid bars carry no annotations: a * on the label marks a bar that is not the
    // server's best (a lower bound, or a run something else limited).
    const labels = measured.map((r) => (starred(r) ? `${r.app}*` : r.app));
    out.push(
      xychart(
        `${scenario}: req/s (mean)`,
        labels,
        measured.map((r) => r.rps.mean),
        "req/s",
      ),
      xychart(
        `${scenario}: p99 latency (ms, median of samples)`,
        labels,
        measured.map((r) => r.latencyMs.p99),
        "ms",
      ),
    );
  }
  return out.join("\n\n");
}
