// Reports from results.json files: regenerate them, compare two runs, update the README.
// run.ts hands it --report, --compare and --update-readme (and writes the
// reports itself at the end of every run). Exit: 0 ok, 1 regression found, 2 usage or input.

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

const parseFlags = (args: string[]) => parseArgs({ args, allowPositionals: true, options: FLAGS });
type Values = ReturnType<typeof parseFlags>["values"];

function main(argv: string[], io: Io): number {
  const [command, ...rest] = argv;
  const { values, positionals } = parseFlags(rest);
  switch (command) {
    case "report":
      return report(positionals, values, io);
    case "compare":
      return compare(positionals, values, io);
    case "readme":
      return readme(positionals, values, io);
    default:
      throw new InputError(`unknown command ${JSON.stringify(command)} (report, compare, readme)`);
  }
}

/** --report: summary.txt, report.md and report.html (and --export bmf) again from a run. */
function report([given]: string[], values: Values, io: Io): number {
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
  const maxSteal = values["max-steal"];
  if (maxSteal !== undefined) results.manifest.settings.maxSteal = Number(maxSteal);
  const analysis = analyze(results);
  writeSummary(path, analysis);
  io.out(join(dirname(path), "summary.txt"));
  for (const written of writeReports(path, analysis.results, analysis)) io.out(written);
  const bmf = values["export-bmf"];
  if (bmf !== undefined) {
    writeBmf(bmf, analysis);
    io.out(bmf);
  }
  return 0;
}

/** --compare BASE NEW: 1 on a regression (or a failed, unmeasured or missing app), 2 on unlike runs. */
function compare([basePath, newPath]: string[], values: Values, io: Io): number {
  if (!basePath || !newPath)
    throw new InputError("compare needs two results.json files: base, new");
  const threshold =
    values.threshold === undefined ? DEFAULT_COMPARE.threshold : Number(values.threshold) / 100;
  const alpha = values.alpha === undefined ? DEFAULT_COMPARE.alpha : Number(values.alpha);
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
  if (mismatches.length > 0 && !values["allow-mismatch"]) {
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
function readme([given]: string[], values: Values, io: Io): number {
  if (!given) throw new InputError("readme needs a results.json");
  const path = resultsFile(given);
  const readmePath = values.readme ?? join(import.meta.dir, "..", "..", "..", "..", "README.md");
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

/** The command, its errors turned into exit 2 with one line: what the entry point runs. */
export function runCli(argv: string[], io: Io = TERMINAL): number {
  try {
    return main(argv, io);
  } catch (error) {
    io.err(`report: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

if (import.meta.main) {
  process.exitCode = runCli(process.argv.slice(2));
}
