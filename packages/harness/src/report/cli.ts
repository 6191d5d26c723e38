// Reports from results.json files: regenerate them, compare two runs, update the README.
// run.ts hands it --report, --compare and --update-readme as a ReportRequest, read once from
// the command line's table (run/command.ts), and writes the reports itself at the end of every
// run; run as a script, it reads the same request from its own arguments (report FILE, compare
// BASE NEW, readme FILE). Exit: 0 ok, 1 regression found, 2 usage or input.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { analyze } from "../analysis/analysis.ts";
import { compareRuns, DEFAULT_COMPARE, GATING, runMismatches } from "../analysis/comparison.ts";
import { writeBmf } from "./bmf.ts";
import { formatComparison } from "./compare.ts";
import { InputError, loadResults, resultsFile, writeReports, writeSummary } from "./files.ts";
import { updateReadme } from "./readme.ts";

/** Where the command's lines go: the terminal, or a test's buffers. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const TERMINAL: Io = { out: (l) => console.log(l), err: (l) => console.error(l) };

const FLAGS = {
  threshold: { type: "string" },
  alpha: { type: "string" },
  "allow-mismatch": { type: "boolean" },
  readme: { type: "string" },
  "export-bmf": { type: "string" },
  "max-steal": { type: "string" },
} as const;

/** What a report command is asked, its values read in their forms. */
export interface ReportRequest {
  readonly command: "report" | "compare" | "readme";
  /** The results.json files (or run folders): one, or BASE and NEW for compare. */
  readonly files: readonly string[];
  /** compare: a slowdown beyond this share is a regression (DEFAULT_COMPARE's otherwise). */
  readonly threshold?: number;
  /** compare: the family-wise error rate (DEFAULT_COMPARE's otherwise). */
  readonly alpha?: number;
  /** compare: runs whose setups differ are compared anyway. */
  readonly allowMismatch?: boolean;
  /** readme: the README to write (this checkout's otherwise). */
  readonly readme?: string;
  /** report: the figures in Bencher Metric Format, to this file. */
  readonly exportBmf?: string;
  /** report: the samples re-analysed at this CPU steal threshold (%). */
  readonly maxSteal?: number;
}

const parseFlags = (args: string[]) => parseArgs({ args, allowPositionals: true, options: FLAGS });

/** The script's own command line as a request: `report FILE`, `compare BASE NEW`, `readme FILE`. */
function requestOf([command, ...rest]: string[]): ReportRequest {
  if (command !== "report" && command !== "compare" && command !== "readme")
    throw new InputError(`unknown command ${JSON.stringify(command)} (report, compare, readme)`);
  const { values, positionals } = parseFlags(rest);
  const number = (text: string | undefined, scale = 1) =>
    text === undefined ? undefined : Number(text) / scale;
  return {
    command,
    files: positionals,
    threshold: number(values.threshold, 100),
    alpha: number(values.alpha),
    allowMismatch: values["allow-mismatch"],
    readme: values.readme,
    exportBmf: values["export-bmf"],
    maxSteal: number(values["max-steal"]),
  };
}

function main(request: ReportRequest, io: Io): number {
  const { command, files } = request;
  if (command === "report") return report(files, request, io);
  if (command === "compare") return compare(files, request, io);
  return readme(files, request, io);
}

/** --report: summary.txt, report.md and report.html (and --export bmf) again from a run. */
function report([given]: readonly string[], request: ReportRequest, io: Io): number {
  if (!given) throw new InputError("report needs a results.json");
  const path = resultsFile(given);
  const results = loadResults(path);
  // A run killed outright (SIGKILL, a lost machine) never closed its results.json: it holds the
  // samples that finished, as an interrupted one does, and its reports must say so. The file
  // itself is left as it is.
  if (results.status === "running") {
    io.err(`report: ${path} was never closed (its run was killed): reported as interrupted`);
    results.status = "interrupted";
  }
  // --max-steal: the same samples re-analysed at another threshold (results.json is not written).
  const { maxSteal } = request;
  if (maxSteal !== undefined) results.manifest.settings.maxSteal = maxSteal;
  const analysis = analyze(results);
  writeSummary(path, analysis);
  io.out(join(dirname(path), "summary.txt"));
  for (const written of writeReports(path, analysis.results, analysis)) io.out(written);
  const bmf = request.exportBmf;
  if (bmf !== undefined) {
    writeBmf(bmf, analysis);
    io.out(bmf);
  }
  return 0;
}

/** --compare BASE NEW: 1 on a regression (or a failed, unmeasured or missing app), 2 on unlike runs. */
function compare([basePath, newPath]: readonly string[], request: ReportRequest, io: Io): number {
  if (!basePath || !newPath)
    throw new InputError("compare needs two results.json files: base, new");
  const threshold = request.threshold ?? DEFAULT_COMPARE.threshold;
  const alpha = request.alpha ?? DEFAULT_COMPARE.alpha;
  if (!(threshold > 0 && threshold < 1))
    throw new InputError("--threshold is a percentage between 0 and 100");
  if (!(alpha > 0 && alpha < 1)) throw new InputError("--alpha is a probability between 0 and 1");
  const options = { threshold, alpha };
  const base = loadResults(resultsFile(basePath));
  const next = loadResults(resultsFile(newPath));
  if (base.manifest.settings.sideBySide || next.manifest.settings.sideBySide) {
    throw new InputError(
      "compare takes runs measured one app at a time; a side-by-side run compares within " +
        "itself (--side-by-side, or --against GIT_REF for two commits)",
    );
  }
  const mismatches = runMismatches(base, next);
  if (mismatches.length > 0 && !request.allowMismatch) {
    io.err(
      `report: the runs were not measured alike, their req/s do not compare:\n  ${mismatches.join("\n  ")}\n` +
        "(--allow-mismatch compares them anyway, and says so in the output)",
    );
    return 2;
  }
  const rows = compareRuns(base, next, options);
  io.out(formatComparison(rows, options, mismatches));
  return rows.some((r) => GATING.includes(r.verdict)) ? 1 : 0;
}

/** --update-readme: the README's results section from a run measured one app at a time. */
function readme([given]: readonly string[], request: ReportRequest, io: Io): number {
  if (!given) throw new InputError("readme needs a results.json");
  const path = resultsFile(given);
  const readmePath = request.readme ?? join(import.meta.dir, "..", "..", "..", "..", "README.md");
  // The summary links the run's report, relative to where the README is.
  const reportDir = relative(dirname(resolve(readmePath)), dirname(resolve(path))) || ".";
  const analysis = analyze(loadResults(path));
  if (analysis.side) {
    throw new InputError(
      "readme's results section shows a run measured one app at a time, not a side-by-side run",
    );
  }
  writeFileSync(readmePath, updateReadme(readFileSync(readmePath, "utf8"), analysis, reportDir));
  io.out(`${readmePath}: results section updated from ${path}`);
  return 0;
}

/** `run`, its errors turned into exit 2 with one line. */
function refusing(io: Io, run: () => number): number {
  try {
    return run();
  } catch (error) {
    io.err(`report: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

/** A request: what ./benchmark.sh runs for --report, --compare and --update-readme. */
export const runReport = (request: ReportRequest, io: Io = TERMINAL): number =>
  refusing(io, () => main(request, io));

/** The script's command line: what the entry point runs. */
export const runCli = (argv: string[], io: Io = TERMINAL): number =>
  refusing(io, () => main(requestOf(argv), io));

if (import.meta.main) {
  process.exitCode = runCli(process.argv.slice(2));
}
