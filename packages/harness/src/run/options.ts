// The harness's own command line, as benchmark.sh hands it over (already checked there; the
// checks here catch a harness run by hand).

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AppSpec, findApp, findScenario, type Runtime, type Scenario } from "@bench/contract";
import { CALIBRATION_APP } from "../analysis/calibration.ts";
import { REPO_ROOT } from "../apps/launch.ts";
import { findPostgres, PG_INSTALL } from "../apps/postgres-server.ts";
import { parseServerHost, type RemoteSpec } from "../hosts/remote.ts";
import type { ToolName } from "../load/parse.ts";
import { type ToolInfo, toolVersion } from "../load/tools.ts";
import { DEFAULT_SLO_P99_MS, parseRates, RateError, type RateSpec } from "../rates/rates.ts";
import {
  type AppRun,
  type RuntimeBuild,
  VERSION_SPEC,
  versionedName,
} from "../runtimes/runtime-versions.ts";

export interface Options {
  /** With --node/--bun/--deno, one per app and version of its runtime ("node-hono@22.23.3"). */
  readonly apps: AppRun[];
  readonly scenarios: Scenario[];
  /** api was not listed but joined as the middleware stages' baseline. */
  readonly apiAdded?: true;
  readonly durationSec: number;
  readonly warmupSec: number;
  /** The largest connection count (the only one, usually). */
  readonly connections: number;
  /** Every count to measure, as given: one trial each per app, scenario and round. */
  readonly connectionCounts: number[];
  /** Rounds: each app is started afresh once per round (a floor with --precision). */
  readonly trials: number;
  /** Samples (back-to-back load runs of durationSec) per process and scenario. */
  readonly samples: number;
  /**
   * --precision: add rounds until every mean and every comparison the summary makes has a 95%
   * CI half-width within this share, or maxTimeSec runs out.
   */
  readonly precision?: { readonly target: number; readonly maxTimeSec: number };
  readonly tool: ToolInfo;
  readonly outDir: string;
  readonly pin: boolean;
  readonly appsRoot: string;
  /** One extra, separately recorded trial per app and scenario under the CPU profiler. */
  readonly profile: boolean;
  /** Open-loop rates after each closed-loop trial (--rates); empty: none. */
  readonly rates: RateSpec[];
  /** --rates search: the capacity at the budget searched for in the last round (search.ts). */
  readonly search: boolean;
  /** The generator of the open-loop trials (oha), when there are rates. */
  readonly rateTool?: ToolInfo;
  /** The p99 budget for capacity at a latency budget, ms. */
  readonly sloP99Ms: number;
  /** The database scenarios' engine: SQLite in each app process, or a PostgreSQL server. */
  readonly db: DbEngine;
  /** The largest count of processes serving each app's port (--workers; BENCH_WORKERS). */
  readonly workers: number;
  /** Every count to measure, as given (--workers 1,2,4): each app starts once per count. */
  readonly workerCounts: number[];
  /** --calibrate: the app measured against itself and against itself with extra work. */
  readonly calibrate: boolean;
  /** Extra fresh starts per app, without load, for the start-up figures. */
  readonly startups: number;
  /** benchmark.sh's own command line, recorded as given. */
  readonly argv: string[];
  /** --node/--bun/--deno as given: the versions to resolve and install before the run. */
  readonly runtimeVersions: Partial<Record<Runtime, string[]>>;
  /** Those versions once installed (withBuilds); empty without the flags. */
  readonly builds: RuntimeBuild[];
  /** --server-host: the apps run on that machine, reached over SSH; the load generator here. */
  readonly server?: RemoteSpec;
  /** --side-by-side: two apps at once on the server's core, compared by CPU time per request. */
  readonly side?: SideOptions;
  /** --export bmf FILE: the run's figures in Bencher Metric Format, written at its end. */
  readonly exportBmf?: string;
}

export interface SideOptions {
  /** --reference: the row every other is measured against (default: the first named). */
  readonly reference?: string;
  /** --against GIT_REF: each app at that commit is measured against the working tree's. */
  readonly against?: string;
  /** --threshold: a change --against's verdicts call slower or faster beyond (a share). */
  readonly threshold?: number;
}

export class UsageError extends Error {}

function ratesOf(list: string): RateSpec[] {
  try {
    return parseRates(list);
  } catch (error) {
    throw new UsageError(error instanceof RateError ? error.message : String(error));
  }
}

