// A run's Options from its values (command.ts has read them in their forms and filled in its
// mode's defaults, flags.ts): the rules between its flags, the apps and scenarios against the
// contract, and what it needs of this machine (environment.ts). Every refusal is a UsageError
// or an EnvironmentError, before anything starts.

import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  APPS,
  type AppSpec,
  findScenario,
  isH2c,
  isStage,
  loadedByWsLoad,
  type Runtime,
  SCENARIOS,
  type Scenario,
  STANDARD_SCENARIOS,
} from "@bench/contract";
import { mulberry32 } from "../analysis/random.ts";
import { findPostgres, PG_INSTALL } from "../apps/postgres-server.ts";
import type { DbEngine } from "../common/engine.ts";
import { REPO_ROOT } from "../common/root.ts";
import { defaultHistory } from "../history/store.ts";
import type { RemoteSpec } from "../hosts/remote.ts";
import type { ToolName } from "../load/parse.ts";
import { type ToolInfo, toolVersion } from "../load/tools.ts";
import type { RateSpec } from "../rates/rates.ts";
import { type AppRun, type RuntimeBuild, versionedName } from "../runtimes/runtime-versions.ts";
import { commandOf, severalWorkers } from "./command.ts";
import { chooseTool, needCommand, rateTool, roomFor, usableOutput, wsTool } from "./environment.ts";
import { EnvironmentError, UsageError } from "./errors.ts";
import { BASELINE_SCENARIO, DATABASE_SCENARIOS, type Values } from "./flags.ts";
import { names, workersOf } from "./forms.ts";

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
  readonly rounds: number;
  /** Samples (back-to-back load runs of durationSec) per process and scenario. */
  readonly samples: number;
  /** --max-steal: a sample with this much CPU steal (%) on the server's core is re-taken. */
  readonly maxSteal: number;
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
  /** The generator of the WebSocket scenarios (ws-load), when there are any. */
  readonly wsTool?: ToolInfo;
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
  /** ./benchmark.sh's command line, recorded as given. */
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
  /**
   * --reference one at a time: the app every other's req/s is recorded against in the history
   * (a ratio paired by round); absent, the first app named.
   */
  readonly reference?: string;
  /** The history this run records itself in (a file or a postgres:// URL); absent: not recorded. */
  readonly history?: string;
}

export interface SideOptions {
  /** --reference: the row every other is measured against (default: the first named). */
  readonly reference?: string;
  /** --against GIT_REF: each app at that commit is measured against the working tree's. */
  readonly against?: string;
  /** --threshold: a change --against's verdicts call slower or faster beyond (a share). */
  readonly threshold?: number;
  /** --fail-inconclusive: an inconclusive --against gate fails the run too (exit 1). */
  readonly failInconclusive?: boolean;
}

export { EnvironmentError, UsageError } from "./errors.ts";
export { durationOf, MAX_WORKERS_PER_CPU, workersOf } from "./forms.ts";

/** A run's Options from ./benchmark.sh's command line, or a UsageError / EnvironmentError. */
export function runOptions(
  argv: readonly string[],
  warn: (line: string) => void = console.error,
): Options {
  const command = commandOf(argv);
  if (command.kind !== "run") throw new UsageError(`--${command.kind} is not a run`);
  return parseOptions(command.values, argv, warn);
}

/**
 * Options from a run's values: the forms of the values and the rules between flags first, in
 * the order benchmark.sh always checked them; then the names against the contract, the load
 * generators and, last, the results folder (made here, so nothing refused leaves one behind).
 */
