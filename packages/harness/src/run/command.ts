// What a command line asks for: the help text, a report from earlier results, or a run, with
// the defaults of its mode (--quick, --side-by-side, --calibrate, --precision) filled in and
// the forms of its values checked, in the order benchmark.sh always checked them. The rules
// that need the contract, the tools or the machine follow in options.ts.

import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { CALIBRATION_APP } from "../analysis/calibration.ts";
import {
  DEFAULTS,
  EnvironmentError,
  PRECISION_FLOOR,
  QUICK,
  type ReadArgs,
  readArgs,
  SIDE,
  UsageError,
} from "./flags.ts";
import { maxStealOf, percentOf } from "./forms.ts";

/** A run's flags once read, by key, as strings: what options.ts turns into Options. */
export interface Values {
  readonly apps: string;
  readonly scenarios?: string;
  readonly duration: string;
  readonly warmup: string;
  readonly connections: string;
  readonly rounds: string;
  readonly samples: string;
  readonly "max-steal"?: string;
  readonly precision?: string;
  readonly "max-time"?: string;
  readonly tool?: string;
  readonly output?: string;
  readonly "no-pin": boolean;
  readonly "apps-root"?: string;
  readonly profile: boolean;
  readonly calibrate: boolean;
  readonly startup: string;
  readonly workers: string;
  readonly rates?: string;
  readonly "slo-p99"?: string;
  readonly node?: string;
  readonly bun?: string;
  readonly deno?: string;
  readonly "server-host"?: string;
  readonly "server-dir"?: string;
  readonly "ssh-config"?: string;
  readonly "side-by-side": boolean;
  readonly reference?: string;
  readonly against?: string;
  readonly threshold?: string;
  readonly "fail-inconclusive": boolean;
  readonly "export-bmf"?: string;
  readonly db?: string;
  readonly history?: string;
  readonly "no-history": boolean;
  readonly sessions?: string;
  readonly spread?: string;
  /** Rounds as given (-n), not as the mode's default filled them in. */
  readonly "rounds-given": boolean;
  /** Not a flag: a campaign's session runs its apps in the order this seed shuffles. */
  readonly "order-seed"?: string;
}

export type Command =
  /** --help: a screen of the common flags; --help all: every flag. */
  | { readonly kind: "help"; readonly all: boolean }
  /** report/cli.ts's command line: report, compare or readme, and their flags. */
  | { readonly kind: "report"; readonly argv: readonly string[] }
  | { readonly kind: "run"; readonly values: Values }
  /** history/cli.ts's command line: the history of sessions. */
  | { readonly kind: "history"; readonly argv: readonly string[] };

const REPORT_COMMANDS: Record<string, string> = {
  report: "report",
  "update-readme": "readme",
  compare: "compare",
};

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
  if (report) return { kind: "report", argv: report };
  return { kind: "run", values: runValues(read, env) };
}

const one = (read: ReadArgs, key: string): string | undefined => read.given.get(key)?.[0];

/** --report, --compare or --update-readme with what goes with them; undefined for a run. */
function reportCommand(read: ReadArgs): string[] | undefined {
  const asked = Object.keys(REPORT_COMMANDS).filter((k) => read.given.has(k));
  if (asked.length > 1) {
    throw new UsageError(`${asked.map((k) => `--${k}`).join(" and ")}: one at a time`);
  }
  const [flag] = asked;
  const threshold = one(read, "threshold");
  if (threshold !== undefined) {
    percentOf(threshold, "--threshold");
    if (flag !== "compare" && !read.given.has("against"))
      throw new UsageError("--threshold goes with --compare or --against");
  }
  if (read.given.has("allow-mismatch") && flag !== "compare")
    throw new UsageError("--allow-mismatch goes with --compare");
  const bmf = exportOf(read, flag);
  const maxSteal = one(read, "max-steal");
  if (flag === undefined) return undefined;
  if (maxSteal !== undefined && flag !== "report")
    throw new UsageError(`--max-steal goes with a run or --report, not --${flag}`);
  return [
    REPORT_COMMANDS[flag] as string,
    ...(read.given.get(flag) ?? []),
    ...(maxSteal !== undefined ? ["--max-steal", String(maxStealOf(maxSteal))] : []),
    ...(flag === "compare" && threshold !== undefined ? ["--threshold", threshold] : []),
    ...(read.given.has("allow-mismatch") ? ["--allow-mismatch"] : []),
    ...(bmf !== undefined ? ["--export-bmf", bmf] : []),
  ];
}