function positiveInt(value: string | undefined, flag: string, min = 1): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function names<T extends { readonly name: string }>(
  list: string | undefined,
  find: (name: string) => T | undefined,
  kind: string,
) {
  const found = (list ?? "")
    .split(",")
    .filter(Boolean)
    .map((name) => {
      const item = find(name);
      if (!item) throw new UsageError(`unknown ${kind} "${name}"`);
      return item;
    });
  if (found.length === 0) throw new UsageError(`--${kind}s names no ${kind}`);
  const twice = found.find((item, i) => found.indexOf(item) !== i);
  if (twice !== undefined) {
    throw new UsageError(`--${kind}s gives ${kind} "${twice.name}" twice`);
  }
  return found;
}

/** More server processes than this per CPU only measure the scheduler (benchmark.sh agrees). */
export const MAX_WORKERS_PER_CPU = 4;

/** --workers N or a list (1,2,4), or auto: one per CPU but one, which the generator keeps. */
export function workersOf(value: string | undefined, cores = availableParallelism()): number[] {
  if (value === "auto") return [Math.max(1, cores - 1)];
  const counts = (value ?? "").split(",").map((n) => positiveInt(n, "--workers"));
  if (new Set(counts).size !== counts.length) {
    throw new UsageError(`--workers lists a count twice: ${value}`);
  }
  const most = Math.max(...counts);
  if (most > MAX_WORKERS_PER_CPU * cores) {
    throw new UsageError(
      `--workers ${most} is more than ${MAX_WORKERS_PER_CPU} per CPU (${MAX_WORKERS_PER_CPU * cores} on ${cores}): they would only measure the scheduler`,
    );
  }
  return counts;
}

export type DbEngine = "sqlite" | "postgres";

/** --db: an engine this machine has, for the database scenarios named, on this machine. */
function dbOf(
  value: string | undefined,
  scenarios: readonly Scenario[],
  remote: boolean,
  side: boolean,
  workerCounts: readonly number[],
): DbEngine {
  if (value !== "sqlite" && value !== "postgres") {
    throw new UsageError(`--db must be sqlite or postgres, got ${value}`);
  }
  const database = scenarios.find((s) => s.database);
  if (remote && database) {
    throw new UsageError(
      `the database scenarios (${database.name}) run on this machine only: not with --server-host`,
    );
  }
  if (value === "postgres" && !database) {
    throw new UsageError(
      "--db postgres serves the database scenarios: name one (-s db,queries,fortunes,updates)",
    );
  }
  if (value === "postgres" && side) {
    // Its CPU would be one server shared by both apps of a pair: not judged side by side yet.
    throw new UsageError("--db postgres runs one app at a time: not with --side-by-side");
  }
  if (value === "postgres" && workerCounts.length > 1) {
    // The server is pinned once, to the servers' CPUs, which a list of counts changes.
    throw new UsageError("--db postgres takes one --workers count, not a list");
  }
  if (value === "postgres" && findPostgres() === undefined) throw new UsageError(PG_INSTALL);
  return value;
}

/**
 * The flags benchmark.sh hands this harness (node:util parseArgs); everything after "--" is the
 * user's own command line, recorded as given.
 */
const FLAGS = {
  apps: { type: "string" },
  scenarios: { type: "string" },
  duration: { type: "string" },
  warmup: { type: "string" },
  connections: { type: "string" },
  trials: { type: "string" },
  // benchmark.sh passes its own; the same default here (options.test.ts holds them equal).
  samples: { type: "string", default: "3" },
  precision: { type: "string" },
  "max-time": { type: "string" },
  tool: { type: "string" },
  "tool-path": { type: "string" },
  out: { type: "string" },
  "no-pin": { type: "boolean", default: false },
  "apps-root": { type: "string" },
  profile: { type: "boolean", default: false },
  calibrate: { type: "boolean", default: false },
  startup: { type: "string", default: "0" },
  workers: { type: "string", default: "1" },
  rates: { type: "string" },
  "rate-tool-path": { type: "string" },
  "slo-p99": { type: "string" },
  node: { type: "string" },
  bun: { type: "string" },
  deno: { type: "string" },
  "server-host": { type: "string" },
  "server-dir": { type: "string" },
  "ssh-config": { type: "string" },
  "side-by-side": { type: "boolean", default: false },
  reference: { type: "string" },
  against: { type: "string" },
  threshold: { type: "string" },
  "export-bmf": { type: "string" },
  db: { type: "string", default: "sqlite" },
} as const;

const parseFlags = (argv: string[]) =>
  parseArgs({ args: argv, strict: true, allowPositionals: true, options: FLAGS });
type Values = ReturnType<typeof parseFlags>["values"];

