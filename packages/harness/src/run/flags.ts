// The one command line of ./benchmark.sh: every flag in one table, as clap's derive has it:
// a row is the flag's names, the form of its value (forms.ts), its default in each mode and
// its help, the default stated from the same value; the type of a run's values (Values) is
// derived from the rows. benchmark.sh only bootstraps Bun and hands its arguments over;
// readArgs reads them against this table, valuesOf fills in what was not given, command.ts
// and options.ts hold the rules between flags, help.ts lays the table out for --help.
//
// Adding a flag is one row here and its use in the run (packages/harness/src/README.md, "A new
// flag", walks through one).
//
// Not node:util's parseArgs: the command line it would have to keep has two-value flags
// (--compare BASE NEW, --export bmf FILE), a flag that gathers (-a a -a b), values that may
// begin with a dash (refused later with their own reason) and paths relative to the user.

import { join, resolve } from "node:path";
import {
  APPS,
  DEFAULT_SCENARIO,
  loadedByWsLoad,
  PG_POOL,
  SCENARIOS,
  type Scenario,
} from "@bench/contract";
import {
  CALIBRATION_APP,
  CALIBRATION_SHARES_TEXT,
  SIDE_CALIBRATION_SHARES_TEXT,
} from "../analysis/calibration.ts";
import { DEFAULT_COMPARE } from "../analysis/comparison.ts";
import { MIN_CI_PROCESSES } from "../analysis/estimate.ts";
import { DEFAULT_AGAINST_THRESHOLD } from "../analysis/ratios.ts";
import { SEARCH } from "../analysis/search-levels.ts";
import { MEASURED } from "../analysis/settings.ts";
import { DEFAULT_MAX_STEAL, RETAKE_SHARE, STEAL_OFF } from "../analysis/steal.ts";
import { DB_ENGINES, type DbEngine } from "../common/engine.ts";
import { REPO_ROOT } from "../common/root.ts";
import { HISTORY_ENV, HISTORY_FILE } from "../history/store.ts";
import { H2LOAD_WARMUP_MS } from "../load/tools.ts";
import type { RateSpec } from "../rates/rates.ts";
import { DEFAULT_SLO_P99_MS } from "../rates/rates.ts";
import { UsageError } from "./errors.ts";
import {
  absolutePath,
  anyText,
  bmfFile,
  count,
  counts,
  durationOf,
  type Form,
  gitRef,
  MAX_WORKERS_PER_CPU,
  maxStealOf,
  milliseconds,
  oneOf,
  percent,
  rateList,
  serverHost,
  targetPercent,
  twoFiles,
  versionList,
  workerCounts,
} from "./forms.ts";

/**
 * A run's shape when no flag says otherwise. The defaults follow from the noise measured on a
 * 2-core VM (docs/statistics.md, "Precision"): many cheap processes, each a few short samples
 * after a short warm-up.
 */
export const DEFAULTS = { rounds: 20, samples: 3, duration: 1, warmup: 2, connections: 100 };

/**
 * --side-by-side: pairs of processes, each sample both apps at once, each generator its own
 * connections (two × 50: the default's 100 in all). Between pairs the ratio moves about as much
 * as between 1 s samples of one pair (node-bare/bun-bare on 2026-11-27: 4.5% and 5.1%), and a
 * pair costs its start and warm-up, so many pairs of few samples: 15 of 2, as many as fit in
 * three minutes. 8 s of warm-up: sharing the core, Node's CPU per request is above its level
 * from 8 s on for its first seconds (+7% in its third on 2026-11-27, +14-17% on an earlier
 * host); with 6 s each pair's first sample still read 3-4% above its second (docs/side-by-side.md,
 * "Warm-up").
 */
export const SIDE = { rounds: 15, samples: 2, warmup: 8, connections: 50 };

/** --quick: a smoke run (other flags still override it). */
export const QUICK = { rounds: 3, samples: 2, duration: 1, warmup: 1, connections: 50 };

/**
 * What a process costs beyond its load (start, readiness, verification, stop, the tool's own
 * start), in seconds: the stored default run (docs/results/2026-11-23-fifteen) took 1,676 s for
 * 15 apps × 20 processes of 2 + 3 × 1 s of load, 0.59 s more per process.
 */
