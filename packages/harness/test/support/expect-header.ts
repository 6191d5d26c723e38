// What every report table's header and rows must agree on, for the table tests of the report
// modules (rates-table, startup-table, calibration-table, workers, ...).

import { expect } from "bun:test";

/** Every column of a table is named, each name once, and a row has one cell per column. */
export function expectHeaderOf(header: readonly string[], row: readonly string[] | undefined) {
  expect(header.filter((h) => h.trim() === "")).toEqual([]);
  expect(new Set(header).size).toBe(header.length);
  expect(row).toHaveLength(header.length);
}
