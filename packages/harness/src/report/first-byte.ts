// The reports' "Time to first byte" section: for the streamed scenarios (sse, stream), how long
// a request waited for the first byte of its answer's body, beside how long the whole answer
// took. oha reports it (client.rs marks the body's first frame, from the request's start); wrk
// and autocannon do not, so a run with another tool has no section.

import { findScenario, STREAM_ROUTES } from "@bench/contract";
import type { Analysis, SummaryRow } from "../analysis/analysis.ts";
import { scenarioOfKey } from "../analysis/groups.ts";
import type { Interval } from "../analysis/stats.ts";
import { fmt } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const FIRST_BYTE_INTRO =
  "For the streamed answers: the time from a request's start to the first byte of its answer's " +
  "body (its first chunk; oha's figure, which wrk and autocannon do not report: run with " +
  "`--tool oha`), beside the whole answer's. Each is the median over valid samples of each " +
  "sample's percentile with its lowest–highest over those samples. A server that streams answers as it " +
  "makes them has its first byte out long before the last.";
// Stryker restore StringLiteral

export const FIRST_BYTE_HEADER = [
  "app",
  "first byte p50 ms (range)",
  "first byte p99 ms (range)",
  "whole answer p50 ms",
  "samples",
];

export interface FirstByteView {
  readonly group: string;
  readonly rows: string[][];
}

/** A scenario whose answer is streamed: server-sent events, or the long streamed body. */
export function isStreamed(scenario: string): boolean {
  const path = findScenario(scenario)?.path ?? "";
  return Object.values(STREAM_ROUTES).some((route) => path.split("?")[0] === route);
}

function cells(row: SummaryRow): string[] {
  const f = row.firstByteMs;
  if (!f) return [];
  const withRange = (value: number, r: Interval) =>
    `${fmt(value, 2)} (${fmt(r.low, 2)}–${fmt(r.high, 2)})`;
  return [
    row.app,
    withRange(f.p50, f.p50Range),
    withRange(f.p99, f.p99Range),
    fmt(row.latencyMs.p50, 2),
    String(f.samples),
  ];
}

/** One view per streamed scenario's table whose rows carry the figure, in the table's order. */
export function firstByteViews(analysis: Analysis): FirstByteView[] {
  return [...analysis.groups].flatMap(([group, g]) => {
    if (!isStreamed(scenarioOfKey(group))) return [];
    const rows = g.rows.filter((row) => row.firstByteMs !== undefined).map(cells);
    return rows.length > 0 ? [{ group, rows }] : [];
  });
}