export const PROCESS_COST_SEC = 0.6;

/** How long a run of `apps` apps in a design's shape takes: each process its load and its cost. */
export function runSec(
  apps: number,
  design: { rounds: number; warmup: number; samples: number; duration: number } = DEFAULTS,
): number {
  const { rounds, warmup, samples, duration } = design;
  return apps * rounds * (warmup + samples * duration + PROCESS_COST_SEC);
}

/** "about 28 minutes": a run's length as the help and the README state it. */
export const aboutMinutes = (seconds: number): string =>
  `about ${Math.max(1, Math.round(seconds / 60))} minute${Math.round(seconds / 60) > 1 ? "s" : ""}`;

/** --precision starts from the fewest rounds that give an interval, and adds as it needs. */
export const PRECISION_FLOOR = MIN_CI_PROCESSES;

/** With --precision and no --max-time, rounds stop after this long. */
export const DEFAULT_MAX_TIME_SEC = 600;

/** The scenario every production-middleware stage is measured against (its tax). */
export const BASELINE_SCENARIO = "api";

/** What decides a run's defaults: its preset and its mode. */
export interface Mode {
  readonly quick: boolean;
  /** --side-by-side, or --against (which implies it). */
  readonly side: boolean;
  readonly calibrate: boolean;
  readonly precision: boolean;
}

/** The default run's mode: the one whose defaults --help states. */
export const PLAIN: Mode = { quick: false, side: false, calibrate: false, precision: false };

/** The design a mode starts from: --quick's preset, else side by side's, else the default's. */
const designOf = (mode: Mode) =>
  mode.quick ? QUICK : mode.side ? { ...DEFAULTS, ...SIDE } : DEFAULTS;

/** The rounds a run takes unless -n says: its design's, or its mode's. */
export function roundsOf(mode: Mode): number {
  if (mode.quick) return QUICK.rounds;
  // --precision adds rounds as it needs them, from the fewest that give an interval.
  if (mode.precision && !mode.side && !mode.calibrate) return PRECISION_FLOOR;
  // Twice the rounds for --calibrate: its detection rates are over subsamples of a default run.
  return designOf(mode).rounds * (mode.calibrate ? 2 : 1);
}

/**
 * A flag of the command line (a row of FLAGS), not a row qualifier (analysis.ts's Flag): `T`
 * is what its form makes of the text given, `D` its default (undefined: none).
 */
export interface FlagSpec<
  N extends readonly string[] = readonly string[],
  T = unknown,
  D = unknown,
> {
  /** As --help shows them: "-a", "--apps". The last is the flag's key ("apps"). */
  readonly names: N;
  /** Other spellings, accepted and named in the help text. */
  readonly aliases?: readonly string[];
  /** The value(s) as --help names them ("LIST", "BASE NEW": two); none for a switch. */
  readonly value?: string;
  /** Given twice, the values gather with a comma (-a x -a y) instead of the last one counting. */
  readonly joins?: true;
  /** Values that are paths, taken relative to where the user is: all of them, or the last. */
  readonly paths?: "all" | "last";
  /** Why a flag short of its values is refused (default: "FLAG needs a value"). */
  readonly missing?: string;
  /** What the text given becomes (forms.ts), or a UsageError; a switch given is true. */
  readonly form: Form<T>;
  /** Its value when not given, in the run's mode; without one, undefined. */
  readonly default?: (mode: Mode) => D;
  /** One paragraph; --help all wraps it. */
  readonly help: string;
  /**
   * Set on the common flags alone: their line in the short --help, which must fit a screen
   * (the full paragraph is --help all's).
   */
  readonly brief?: string;
  readonly section?: "reports";
}

/** A row as the table writes it: its help may state its default, given the default run's. */
type FlagRow<N extends readonly string[], T, D> = Omit<FlagSpec<N, T, D>, "help" | "brief"> & {
  readonly help: string | ((shown: D) => string);
  readonly brief?: string | ((shown: D) => string);
};