export function parseOptions(
  values: Values,
  argv: readonly string[],
  warn: (line: string) => void = console.error,
): Options {
  const counts = countsOf(values);
  const precision = precisionOf(values);
  const load = ratesOptionsOf(values);
  const appsRoot = appsRootOf(values["apps-root"]);
  const server = serverOf(values);
  roomFor(Math.max(...counts.connectionCounts));
  const apps = names(values.apps, APPS, "app");
  const side = sideOptionsOf(values, apps);
  const reference = side ? undefined : oneReferenceOf(values, apps);
  if (values.orderSeed !== undefined) {
    // A campaign's session: its own random order, the reference still the one first named.
    return parseOptions(shuffled(values, values.orderSeed, apps), argv, warn);
  }
  const scenarios = scenariosOf(values.scenario);
  const ratePath = load.search || load.rates.length > 0 ? rateTool() : undefined;
  if (server) remoteLimits(values);
  const runtimeVersions = versionsOf(values, apps);
  const db = dbOf(values.db, scenarios.scenarios, !!server, !!side, counts.workerCounts);
  protocolLimits(scenarios.scenarios, { server: !!server, rates: ratePath !== undefined });
  const tool = toolOf(values.tool, scenarios.scenarios, warn);
  const ws = wsToolOf(scenarios.scenarios, {
    server: !!server,
    rates: ratePath !== undefined,
    workers: Math.max(...counts.workerCounts),
  });
  if (server) {
    const install = "install it (apt-get install openssh-client, or your system's OpenSSH)";
    needCommand("ssh", `--server-host needs ssh: ${install}`);
  }
  usableOutput(values.output);
  return {
    apps,
    ...scenarios,
    ...counts,
    ...precision,
    maxSteal: values["max-steal"],
    tool: { ...tool, version: toolVersion(tool.name, tool.path) },
    ...(ws ? { wsTool: ws } : {}),
    outDir: values.output,
    pin: !values["no-pin"],
    appsRoot,
    profile: values.profile,
    calibrate: values.calibrate,
    ...load,
    ...(ratePath
      ? { rateTool: { name: "oha", path: ratePath, version: toolVersion("oha", ratePath) } }
      : {}),
    db,
    argv: [...argv],
    runtimeVersions,
    builds: [],
    ...(server ? { server } : {}),
    ...(side ? { side } : {}),
    ...(reference ? { reference } : {}),
    ...historyOf(values),
    ...(values.export !== undefined ? { exportBmf: values.export } : {}),
  };
}

/** The run's sizes: seconds, connections, rounds, samples, starts and server processes. */
function countsOf(values: Values) {
  const connectionCounts = [...values.connections];
  const workerCounts = values.workers === "auto" ? workersOf("auto") : [...values.workers];
  if (workerCounts.length > 1 && connectionCounts.length > 1) {
    throw new UsageError("--connections and --workers take a list one at a time, not both");
  }
  if (values.profile && severalWorkers(values)) {
    throw new UsageError(
      `--profile profiles one process: it does not go with --workers ${values.workers}`,
    );
  }
  return {
    durationSec: values.duration,
    warmupSec: values.warmup,
    connections: Math.max(...connectionCounts),
    connectionCounts,
    rounds: values.rounds,
    samples: values.samples,
    startups: values.startup,
    workers: Math.max(...workerCounts),
    workerCounts,
  };
}

/** --precision's target as a share and the time it may take; --max-time alone is refused. */
function precisionOf(values: Values): { precision?: Options["precision"] } {
  if (values.precision === undefined) {
    if (values.given.has("max-time")) throw new UsageError("--max-time goes with --precision");
    return {};
  }
  return { precision: { target: values.precision / 100, maxTimeSec: values["max-time"] } };
}

/** --rates (offered rates, or "search") and --slo-p99, and what a search does not go with. */
function ratesOptionsOf(values: Values): Pick<Options, "rates" | "search" | "sloP99Ms"> {
  const search = values.rates === "search";
  if (search && values.precision !== undefined)
    throw new UsageError(
      "--rates search runs in the last round, which --precision does not fix in advance",
    );
  if (search && values.workers !== "auto" && values.workers.length > 1)
    throw new UsageError("--rates search finds one capacity per app: give --workers one count");
  const rates = values.rates === "search" ? [] : [...values.rates];
  return { rates, search, sloP99Ms: values["slo-p99"] };
}

/** --apps-root: a folder with an apps/ folder in it; this checkout without one. */
function appsRootOf(root: string | undefined): string {
  if (root !== undefined && !isFolder(join(root, "apps"))) {
    throw new UsageError(`--apps-root ${root} has no apps/ folder`);
  }
  return resolve(root ?? REPO_ROOT);
}

const isFolder = (path: string) =>
  statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** --db: an engine this machine has, for the database scenarios named, on this machine. */