/** --export bmf FILE: its format, where it goes, and with what; the file's path. */
function exportOf(read: ReadArgs, flag: string | undefined): string | undefined {
  const given = read.given.get("export");
  if (!given) return undefined;
  const [format, file] = given as [string, string];
  if (format !== "bmf")
    throw new UsageError(`--export knows one format, bmf (Bencher Metric Format), got '${format}'`);
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

/** A run's values: its mode's defaults under what was given, and the modes' own rules. */
function runValues(read: ReadArgs, env: Record<string, string | undefined>): Values {
  const g = (key: string) => one(read, key);
  const has = (key: string) => read.given.has(key);
  const named = [g("apps"), ...read.positionals].filter((a) => a !== undefined).join(",");
  const side = has("side-by-side") || has("against");
  const calibrate = has("calibrate");
  const quick = has("quick") ? QUICK : undefined;
  const mode = side ? SIDE : undefined;
  if (side) sideLimits(read);
  if (has("fail-inconclusive") && !has("against"))
    throw new UsageError("--fail-inconclusive goes with --against (its gate)");
  if (calibrate) calibrateLimits(read, named);
  else if (env.BENCH_EXTRA_WORK)
    throw new EnvironmentError(
      "BENCH_EXTRA_WORK is set: it slows bun-bare on purpose and is for --calibrate only; unset it (nothing was measured)",
    );
  // Twice the rounds for --calibrate: its detection rates are over subsamples of a default run.
  const rounds = (mode ?? DEFAULTS).rounds * (calibrate ? 2 : 1);
  // --precision adds rounds as it needs them, from the fewest that give an interval.
  const floor = g("precision") !== undefined && !side && !calibrate;
  const roundsAsked = g("rounds") ?? String(quick?.rounds ?? (floor ? PRECISION_FLOOR : rounds));
  const pick = (key: "duration" | "warmup" | "connections" | "samples") =>
    g(key) ?? String(quick?.[key] ?? (mode as Partial<typeof DEFAULTS>)?.[key] ?? DEFAULTS[key]);
  const text = (key: string) => (g(key) !== undefined ? { [key]: g(key) } : {});
  return {
    apps: calibrate ? CALIBRATION_APP : named || "all",
    ...(g("scenario") !== undefined ? { scenarios: g("scenario") } : {}),
    duration: pick("duration"),
    warmup: pick("warmup"),
    connections: pick("connections"),
    rounds: roundsAsked,
    samples: pick("samples"),
    ...text("max-steal"),
    ...text("precision"),
    ...text("max-time"),
    ...text("tool"),
    ...text("output"),
    "no-pin": has("no-pin"),
    ...text("apps-root"),
    profile: has("profile"),
    calibrate,
    startup: g("startup") ?? "0",
    workers: g("workers") ?? "1",
    ...text("rates"),
    ...text("slo-p99"),
    ...text("node"),
    ...text("bun"),
    ...text("deno"),
    ...text("server-host"),
    ...text("server-dir"),
    ...text("ssh-config"),
    "side-by-side": side,
    ...text("reference"),
    ...text("against"),
    ...text("threshold"),
    "fail-inconclusive": has("fail-inconclusive"),
    ...(read.given.has("export") ? { "export-bmf": read.given.get("export")?.[1] } : {}),
    ...text("db"),
    ...text("history"),
    "no-history": has("no-history"),
    ...text("sessions"),
    ...text("spread"),
    "rounds-given": has("rounds"),
  } as Values;
}

/**
 * What a side-by-side run does not do: one process per app, one count, closed loop, one host,
 * and the servers' core pinned (its idle time is what says a sample was saturated).
 */
function sideLimits(read: ReadArgs): void {
  const g = (key: string) => one(read, key);
  const refused: [string, boolean][] = [
    ["--no-pin", read.given.has("no-pin")],
    ["--workers other than 1", g("workers") !== undefined && g("workers") !== "1"],
    ["--rates", g("rates") !== undefined],
    ["--profile", read.given.has("profile")],
    ["a list of --connections", (g("connections") ?? "").includes(",")],
    ["--server-host", g("server-host") !== undefined],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`--side-by-side does not go with ${found[0]}`);
  const against = g("against");
  if (against === undefined) return;
  if (against.startsWith("-"))
    throw new UsageError(`--against takes a git commit, branch or tag, got '${against}'`);
  if (g("apps-root") !== undefined)
    throw new UsageError(
      "--against checks out this repository's apps at the commit: not with --apps-root",
    );
}

/** --calibrate measures bun-bare against itself, the lockfile's Bun, one process, one count. */
function calibrateLimits(read: ReadArgs, named: string): void {
  const has = (key: string) => read.given.has(key);
  const about = `--calibrate measures ${CALIBRATION_APP} against itself`;
  if (named !== "") throw new UsageError(`${about}: give no apps`);
  if (has("against") || has("reference"))
    throw new UsageError(`${about}: no --against or --reference`);
  if (has("node") || has("bun") || has("deno"))
    throw new UsageError("--calibrate runs the lockfile's Bun: no --node/--bun/--deno");
  if ((one(read, "workers") ?? "1") !== "1" || has("rates") || has("profile"))
    throw new UsageError("--calibrate goes with neither --workers, --rates nor --profile");
  if ((one(read, "connections") ?? "").includes(","))
    throw new UsageError("--calibrate takes one connection count");
}
