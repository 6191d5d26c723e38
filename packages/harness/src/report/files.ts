// Reading a results.json (checked against the schema) and writing the reports beside it.

import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { analyze } from "../analysis/analysis.ts";
import { type Results, schemaErrors } from "../results/schema.ts";
import { summaryExtras } from "./extras.ts";
import { htmlReport } from "./html.ts";
import { markdownReport } from "./markdown.ts";
import { formatSummary } from "./summary.ts";

export class InputError extends Error {}

/** A run's folder stands for the results.json in it; any other path is taken as given. */
export function resultsFile(path: string): string {
  if (!existsSync(path) || !statSync(path).isDirectory()) return path;
  const inside = join(path, "results.json");
  if (!existsSync(inside)) throw new InputError(`${path}: a folder without a results.json`);
  return inside;
}

export function loadResults(path: string): Results {
  if (!existsSync(path)) throw new InputError(`${path}: no such file`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new InputError(`${path}: not JSON`);
  }
  const errors = schemaErrors(value);
  if (errors.length > 0) {
    throw new InputError(
      `${path}: not a results.json of this version:\n  ${errors.slice(0, 5).join("\n  ")}`,
    );
  }
  return value as Results;
}

/** The terminal summary of a run (summary.txt): its tables, then what else it measured. */
export const summaryText = (analysis: ReturnType<typeof analyze>): string =>
  [formatSummary(analysis), ...summaryExtras(analysis)].join("\n\n");

/** Writes summary.txt next to results.json; returns the summary. */
export function writeSummary(resultsPath: string, analysis: ReturnType<typeof analyze>): string {
  const summary = summaryText(analysis);
  writeFileSync(join(dirname(resultsPath), "summary.txt"), `${summary}\n`);
  return summary;
}

/**
 * Writes report.md and report.html next to results.json; returns their paths. Both render
 * one analysis (`analysis`, or one computed here from `results`).
 */
export function writeReports(
  resultsPath: string,
  results: Results,
  analysis = analyze(results),
): string[] {
  const dir = dirname(resultsPath);
  const md = join(dir, "report.md");
  const html = join(dir, "report.html");
  writeFileSync(md, markdownReport(analysis));
  writeFileSync(html, htmlReport(analysis));
  return [md, html];
}