function dbOf(
  value: DbEngine,
  scenarios: readonly Scenario[],
  remote: boolean,
  side: boolean,
  workerCounts: readonly number[],
): DbEngine {
  const database = scenarios.find((s) => s.database);
  if (remote && database) {
    throw new UsageError(
      `the database scenarios (${database.name}) run on this machine only: not with --server-host`,
    );
  }
  if (value === "postgres" && !database) {
    throw new UsageError(
      `--db postgres serves the database scenarios: name one (-s ${DATABASE_SCENARIOS.join(",")})`,
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
  if (value === "postgres" && findPostgres() === undefined) throw new EnvironmentError(PG_INSTALL);
  return value;
}

/**
 * Where the run records itself: --history, else the default; nowhere with --no-history, and
 * for runs that measure no testbed's figures as such (--calibrate, --against, --apps-root).
 */
function historyOf(values: Values): { history?: string } {
  const given = values.history;
  const why = values.calibrate
    ? "--calibrate"
    : values.against !== undefined
      ? "--against"
      : values["apps-root"] !== undefined
        ? "--apps-root"
        : undefined;
  if (given !== undefined && (values["no-history"] || why)) {
    throw new UsageError(
      `--history: ${why ? `a run of ${why} is not recorded` : "not with --no-history"}`,
    );
  }
  if (values["no-history"] || why) return {};
  return { history: given ?? defaultHistory() };
}

/**
 * The values with their apps in the order the seed shuffles them and the reference made
 * explicit (the first named, unless given or each app is its own), without the seed.
 */
function shuffled(values: Values, seed: number, apps: readonly { name: string }[]): Values {
  const names = apps.map((a) => a.name);
  const random = mulberry32(seed);
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [names[i], names[j]] = [names[j] as string, names[i] as string];
  }
  const ownReference =
    values.against !== undefined ||
    RUNTIMES.some((r) => values[r] !== undefined) ||
    apps.length < 2;
  const { orderSeed: _, ...rest } = values;
  return {
    ...rest,
    apps: names.join(","),
    ...(ownReference ? {} : { reference: values.reference ?? (apps[0] as { name: string }).name }),
  };
}

/** --reference in a run one app at a time: one of its apps, without a runtime's versions. */
function oneReferenceOf(values: Values, apps: readonly { name: string }[]): string | undefined {
  const { reference } = values;
  if (reference === undefined) return undefined;
  const names = apps.map((a) => a.name);
  if (!names.includes(reference)) {
    throw new UsageError(
      `--reference ${reference} is not one of the apps to run (${names.join(", ")})`,
    );
  }
  if (RUNTIMES.some((r) => values[r] !== undefined)) {
    throw new UsageError("--reference chooses among apps: not with --node/--bun/--deno");
  }
  return reference;
}

/**
 * --side-by-side and its companions (--reference, --against, --threshold), checked against
 * the rest of the command line; undefined without them. --against implies --side-by-side.
 */
export function sideOptionsOf(
  values: Values,
  apps: readonly { name: string; runtime: string }[],
): SideOptions | undefined {
  const { reference, against, threshold } = values;
  if (!values["side-by-side"]) return undefined;
  if (against !== undefined)
    needCommand("git", "--against needs git: install it (apt-get install git)");
  const names = apps.map((a) => a.name);
  if (reference !== undefined && !names.includes(reference)) {
    throw new UsageError(
      `--reference ${reference} is not one of the apps to run (${names.join(", ")})`,
    );
  }
  const perApp = RUNTIMES.some((r) => values[r] !== undefined);
  if (perApp && against === undefined) versionsPaired(values, apps);
  if (reference !== undefined && (perApp || against !== undefined)) {
    throw new UsageError(
      "--reference chooses among apps: with --against or a runtime's versions each app is its own reference",
    );
  }
  if (against !== undefined && perApp) {
    throw new UsageError("--against compares two commits: not with --node/--bun/--deno");
  }
  return {
    ...(reference !== undefined ? { reference } : {}),
    ...(against !== undefined ? { against } : {}),
    ...(threshold !== undefined ? { threshold: threshold / 100 } : {}),
    ...(values["fail-inconclusive"] ? { failInconclusive: true } : {}),
  };
}

/**
 * With --node/--bun/--deno each app's versions are measured against its first: every app
 * needs two or more, or it would be started for nothing and reported nowhere.
 */
function versionsPaired(values: Values, apps: readonly { name: string; runtime: string }[]): void {
  const alone = apps.filter((a) => (values[a.runtime as Runtime]?.length ?? 0) < 2);
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

/** --server-host, --server-dir and --ssh-config as a RemoteSpec; undefined without the first. */
export function serverOf(
  values: Pick<Values, "server-host" | "server-dir" | "ssh-config" | "workers" | "given">,
): RemoteSpec | undefined {
  const host = values["server-host"];
  const config = values["ssh-config"];
  if (host === undefined) {
    if (values.given.has("server-dir"))
      throw new UsageError("--server-dir goes with --server-host");
    if (config !== undefined) throw new UsageError("--ssh-config goes with --server-host");
    return undefined;
  }
  if (config !== undefined && statSync(config, { throwIfNoEntry: false })?.isFile() !== true) {
    throw new UsageError(`--ssh-config ${config} does not exist`);
  }
  if (values.workers === "auto") {
    throw new UsageError(
      "--workers auto counts this machine's CPUs: give --server-host a number of workers",
    );
  }
  const dir = values["server-dir"];
  return { ...host, dir, ...(config !== undefined ? { sshConfig: resolve(config) } : {}) };
}

/**
 * What a run across two hosts does not do yet, refused before anything starts: each needs a
 * part of this machine on the server's (a runtime cache, a do-nothing server, the spin loop).
 */
function remoteLimits(values: Values): void {
  const refused: [string, boolean][] = [
    ["--node/--bun/--deno", RUNTIMES.some((r) => values[r] !== undefined)],
    ["--calibrate", values.calibrate],
    ["--rates search", values.rates === "search"],
    ["--apps-root", values["apps-root"] !== undefined],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`${found[0]} does not go with --server-host yet`);
}

/**
 * The closed-loop generator (chooseTool); with an HTTP/2 scenario oha or h2load, the generators
 * here that speak it (oha unless h2load is asked for), for every scenario of the run (so they
 * compare through one generator).
 */
function toolOf(
  wanted: string | undefined,
  scenarios: readonly Scenario[],
  warn: (line: string) => void,
): { name: ToolName; path: string } {
  const h2 = scenarios.find((s) => s.http2);
  if (!h2 || wanted === "h2load") return chooseTool(wanted, warn);
  if (wanted !== undefined && wanted !== "oha") {
    throw new UsageError(
      `the ${h2.name} scenario needs oha or h2load (${wanted} speaks HTTP/1.1 only): give --tool oha, --tool h2load or leave --tool out`,
    );
  }
  try {
    return chooseTool("oha", warn);
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    throw new EnvironmentError(
      `the ${h2.name} scenario needs oha or h2load, the load generators here that speak HTTP/2: ${error.message} (or give --tool h2load)`,
    );
  }
}

/**
 * What the TLS scenarios and h2c do not go with yet, refused before anything starts: the
 * certificate names this machine's addresses (127.0.0.1 and the side-by-side slots'), h2c across
 * two hosts is untried (its port + 2000 through the remote start), and the open loop's floor
 * server speaks plain HTTP/1.1.
 */
function protocolLimits(
  scenarios: readonly Scenario[],
  run: { readonly server: boolean; readonly rates: boolean },
): void {
  const protocol = scenarios.find((s) => s.tls || isH2c(s));
  if (!protocol) return;
  const refused: [string, boolean][] = [
    ["--server-host", run.server],
    ["--rates", run.rates],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`the ${protocol.name} scenario does not go with ${found[0]} yet`);
}

/**
 * ws-load for a run with a scenario it loads (a WebSocket one, tls-handshake), after what it does
 * not go with yet: ws-load connects to literal addresses of this machine's apps, the open loop
 * uses the HTTP tool, and a broadcast reaches one process's connections, not another worker's.
 */
function wsToolOf(
  scenarios: readonly Scenario[],
  run: { server: boolean; rates: boolean; workers: number },
): ToolInfo | undefined {
  const ws = scenarios.find(loadedByWsLoad);
  if (!ws) return undefined;
  const broadcast = scenarios.find((s) => s.websocket?.mode === "broadcast");
  const refused: [string, string, boolean][] = [
    [ws.name, "--server-host", run.server],
    [ws.name, "--rates", run.rates],
    [
      broadcast?.name ?? "",
      "--workers above 1 (a process's connections are its audience)",
      !!broadcast && run.workers > 1,
    ],
  ];
  const found = refused.find(([, , given]) => given);
  if (found) throw new UsageError(`the ${found[0]} scenario does not go with ${found[1]} yet`);
  const path = wsTool(ws.name);
  return { name: "ws-load", path, version: toolVersion("ws-load", path) };
}

/** The scenarios as listed, with api first when a stage (middleware, tls) is among them and api is not. */
export function scenariosOf(list: string): Pick<Options, "scenarios" | "apiAdded"> {
  // "all" is the standard set: the streamed scenarios run when named.
  const scenarios = names<Scenario>(
    list,
    list === "all" ? STANDARD_SCENARIOS : SCENARIOS,
    "scenario",
  );
  const api = findScenario(BASELINE_SCENARIO);
  const needsApi = scenarios.some(isStage) && !scenarios.some((s) => s.name === BASELINE_SCENARIO);
  return needsApi && api ? { scenarios: [api, ...scenarios], apiAdded: true } : { scenarios };
}

const RUNTIMES: readonly Runtime[] = ["node", "bun", "deno"];

/** --node 22,24 and the like: each runtime's versions, for a runtime some app of the run uses. */
export function versionsOf(
  values: Partial<Record<Runtime, readonly string[] | undefined>>,
  apps: readonly AppSpec[],
): Partial<Record<Runtime, string[]>> {
  const out: Partial<Record<Runtime, string[]>> = {};
  for (const runtime of RUNTIMES) {
    const specs = values[runtime];
    if (specs === undefined) continue;
    if (!apps.some((app) => app.runtime === runtime)) {
      throw new UsageError(
        `--${runtime} ${specs.join(",")}: none of the apps to run is a ${runtime} app`,
      );
    }
    out[runtime] = [...specs];
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