/** A row of the table, its help (and brief) stating the default run's default where it says one. */
function flag<const N extends readonly string[], T, D = undefined>(
  row: FlagRow<N, T, D>,
): FlagSpec<N, T, D> {
  // D is undefined exactly when the row has no default, so `shown` is always a D.
  const said = (text: string | ((shown: D) => string)) =>
    typeof text === "string" ? text : text(row.default?.(PLAIN) as D);
  const { help, brief, ...rest } = row;
  return { ...rest, help: said(help), ...(brief !== undefined ? { brief: said(brief) } : {}) };
}

/** A switch: true when given, else its default (false unless the mode says otherwise). */
function toggle<const N extends readonly string[]>(
  row: Omit<FlagRow<N, boolean, boolean>, "form" | "value">,
): FlagSpec<N, boolean, boolean> {
  return flag({ default: () => false, ...row, form: () => true });
}

const SCENARIO_LIST: readonly Scenario[] = SCENARIOS;

/** The scenarios that are a production-middleware stage, and those that need a database. */
const MIDDLEWARE = SCENARIO_LIST.filter((s) => s.middleware).map((s) => s.name);
export const DATABASE_SCENARIOS = SCENARIO_LIST.filter((s) => s.database).map((s) => s.name);
/** The scenarios `-s all` leaves out (TLS, streamed answers): they run when named. */
const ON_REQUEST = SCENARIO_LIST.filter((s) => s.onRequest).map((s) => s.name);

/** The scenarios ws-load loads: WebSocket, and a new TLS connection per request. */
const WS_LOAD = SCENARIO_LIST.filter(loadedByWsLoad).map((s) => s.name);

/** The first and last port the apps listen on ("3000-3014"): what a firewall must let through. */
const PORTS = `${Math.min(...APPS.map((a) => a.port))}-${Math.max(...APPS.map((a) => a.port))}`;

/** "2026-11-27T09-30-00Z": a results folder's default name, in UTC. */
export const timestamp = () =>
  new Date()
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");

