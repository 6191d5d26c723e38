// What the terminal summary (and summary.txt) adds after its closed-loop tables when the run
// measured more: the tables of sections.ts that say how the terminal shows them (the CPU cost,
// the capacity at the p99 budget, start-up, workers, versions, calibration). Plain text.

import type { Analysis } from "../analysis/analysis.ts";
import { sections } from "./sections.ts";
import { alignColumns } from "./text-table.ts";

/** Every table of sections.ts the terminal shows, under its caption. */
export function summaryExtras(analysis: Analysis): string[] {
  return sections(analysis).flatMap((section) =>
    section.parts.flatMap((part) =>
      part.tables.flatMap((t) =>
        t.terminal
          ? [
              [
                `== ${t.terminal.caption}`,
                ...alignColumns([t.terminal.header ?? t.header, ...t.rows]),
              ].join("\n"),
            ]
          : [],
      ),
    ),
  );
}