export function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseFlags(argv);
  const tool = toolOf(values);
  if (!values.out) throw new UsageError("--out is required");
  const connectionCounts = connectionCountsOf(values.connections);
  const load = ratesOptionsOf(values);
  const workerCounts = workerCountsOf(values, connectionCounts.length > 1);
  const apps = names(values.apps, findApp, "app");
  if (values.calibrate && (apps.length !== 1 || apps[0]?.name !== CALIBRATION_APP)) {
    throw new UsageError(`--calibrate measures ${CALIBRATION_APP} against itself: give no apps`);
  }
  const runtimeVersions = versionsOf(values, apps);
  const server = serverOf(values);
  if (server) remoteLimits(values);
  const side = sideOptionsOf(values, apps);
  const scenarios = scenariosOf(values.scenarios);
  const db = dbOf(
    values.db,
    scenarios.scenarios,
    server !== undefined,
    side !== undefined,
    workerCounts,
  );
  return {
    apps,
    ...scenarios,
    durationSec: positiveInt(values.duration, "--duration"),
    warmupSec: positiveInt(values.warmup, "--warmup", 0),
    connections: Math.max(...connectionCounts),
    connectionCounts,
    trials: positiveInt(values.trials, "--trials"),
    samples: positiveInt(values.samples, "--samples"),
    ...precisionOf(values.precision, values["max-time"]),
    tool: { ...tool, version: toolVersion(tool.name, tool.path) },
    outDir: resolve(values.out),
    pin: !values["no-pin"],
    appsRoot: resolve(values["apps-root"] ?? REPO_ROOT),
    profile: values.profile,
    calibrate: values.calibrate,
    startups: positiveInt(values.startup, "--startup", 0),
    workers: Math.max(...workerCounts),
    workerCounts,
    rates: load.rates,
    search: load.search,
    ...(load.ratePath
      ? {
          rateTool: {
            name: "oha" as const,
            path: load.ratePath,
            version: toolVersion("oha", load.ratePath),
          },
        }
      : {}),
    sloP99Ms: load.sloP99Ms,
    db,
    argv: positionals,
    runtimeVersions,
    builds: [],
    ...(server ? { server } : {}),
    ...(side ? { side } : {}),
    ...(values["export-bmf"] ? { exportBmf: resolve(values["export-bmf"]) } : {}),
  };
}

/** The closed-loop load generator: its name and a path that exists. */
function toolOf(values: Values): { name: ToolName; path: string } {
  const name = values.tool as ToolName;
  if (!["oha", "wrk", "autocannon"].includes(name)) throw new UsageError(`unknown tool ${name}`);
  const path = values["tool-path"];
  if (!path || !existsSync(path)) throw new UsageError(`--tool-path ${path} does not exist`);
  return { name, path };
}

/** --connections: one count or a list, each positive, none twice. */
function connectionCountsOf(list: string | undefined): number[] {
  const counts = (list ?? "").split(",").map((c) => positiveInt(c, "--connections"));
  if (new Set(counts).size !== counts.length) {
    throw new UsageError(`--connections lists a count twice: ${list}`);
  }
  return counts;
}

/** --rates (offered rates, or "search"), the oha that sends them, and --slo-p99, checked. */
function ratesOptionsOf(values: Values): {
  rates: RateSpec[];
  search: boolean;
  ratePath?: string;
  sloP99Ms: number;
} {
  const search = values.rates === "search";
  const rates = values.rates === undefined || search ? [] : ratesOf(values.rates);
  const ratePath = values["rate-tool-path"];
  if (search && values.precision !== undefined)
    throw new UsageError("--rates search goes in the last round, which --precision does not fix");
  if (search && (values.workers ?? "").includes(","))
    throw new UsageError("--rates search finds one capacity per app: give --workers one count");
  const open = search || rates.length > 0;
  if (open && (!ratePath || !existsSync(ratePath))) {
    throw new UsageError(`--rates needs oha: --rate-tool-path ${ratePath} does not exist`);
  }
  const sloP99Ms = Number(values["slo-p99"] ?? DEFAULT_SLO_P99_MS);
  if (!(sloP99Ms > 0))
    throw new UsageError(`--slo-p99 must be a number of ms above 0, got ${values["slo-p99"]}`);
  return { rates, search, ...(open ? { ratePath } : {}), sloP99Ms };
}

/** --workers: a count or a list, not beside a list of --connections; --profile takes one. */
function workerCountsOf(values: Values, connectionList: boolean): number[] {
  const counts = workersOf(values.workers);
  const workers = Math.max(...counts);
  if (counts.length > 1 && connectionList) {
    throw new UsageError("--connections and --workers take a list one at a time, not both");
  }
  if (values.profile && workers > 1) {
    throw new UsageError(
      `--profile profiles one process: it does not go with --workers ${workers}`,
    );
  }
  return counts;
}