export const FLAGS = [
  flag({
    names: ["-a", "--apps"],
    value: "LIST",
    joins: true,
    form: anyText,
    default: (mode) => (mode.calibrate ? CALIBRATION_APP : "all"),
    brief: `apps to run, comma-separated, or "all" (default: all ${APPS.length}); or as arguments`,
    help: (d) =>
      `comma-separated app names, or "all" (default: ${d}); app names may also be given as arguments`,
  }),
  flag({
    names: ["-s", "--scenario"],
    aliases: ["--scenarios"],
    value: "LIST",
    form: anyText,
    default: () => DEFAULT_SCENARIO,
    brief: (d) =>
      `scenarios, comma-separated, or "all" (default: ${d}; the list, and the ones "all" leaves out: --help all)`,
    help: (d) =>
      `comma-separated scenarios, or "all" (default: ${d}); --scenarios is the same flag. "all" leaves out the protocol scenarios (${ON_REQUEST.join(", ")}): they run when named. A middleware scenario (${MIDDLEWARE.join(", ")}), tls, tls-handshake, h2 or h2c brings ${BASELINE_SCENARIO} along when it is not listed: the production tax is each stage against ${BASELINE_SCENARIO}. A run with h2 or h2c (HTTP/2 over TLS, cleartext HTTP/2) loads every scenario with oha; ${WS_LOAD.join(", ")} are loaded by ws-load (--tool). An app that cannot serve HTTP/2 or WebSocket is shown as not supported, with the reason`,
  }),
  flag({
    names: ["-d", "--duration"],
    value: "SEC",
    form: count(1),
    default: (mode) => designOf(mode).duration,
    help: (d) => `measured seconds per sample (default: ${d})`,
  }),
  flag({
    names: ["-w", "--warmup"],
    value: "SEC",
    form: count(0),
    default: (mode) => designOf(mode).warmup,
    help: (d) => `unrecorded warm-up of each process, per scenario, 0 for none (default: ${d})`,
  }),
  flag({
    names: ["-c", "--connections"],
    value: "N",
    form: counts,
    default: (mode) => [designOf(mode).connections],
    brief: (d) => `keep-alive connections (default: ${d}); a list (1,10,100): the throughput curve`,
    help: (d) =>
      `concurrent connections, kept open (keep-alive) (default: ${d}); a list (1,10,50,100,400,1000) measures one trial per count: the throughput curve (req/s and p99 against concurrency, each app's peak). Each connection needs two open files: a count beyond the hard \`ulimit -n\` is refused (the soft limit is raised to it)`,
  }),
  flag({
    names: ["-n", "--rounds"],
    aliases: ["--trials"],
    value: "N",
    form: count(1),
    default: roundsOf,
    brief: (d) => `fresh processes per app, apps interleaved (default: ${d})`,
    help: (d) =>
      `rounds: each app is started afresh once per round, apps interleaved (default: ${d}); --trials is the same flag`,
  }),
  flag({
    names: ["--samples"],
    value: "K",
    form: count(1),
    default: (mode) => designOf(mode).samples,
    help: (d) => `back-to-back samples per process and scenario (default: ${d})`,
  }),
  flag({
    names: ["--max-steal"],
    value: "PCT",
    form: maxStealOf,
    default: () => DEFAULT_MAX_STEAL,
    help: (d) =>
      `a sample during which the hypervisor took PCT% or more of the server's core (CPU steal, from /proc/stat) is excluded from every estimate and taken again at the end of its process (side by side: its pair), up to ${RETAKE_SHARE * 100}% more samples than planned; a process or pair left with fewer than half its samples clean counts as missing. ${STEAL_OFF} turns it off. With --report: re-analyse the run at this threshold (default: ${d}, chosen on a steal-heavy night's calibration: docs/statistics.md)`,
  }),
  flag({
    names: ["--precision"],
    value: "PCT",
    form: targetPercent,
    brief: `add rounds until every 95% CI is within +-PCT%, for at most --max-time (default: ${DEFAULT_MAX_TIME_SEC / 60}m)`,
    help: `add rounds (at least ${roundsOf({ ...PLAIN, precision: true })}; side by side, ${roundsOf({ ...PLAIN, precision: true, side: true })}) until every app's mean and every comparison the summary makes has a 95% CI within +-PCT percent, or until the next round would not fit in --max-time`,
  }),
  flag({
    names: ["--max-time"],
    value: "DURATION",
    form: durationOf,
    default: () => DEFAULT_MAX_TIME_SEC,
    help: (d) =>
      `with --precision: the time the rounds may take, like 90s, 10m or 1h (default: ${d / 60}m)`,
  }),
  toggle({
    names: ["--calibrate"],
    help: `the statistics' known answer: ${CALIBRATION_APP} against itself (A/A) and against itself with ${CALIBRATION_SHARES_TEXT} more CPU per request (side by side: ${SIDE_CALIBRATION_SHARES_TEXT}; BENCH_EXTRA_WORK, sized first); reports the verdicts and how often subsamples of a default run's length call each different. Takes no apps; ${roundsOf({ ...PLAIN, calibrate: true })} rounds unless -n says otherwise`,
  }),
  flag({
    names: ["-t", "--tool"],
    value: "NAME",
    form: oneOf(["oha", "wrk", "autocannon", "h2load"]),
    brief: `wrk, oha, autocannon or h2load (default: the first installed of the first three)`,
    help: `load generator: wrk, oha, autocannon or h2load (default: the first installed, in that order, of wrk, oha and autocannon: wrk is the least likely to be the bottleneck; autocannon is a project dependency, so there is always one; h2load, nghttp2's, only when given); a run with h2 or h2c takes oha or h2load, the two that speak HTTP/2 (oha unless --tool h2load). h2load opens its connections in a ${H2LOAD_WARMUP_MS} ms warm-up before each sample's window, so TLS handshakes fall outside it. The WebSocket scenarios and the new TLS connection per request (${WS_LOAD.join(", ")}) are loaded by ws-load, this project's own (tools/ws-load, built by: cargo build --release --locked --manifest-path tools/ws-load/Cargo.toml), whatever --tool says`,
  }),
  flag({
    names: ["-o", "--output"],
    paths: "all",
    value: "DIR",
    form: anyText,
    default: () => join(REPO_ROOT, "results", timestamp()),
    brief: `results directory (default: results/<UTC timestamp>)`,
    help: `results directory (default: results/<UTC timestamp>)`,
  }),
  toggle({
    names: ["--no-pin"],
    help: `do not pin the server and the load generator to separate CPUs`,
  }),
  toggle({
    names: ["-q", "--quick"],
    brief: `smoke run: ${QUICK.rounds} rounds of ${QUICK.samples} x ${QUICK.duration} s samples, ${QUICK.connections} connections (${aboutMinutes(runSec(APPS.length, QUICK))} for all apps)`,
    help: `smoke-run preset: ${QUICK.rounds} rounds of ${QUICK.samples} x ${QUICK.duration} s samples after ${QUICK.warmup} s warm-up, ${QUICK.connections} connections (other flags still override it)`,
  }),
  flag({
    names: ["--rates"],
    value: "LIST",
    form: rateList,
    default: (): readonly RateSpec[] | "search" => [],
    help: `after each trial, one open-loop trial per rate at a constant offered rate, latency counted from when each request was due (oha -q --latency-correction; wrk and autocannon cannot, so this needs oha): req/s ("5000") or shares of the app's closed-loop req/s in that same trial ("50%"), comma-separated, e.g. 25%,50%,75%,90%. "search": in the last round, find the capacity at the p99 budget (bracket from the closed-loop req/s, bisect to ${SEARCH.resolution * 100}%, ${SEARCH.repeats} trials at each end; a miss is checked against oha's own p99 at that rate against a do-nothing server): the interval and every level tried`,
  }),
  flag({
    names: ["--slo-p99"],
    value: "MS",
    form: milliseconds,
    default: () => DEFAULT_SLO_P99_MS,
    help: (d) =>
      `the p99 budget for "capacity at a latency budget": the highest offered rate whose p99 stayed within it (default: ${d}); requests due but never sent count as over it`,
  }),
  flag({
    names: ["--startup"],
    value: "N",
    form: count(0),
    default: () => 0,
    help: (d) =>
      `N more fresh starts per app, without load, for the start-up figures (spawn to first correct answer, memory when ready and after 1 s idle; every start of the run is measured anyway) (default: ${d})`,
  }),
  toggle({
    names: ["--profile"],
    help: `after the measured rounds, one extra trial per app and scenario with the runtime's CPU profiler on (node/bun/deno --cpu-prof); writes profiles/<app>-<scenario>.cpuprofile (Chrome DevTools, speedscope) and lists each profile's hottest functions in the reports. Profiled trials never count in the results`,
  }),
  flag({
    names: ["--workers"],
    value: "N",
    form: workerCounts,
    default: () => [1],
    help: (d) =>
      `serve each app's port from N processes (node:cluster; on Bun and Deno every worker listens with reusePort), or "auto": one per CPU but one, which the load generator keeps (default: ${d}). A list (1,2,4) measures each app at each count, interleaved, and adds a scaling table. The server gets the first N CPUs and the load generator the CPUs above the largest N; with none left over, nothing is pinned and the report says so. At most ${MAX_WORKERS_PER_CPU} per CPU. Not with --profile`,
  }),
  flag({
    names: ["--node"],
    value: "LIST",
    form: versionList,
    help: `run each Node app on each of these Node versions, interleaved in the same rounds (--node 22,24,26 --bun 1.3,1.4 --deno 2.9): a major or major.minor means its newest release, an exact version is taken as given. Each version is installed once into .cache/runtimes from the npm registry (node, bun and deno packages) and checked with --version; every row is named app@version and the reports add a version comparison. Without them, the versions the lockfile pins`,
  }),
  flag({
    names: ["--bun"],
    value: "LIST",
    form: versionList,
    help: `the same for the Bun apps`,
  }),
  flag({
    names: ["--deno"],
    value: "LIST",
    form: versionList,
    help: `the same for the Deno apps`,
  }),
  toggle({
    names: ["--side-by-side"],
    default: (mode) => mode.side,
    brief: `two apps at the same moment on one core, compared by CPU time per request`,
    help: `measure two apps at the same moment: both servers on the server's CPU, each loaded by its own load generator on the generator's CPU, started together; the figure is each server's CPU time per request (schedstat of all its threads / the requests answered), relative to a reference. Noise that moves both cancels in the ratio: on this VM, in under three minutes, +-0.8% for an app against itself, about +-2% for two Node frameworks, +-1.2-2.3% in a quiet hour and about +-4% in a noisy one for Bun against Node (whom the machine's noise moves unalike: their ratio also moves from hour to hour). Pairs of fresh processes, their positions (address, start order) alternated every round and analysed as the crossover they make. Several apps: each against --reference; one app: against itself (A/A); with --node/--bun/--deno, each app's versions against its first (every app needs two or more). Defaults: ${SIDE.rounds} rounds (pairs) of ${SIDE.samples} x ${DEFAULTS.duration} s samples after ${SIDE.warmup} s of warm-up, ${SIDE.connections} connections per app. Needs taskset and 2 cores; not with --no-pin, --workers, --rates, --profile, a list of --connections or --server-host`,
  }),
  flag({
    names: ["--reference"],
    value: "APP",
    form: anyText,
    help: `the app every other is measured against (default: the first named): side by side, the reference of each pair; one at a time, the app each other's req/s ratio is recorded against in the history`,
  }),
  flag({
    names: ["--against"],
    value: "GIT_REF",
    form: gitRef,
    brief: `this checkout's apps against that commit's, side by side: slower, faster, no change or inconclusive`,
    help: `the named apps at another commit (a git worktree of it in .cache/against, its locked dependencies installed there) side by side with this checkout's: slower / faster / no change beyond --threshold (default ${DEFAULT_AGAINST_THRESHOLD * 100}, a change in CPU per request) / inconclusive per app and scenario, and the outcome in one last line (SLOWER, INCONCLUSIVE or none slower); exit 1 if an app is slower (--fail-inconclusive: or if inconclusive). Where the commit's bun.lock is this checkout's, this checkout's installed dependencies are hard-linked into it (seconds, no extra space); else installed there; the run states the checkout's disk use. Implies --side-by-side; not with --apps-root`,
  }),
  toggle({
    names: ["--fail-inconclusive"],
    help: `with --against: exit 1 when the gate is inconclusive too, not only when an app is slower: no app shown slower by --threshold, but one not shown within it either (too few pairs, too much noise). For a gate that must see each change settled`,
  }),
  flag({
    names: ["--db"],
    value: "ENGINE",
    form: oneOf(DB_ENGINES),
    default: (): DbEngine => "sqlite",
    brief: (d) => `the database scenarios' engine: ${d} (default) or postgres`,
    help: (d) =>
      `the database scenarios' engine: ${d} (default: each app process its own seeded file, the runtime's own driver) or postgres: a throwaway server from this machine's PostgreSQL (initdb into a temporary folder, 127.0.0.1, pinned to the server's CPU), a seeded copy per app start (its workers share it), Bun.sql on Bun and postgres.js on Node and Deno, ${PG_POOL} connections per process; stopped and removed however the run ends. Needs a database scenario (-s ${DATABASE_SCENARIOS.join(",")}); one --workers count; not with --side-by-side, --against or --server-host`,
  }),
  flag({
    names: ["--history"],
    value: "FILE|URL",
    form: anyText,
    help: `the history every finished run records itself in (a session: its testbed, settings, commit, versions and every estimate with its standard error), and checks itself against: a SQLite file, or a PostgreSQL URL (postgres://user@host/db) that many machines can share (default: ${HISTORY_FILE}, or ${HISTORY_ENV}). One that cannot be reached or written is refused before anything is measured. Runs of --calibrate, --against and --apps-root are not recorded. See ./benchmark.sh history --help`,
  }),
  flag({
    names: ["--sessions"],
    value: "N",
    form: count(2),
    help: `a campaign: N sessions (each a full run with its own random order, recorded in the history), their starts at random within --spread, never overlapping (a session starts when its time has come and the previous one has ended); each in DIR/session-K of -o. Without -n, each session's rounds come from Kalibera & Jones's allocation with the variance components this testbed's history has measured for these settings (never fewer than ${MIN_CI_PROCESSES}); the campaign ends with the across-session view of its series`,
  }),
  flag({
    names: ["--spread"],
    value: "DURATION",
    form: durationOf,
    default: () => 0,
    help: (d) =>
      `with --sessions: the window the sessions' starts fall in, like 90s, 10m or 4h (default: ${d}, one after another)`,
  }),
  toggle({
    names: ["--no-history"],
    help: `do not record this run in the history (nor check it against it)`,
  }),
  flag({
    names: ["--export"],
    paths: "last",
    value: "bmf FILE",
    missing: "--export needs a format and a file: bmf FILE",
    form: bmfFile,
    help: `write the run's figures in Bencher Metric Format (throughput, latency, cpu-per-request, cost-ratio; the 95% interval where the run has one) for a continuous-benchmarking service (bencher run --adapter json); after a finished run, or with --report`,
  }),
  flag({
    names: ["--apps-root"],
    paths: "all",
    value: "DIR",
    form: anyText,
    help: `take apps from DIR/apps/<name> instead of this checkout (for testing the harness with stand-in apps)`,
  }),
  flag({
    names: ["--server-host"],
    value: "[USER@]HOST[:PORT]",
    form: serverHost,
    help: `run the apps on that machine, reached over SSH (key login, no password prompt), and the load generator here. The project must be checked out there at this checkout's commit (--server-dir); Bun and the dependencies are installed there as here. The apps listen on the address SSH reached (127.0.0.1 otherwise), so the firewall there must let this machine reach ports ${PORTS}. CPU, memory, steal, pinning and start-up are measured there, over one SSH connection; the manifest records both machines and the round trip between them. Not with --calibrate, --rates search, --node/--bun/--deno, --apps-root or --workers auto`,
  }),
  flag({
    names: ["--server-dir"],
    value: "DIR",
    form: absolutePath,
    default: () => REPO_ROOT,
    help: `the checkout on the server host (default: this checkout's path)`,
  }),
  flag({
    names: ["--ssh-config"],
    paths: "all",
    value: "FILE",
    form: anyText,
    help: `ssh's -F: the config file to use (keys, known hosts, jump hosts)`,
  }),
  toggle({
    names: ["-h", "--help"],
    brief: `these lines; --help all: every flag, the apps, the scenarios, the exit status`,
    help: `the common flags and examples; --help all: this text`,
  }),
  flag({
    names: ["--report"],
    paths: "all",
    value: "FILE",
    section: "reports",
    form: anyText,
    brief: `regenerate summary.txt and the reports from a results.json`,
    help: `regenerate summary.txt, report.md and report.html from a results.json (or the run folder holding it): a later analysis of an earlier run`,
  }),
  flag({
    names: ["--compare"],
    paths: "all",
    value: "BASE NEW",
    missing: "--compare needs two files: BASE NEW",
    section: "reports",
    form: twoFiles,
    brief: `compare two results.json files: exit 1 on a regression`,
    help: `compare two results.json files: req/s and p99 per app and scenario, and the smallest change each pair could have detected; exit 1 if any app is slower by more than the threshold and significantly so (one-sided Welch's t-test on process means, Holm over the pairs, family-wise ${DEFAULT_COMPARE.alpha * 100}%), or failed, went unmeasured or is missing in the new run; "no change" only where an equivalence test (TOST) shows it; exit 2 if the runs differ in ${MEASURED.map((s) => s.name).join(", ")} or machine`,
  }),
  flag({
    names: ["--threshold"],
    value: "PCT",
    section: "reports",
    form: percent,
    // Its default is the command's (--compare's or --against's), applied where each is judged.
    help: `regression threshold for --compare, in percent (default: ${DEFAULT_COMPARE.threshold * 100}), or for --against (default: ${DEFAULT_AGAINST_THRESHOLD * 100})`,
  }),
  toggle({
    names: ["--allow-mismatch"],
    section: "reports",
    help: `with --compare: compare runs whose setups differ anyway; the output's first line lists the differences`,
  }),
  flag({
    names: ["--update-readme"],
    paths: "all",
    value: "FILE",
    section: "reports",
    form: anyText,
    help: `replace README.md's results section with this run's report and Mermaid charts`,
  }),
] as const;

