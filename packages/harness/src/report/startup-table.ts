// The reports' "Start-up" section: how long each app takes from its runtime's start to its first correct
// answer, and its memory then and at idle. One model, rendered by markdown.ts and html.ts.

import { IDLE_PAUSE_MS, type StartupRow } from "../analysis/startup.ts";
import { fmt } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const STARTUP_INTRO =
  "Every start of an app is measured: from its runtime's start (the exec that " +
  "scripts/start-app.sh stamps, so neither `bun run` nor the wrapper counts, on every row " +
  "alike; runs before 2026-11-23 and start scripts that stamp nothing count from spawning " +
  "`bun run start`) to its first correct answer to GET /, polled every " +
  `2 ms, and the server's resident memory right then and after ${IDLE_PAUSE_MS / 1000} s ` +
  "with no requests. Median (lowest–highest) over the starts; fresh starts (--startup) saw no " +
  "load at all, the others are the starts of the measured rounds.";
// Stryker restore StringLiteral

export const STARTUP_HEADER = [
  "app",
  "starts (fresh)",
  "ready ms",
  "RSS ready MiB",
  "RSS idle MiB",
];

const range = (s: StartupRow["readyMs"], digits: number) =>
  s.min === s.max
    ? fmt(s.median, digits)
    : `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;

export function startupCells(row: StartupRow): string[] {
  return [
    row.app,
    `${row.starts} (${row.fresh})`,
    range(row.readyMs, 0),
    fmt(row.rssReadyMiB, 1),
    range(row.rssIdleMiB, 1),
  ];
}

/** Fastest start first. */