/** A share from a percentage above 0 and below 100 ("2.5" → 0.025), or a UsageError. */
function percentOf(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0 && n < 100)) {
    throw new UsageError(`${flag} takes a percentage above 0 and below 100, got "${text}"`);
  }
  return n / 100;
}

/**
 * --side-by-side and its companions (--reference, --against, --threshold), checked against
 * the rest of the command line; undefined without them. --against implies --side-by-side.
 */
export function sideOptionsOf(
  values: Record<string, unknown>,
  apps: readonly { name: string; runtime: string }[],
): SideOptions | undefined {
  const reference = values.reference as string | undefined;
  const against = values.against as string | undefined;
  const threshold = values.threshold as string | undefined;
  if (!values["side-by-side"] && against === undefined) {
    if (reference !== undefined) throw new UsageError("--reference goes with --side-by-side");
    if (threshold !== undefined)
      throw new UsageError("--threshold goes with --against (or --compare)");
    return undefined;
  }
  sideLimits(values);
  const names = apps.map((a) => a.name);
  if (reference !== undefined && !names.includes(reference)) {
    throw new UsageError(
      `--reference ${reference} is not one of the apps to run (${names.join(", ")})`,
    );
  }
  const perApp = ["node", "bun", "deno"].some((r) => values[r] !== undefined);
  if (perApp && against === undefined) versionsPaired(values, apps);
  if (reference !== undefined && (perApp || against !== undefined || values.calibrate === true)) {
    throw new UsageError(
      "--reference chooses among apps: with --against, --calibrate or a runtime's versions each app is its own reference",
    );
  }
  if (against !== undefined && (perApp || values.calibrate === true)) {
    throw new UsageError(
      "--against compares two commits: not with --calibrate or --node/--bun/--deno",
    );
  }
  if (against !== undefined && values["apps-root"] !== undefined) {
    throw new UsageError(
      "--against checks out this repository's apps at the commit: not with --apps-root",
    );
  }
  if (against !== undefined && (against === "" || against.startsWith("-"))) {
    throw new UsageError(`--against takes a git commit, branch or tag, got "${against}"`);
  }
  if (threshold !== undefined && against === undefined) {
    throw new UsageError("--threshold goes with --against (or --compare)");
  }
  return {
    ...(reference !== undefined ? { reference } : {}),
    ...(against !== undefined ? { against } : {}),
    ...(threshold !== undefined ? { threshold: percentOf(threshold, "--threshold") } : {}),
  };
}

/**
 * With --node/--bun/--deno each app's versions are measured against its first: every app
 * needs two or more, or it would be started for nothing and reported nowhere.
 */
function versionsPaired(
  values: Record<string, unknown>,
  apps: readonly { name: string; runtime: string }[],
): void {
  const count = (runtime: string) =>
    String(values[runtime] ?? "")
      .split(",")
      .filter(Boolean).length;
  const alone = apps.filter((a) => count(a.runtime) < 2);
  if (alone.length > 0) {
    throw new UsageError(
      `--side-by-side with versions measures each app's versions against its first: ${alone
        .map(
          (a) =>
            `${a.name} would run on one ${a.runtime} (give --${a.runtime} two or more versions, or leave it out)`,
        )
        .join("; ")}`,
    );
  }
}

/**
 * What a side-by-side run does not do: one process per app, one count, closed loop, one host,
 * and the servers' core pinned (its idle time is what says a sample was saturated).
 */
function sideLimits(values: Record<string, unknown>): void {
  const refused: [string, boolean][] = [
    ["--no-pin", values["no-pin"] === true],
    ["--workers other than 1", values.workers !== undefined && values.workers !== "1"],
    ["--rates", values.rates !== undefined],
    ["--profile", values.profile === true],
    ["a list of --connections", String(values.connections ?? "").includes(",")],
    ["--server-host", values["server-host"] !== undefined],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`--side-by-side does not go with ${found[0]}`);
}