/** Any row of the table, as the code that walks it sees one. */
type AnyFlag = FlagSpec<readonly string[], unknown, unknown>;

type Row = (typeof FLAGS)[number];
type KeyOf<N> = N extends readonly [...unknown[], `--${infer K}`] ? K : never;
type ValueOf<R> = R extends FlagSpec<readonly string[], infer T, infer D> ? T | D : never;

/** A flag's key: its last name without the dashes ("rounds"). */
export type FlagKey = KeyOf<Row["names"]>;

/**
 * Every flag's value by key, typed by its row: its form's type, or its default's when not
 * given (undefined where it has none). Derived from FLAGS, never written out.
 */
export type FlagValues = { readonly [R in Row as KeyOf<R["names"]>]: ValueOf<R> };

/** A run's values: every flag's, and which of them the user gave (the rules between flags ask). */
export type Values = FlagValues & {
  readonly given: ReadonlySet<FlagKey>;
  /** Not a flag: a campaign's session runs its apps in the order this seed shuffles. */
  readonly orderSeed?: number;
};

/**
 * A flag's key: its last name without the dashes ("--rounds" → "rounds"); the one cast from a
 * row's names to FlagKey, which is derived from those same names.
 */
export const keyOf = (flag: AnyFlag): FlagKey =>
  (flag.names.at(-1) as string).replace(/^-+/, "") as FlagKey;

