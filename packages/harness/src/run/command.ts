// What a command line asks for: the help text, a report from earlier results, or a run, its
// values read in their forms with the defaults of its mode (--quick, --side-by-side,
// --calibrate, --precision) filled in from the table (flags.ts), and the rules between the
// modes and the other flags. The rules that need the contract, the tools or the machine follow
// in options.ts.

import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { CALIBRATION_APP } from "../analysis/calibration.ts";
import type { ReportRequest } from "../report/cli.ts";
import { EnvironmentError, UsageError } from "./errors.ts";
import { givenValue, modeOf, type ReadArgs, readArgs, type Values, valuesOf } from "./flags.ts";

export type Command =
  /** --help: a screen of the common flags; --help all: every flag. */
  | { readonly kind: "help"; readonly all: boolean }
  /** report/cli.ts's request: report, compare or readme, and their flags' values. */
  | { readonly kind: "report"; readonly request: ReportRequest }
  | { readonly kind: "run"; readonly values: Values }
  /** report/history-cli.ts's command line: the history of sessions. */
  | { readonly kind: "history"; readonly argv: readonly string[] };

/** The report flags, each with its command in report/cli.ts. */
const REPORT_COMMANDS = [
  ["report", "report"],
  ["update-readme", "readme"],
  ["compare", "compare"],
] as const;

/** The command a command line asks for; a UsageError or EnvironmentError if it cannot be. */
export function commandOf(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): Command {
  if (argv[0] === "history") return { kind: "history", argv: argv.slice(1) };
  const read = readArgs(argv, cwd);
  if (read.given.has("help")) return { kind: "help", all: read.positionals.includes("all") };
  const report = reportCommand(read);
  if (report) return { kind: "report", request: report };
  return { kind: "run", values: runValues(read, env) };
}

/**
 * --report, --compare or --update-readme with what goes with them, as report/cli.ts's request;
 * undefined for a run. Only the flags a report reads are read: the others it ignores.
 */
function reportCommand(read: ReadArgs): ReportRequest | undefined {
  const asked = REPORT_COMMANDS.filter(([key]) => read.given.has(key));
  if (asked.length > 1) {
    throw new UsageError(`${asked.map(([key]) => `--${key}`).join(" and ")}: one at a time`);
  }
  const [[flag, command] = []] = asked;
  const threshold = givenValue(read, "threshold");
  if (threshold !== undefined && flag !== "compare" && !read.given.has("against"))
    throw new UsageError("--threshold goes with --compare or --against");
  if (read.given.has("allow-mismatch") && flag !== "compare")
    throw new UsageError("--allow-mismatch goes with --compare");
  const bmf = exportOf(read, flag);
  if (flag === undefined || command === undefined) return undefined;
  if (read.given.has("max-steal") && flag !== "report")
    throw new UsageError(`--max-steal goes with a run or --report, not --${flag}`);
  const maxSteal = givenValue(read, "max-steal");
  return {
    command,
    files: read.given.get(flag) ?? [],
    ...(maxSteal !== undefined ? { maxSteal } : {}),
    ...(flag === "compare" && threshold !== undefined ? { threshold: threshold / 100 } : {}),
    ...(read.given.has("allow-mismatch") ? { allowMismatch: true } : {}),
    ...(bmf !== undefined ? { exportBmf: bmf } : {}),
  };
}

/** --export bmf FILE: with a run or --report, into a folder that can be written; the file. */
function exportOf(read: ReadArgs, flag: string | undefined): string | undefined {
  const file = givenValue(read, "export");
  if (file === undefined) return undefined;
  if (flag !== undefined && flag !== "report")
    throw new UsageError(`--export goes with a run or --report, not --${flag}`);
  const folder = dirname(file);
  if (!writableFolder(folder))
    throw new UsageError(`--export bmf ${file}: cannot write in ${folder}`);
  return file;
}

function writableFolder(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A run's values: each flag as given or its mode's default (app names given as arguments are
 * --apps), then the modes' own rules.
 */
function runValues(read: ReadArgs, env: Record<string, string | undefined>): Values {
  const named = [read.given.get("apps")?.[0], ...read.positionals].filter((a) => a !== undefined);
  const given = new Map(read.given);
  if (named.length > 0) given.set("apps", [named.join(",")]);
  const values: Values = {
    ...valuesOf({ ...read, given }, modeOf(given)),
    given: new Set(given.keys()),
  };
  if (values["side-by-side"]) sideLimits(values);
  if (values["fail-inconclusive"] && values.against === undefined)
    throw new UsageError("--fail-inconclusive goes with --against (its gate)");
  if (values.calibrate) calibrateLimits(values);
  else if (env.BENCH_EXTRA_WORK)
    throw new EnvironmentError(
      `BENCH_EXTRA_WORK is set: it slows ${CALIBRATION_APP} on purpose and is for --calibrate only; unset it (nothing was measured)`,
    );
  return values;
}

/** More than one server process per app: --workers other than 1, or auto. */
export const severalWorkers = (values: Pick<Values, "workers">) =>
  values.workers === "auto" || values.workers.length > 1 || values.workers[0] !== 1;

/**
 * What a side-by-side run does not do: one process per app, one count, closed loop, one host,
 * and the servers' core pinned (its idle time is what says a sample was saturated).
 */
function sideLimits(values: Values): void {
  const refused: [string, boolean][] = [
    ["--no-pin", values["no-pin"]],
    ["--workers other than 1", severalWorkers(values)],
    ["--rates", values.given.has("rates")],
    ["--profile", values.profile],
    ["a list of --connections", values.connections.length > 1],
    ["--server-host", values["server-host"] !== undefined],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`--side-by-side does not go with ${found[0]}`);
  if (values.against !== undefined && values["apps-root"] !== undefined)
    throw new UsageError(
      "--against checks out this repository's apps at the commit: not with --apps-root",
    );
}

/** --calibrate measures bun-bare against itself, the lockfile's Bun, one process, one count. */
function calibrateLimits(values: Values): void {
  const about = `--calibrate measures ${CALIBRATION_APP} against itself`;
  if (values.given.has("apps")) throw new UsageError(`${about}: give no apps`);
  if (values.against !== undefined || values.reference !== undefined)
    throw new UsageError(`${about}: no --against or --reference`);
  if (values.node || values.bun || values.deno)
    throw new UsageError("--calibrate runs the lockfile's Bun: no --node/--bun/--deno");
  if (severalWorkers(values) || values.given.has("rates") || values.profile)
    throw new UsageError("--calibrate goes with neither --workers, --rates nor --profile");
  if (values.connections.length > 1) throw new UsageError("--calibrate takes one connection count");
}