/** --server-host, --server-dir and --ssh-config as a RemoteSpec; undefined without the first. */
export function serverOf(values: {
  "server-host"?: string | undefined;
  "server-dir"?: string | undefined;
  "ssh-config"?: string | undefined;
}): RemoteSpec | undefined {
  const text = values["server-host"];
  if (text === undefined) {
    if (values["server-dir"] !== undefined)
      throw new UsageError("--server-dir goes with --server-host");
    if (values["ssh-config"] !== undefined)
      throw new UsageError("--ssh-config goes with --server-host");
    return undefined;
  }
  const parsed = parseServerHost(text);
  if (typeof parsed === "string") throw new UsageError(parsed);
  const config = values["ssh-config"];
  if (config !== undefined && !existsSync(config)) {
    throw new UsageError(`--ssh-config ${config} does not exist`);
  }
  const dir = values["server-dir"] ?? REPO_ROOT;
  if (!dir.startsWith("/"))
    throw new UsageError(`--server-dir takes an absolute path, got '${dir}'`);
  return { ...parsed, dir, ...(config !== undefined ? { sshConfig: resolve(config) } : {}) };
}

/**
 * What a run across two hosts does not do yet, refused before anything starts: each needs a
 * part of this machine on the server's (a runtime cache, a do-nothing server, the spin loop).
 */
function remoteLimits(values: Record<string, unknown>): void {
  const refused: [string, boolean][] = [
    ["--node/--bun/--deno", ["node", "bun", "deno"].some((r) => values[r] !== undefined)],
    ["--calibrate", values.calibrate === true],
    ["--rates search", values.rates === "search"],
    ["--apps-root", values["apps-root"] !== undefined],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`${found[0]} does not go with --server-host yet`);
}

/** The scenario every production-middleware stage is measured against (its tax). */
export const BASELINE_SCENARIO = "api";

/** The scenarios as listed, with api first when a middleware stage is among them and api is not. */
export function scenariosOf(list: string | undefined): Pick<Options, "scenarios" | "apiAdded"> {
  const scenarios = names(list, findScenario, "scenario");
  const api = findScenario(BASELINE_SCENARIO);
  const needsApi =
    scenarios.some((s) => s.middleware) && !scenarios.some((s) => s.name === BASELINE_SCENARIO);
  return needsApi && api ? { scenarios: [api, ...scenarios], apiAdded: true } : { scenarios };
}

/** With --precision and no --max-time, rounds stop after this long. */
export const DEFAULT_MAX_TIME_SEC = 600;

/** "10m", "90s", "1h", or seconds: the time --precision may take. */
export function durationOf(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  const n = Number(m?.[1]);
  if (!m || !(n > 0)) {
    throw new UsageError(`--max-time takes a duration like 90s, 10m or 1h, got "${text}"`);
  }
  return n * ({ s: 1, m: 60, h: 3600 }[m[2] ?? "s"] as number);
}

function precisionOf(
  pct: string | undefined,
  maxTime: string | undefined,
): { precision?: Options["precision"] } {
  if (pct === undefined) {
    if (maxTime !== undefined) throw new UsageError("--max-time goes with --precision");
    return {};
  }
  const target = Number(pct);
  if (!(target > 0 && target < 100)) {
    throw new UsageError(`--precision takes a percentage above 0 and below 100, got "${pct}"`);
  }
  const maxTimeSec = maxTime === undefined ? DEFAULT_MAX_TIME_SEC : durationOf(maxTime);
  return { precision: { target: target / 100, maxTimeSec } };
}

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno"];

/** --node 22,24 and the like: lists of versions, each for a runtime some app of the run uses. */
export function versionsOf(
  values: Partial<Record<Runtime, string | undefined>>,
  apps: readonly AppSpec[],
): Partial<Record<Runtime, string[]>> {
  const out: Partial<Record<Runtime, string[]>> = {};
  for (const runtime of RUNTIMES) {
    const list = values[runtime];
    if (list === undefined) continue;
    const specs = list.split(",");
    const bad = specs.find((spec) => !VERSION_SPEC.test(spec));
    if (bad !== undefined) {
      throw new UsageError(
        `--${runtime} takes versions like 22, 22.18 or 22.18.0, comma-separated, got "${list}"`,
      );
    }
    if (new Set(specs).size !== specs.length) {
      throw new UsageError(`--${runtime} lists a version twice: ${list}`);
    }
    if (!apps.some((app) => app.runtime === runtime)) {
      throw new UsageError(`--${runtime} ${list}: none of the apps to run is a ${runtime} app`);
    }
    out[runtime] = specs;
  }
  return out;
}

/** The run's apps once the versions are installed: each app of a listed runtime once per version. */
export function withBuilds(options: Options, builds: readonly RuntimeBuild[]): Options {
  const apps = options.apps.flatMap((app): AppRun[] => {
    const mine = builds.filter((b) => b.runtime === app.runtime);
    if (mine.length === 0) return [app];
    return mine.map((build) => ({ ...app, name: versionedName(app.name, build.version), build }));
  });
  return { ...options, apps, builds: [...builds] };
}