const arity = (flag: AnyFlag): number =>
  flag.value === undefined ? 0 : flag.value.split(" ").length;

const BY_NAME = new Map(
  FLAGS.flatMap((f) => [...f.names, ...(f.aliases ?? [])].map((n): [string, AnyFlag] => [n, f])),
);
const BY_KEY = new Map(FLAGS.map((f): [FlagKey, AnyFlag] => [keyOf(f), f]));

/** The command line as read: each flag given (by key) with its values, and the app names. */
export interface ReadArgs {
  /** A switch maps to [], a flag to its values; the last occurrence counts, unless it joins. */
  readonly given: ReadonlyMap<FlagKey, readonly string[]>;
  readonly positionals: readonly string[];
}

/** Reads argv against FLAGS: an unknown flag or a missing value is a UsageError. */
export function readArgs(argv: readonly string[], cwd = process.cwd()): ReadArgs {
  const given = new Map<FlagKey, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    const flag = BY_NAME.get(arg);
    if (!flag) throw new UsageError(`unknown option '${arg}'`);
    const values = argv.slice(i + 1, i + 1 + arity(flag));
    if (values.length < arity(flag) || values.some((v) => v === "")) {
      throw new UsageError(flag.missing ?? `${arg} needs a value`);
    }
    i += values.length;
    const key = keyOf(flag);
    const earlier = given.get(key);
    if (flag.joins && earlier) given.set(key, [`${earlier[0]},${values[0]}`]);
    else
      given.set(
        key,
        values.map((v, j) => (isPath(flag, j, values.length) ? absolute(v, cwd) : v)),
      );
  }
  return { given, positionals };
}

const isPath = (flag: AnyFlag, index: number, count: number) =>
  flag.paths === "all" || (flag.paths === "last" && index === count - 1);

/** Paths given on the command line are relative to where the user is, not to the harness. */
const absolute = (path: string, cwd: string) => resolve(cwd, path);

/** A flag's value from the text(s) given, in its form; its long name in any refusal. */
const formOf = (flag: AnyFlag, texts: readonly string[]): unknown =>
  flag.form(texts[0] ?? "", `--${keyOf(flag)}`, texts);

/** Every flag's value: as given, in its form, in the table's order; else its default in `mode`. */
export function valuesOf(read: ReadArgs, mode: Mode): FlagValues {
  const entries = FLAGS.map((flag: AnyFlag) => {
    const texts = read.given.get(keyOf(flag));
    return [keyOf(flag), texts ? formOf(flag, texts) : flag.default?.(mode)];
  });
  // Where the rows become values the types cannot follow a loop: FlagValues is computed from
  // these same rows, key by key, so the object is one by construction.
  return Object.fromEntries(entries) as FlagValues;
}

/**
 * One flag's value as given, in its form; undefined when not given (no default). For the
 * report commands, which read their own few flags and ignore a run's.
 */
export function givenValue<K extends FlagKey>(read: ReadArgs, key: K): FlagValues[K] | undefined {
  const texts = read.given.get(key);
  const flag = BY_KEY.get(key);
  return texts && flag ? (formOf(flag, texts) as FlagValues[K]) : undefined;
}

/** The mode a command line asks for: what decides its defaults. */
export const modeOf = (given: ReadonlyMap<FlagKey, unknown>): Mode => ({
  quick: given.has("quick"),
  side: given.has("side-by-side") || given.has("against"),
  calibrate: given.has("calibrate"),
  precision: given.has("precision"),
});
