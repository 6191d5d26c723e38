// The one command line of ./benchmark.sh: every flag, its value, its help text and the defaults
// it states, defined once. benchmark.sh only bootstraps Bun and hands its arguments over;
// readArgs reads them against this table, command.ts applies the modes' defaults and the
// rules between flags, options.ts builds the run. A flag added here is parsed and documented.
//
// Not node:util's parseArgs: the command line it would have to keep has two-value flags
// (--compare BASE NEW, --export bmf FILE), a flag that gathers (-a a -a b), values that may
// begin with a dash (refused later with their own reason) and paths relative to the user.

import { resolve } from "node:path";
import { APPS, DEFAULT_SCENARIO, PG_POOL, SCENARIOS } from "@bench/contract";
import { CALIBRATION_SHARES_TEXT, SIDE_CALIBRATION_SHARES_TEXT } from "../analysis/calibration.ts";
import { DEFAULT_COMPARE } from "../analysis/comparison.ts";
import { DEFAULT_AGAINST_THRESHOLD } from "../analysis/ratios.ts";
import { MEASURED } from "../analysis/settings.ts";
import { DEFAULT_MAX_STEAL, RETAKE_SHARE, STEAL_OFF } from "../analysis/steal.ts";
import { DEFAULT_SLO_P99_MS } from "../rates/rates.ts";

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
export const PRECISION_FLOOR = 3;

/** With --precision and no --max-time, rounds stop after this long. */
export const DEFAULT_MAX_TIME_SEC = 600;

/** A flag of the command line (a row of FLAGS), not a row qualifier (analysis.ts's Flag). */
export interface FlagSpec {
  /** As --help shows them: "-a", "--apps". The last is the flag's key in what readArgs gives. */
  readonly names: readonly string[];
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
  /** One paragraph; --help all wraps it. */
  readonly help: string;
  /**
   * Set on the common flags alone: their line in the short --help, which must fit a screen
   * (the full paragraph is --help all's).
   */
  readonly brief?: string;
  readonly section?: "reports";
}

export const FLAGS: readonly FlagSpec[] = [
  {
    names: ["-a", "--apps"],
    value: "LIST",
    joins: true,
    brief: `apps to run, comma-separated, or "all" (default: all ${APPS.length}); or as arguments`,
    help: `comma-separated app names, or "all" (default: all); app names may also be given as arguments`,
  },
  {
    names: ["-s", "--scenario"],
    aliases: ["--scenarios"],
    value: "LIST",
    brief: `scenarios, comma-separated, or "all" (default: ${DEFAULT_SCENARIO}; the list: --help all)`,
    help: `comma-separated scenarios, or "all" (default: api); --scenarios is the same flag. A middleware scenario (auth, cors, gzip, etag, ratelimit, stack) brings api along when it is not listed: the production tax is each stage against api`,
  },
  {
    names: ["-d", "--duration"],
    value: "SEC",
    help: `measured seconds per sample (default: ${DEFAULTS.duration})`,
  },
  {
    names: ["-w", "--warmup"],
    value: "SEC",
    help: `unrecorded warm-up of each process, per scenario, 0 for none (default: ${DEFAULTS.warmup})`,
  },
  {
    names: ["-c", "--connections"],
    value: "N",
    brief: `keep-alive connections (default: ${DEFAULTS.connections}); a list (1,10,100): the throughput curve`,
    help: `concurrent connections, kept open (keep-alive) (default: ${DEFAULTS.connections}); a list (1,10,50,100,400,1000) measures one trial per count: the throughput curve (req/s and p99 against concurrency, each app's peak). Each connection needs two open files: a count beyond the hard \`ulimit -n\` is refused (the soft limit is raised to it)`,
  },
  {
    names: ["-n", "--rounds"],
    aliases: ["--trials"],
    value: "N",
    brief: `fresh processes per app, apps interleaved (default: ${DEFAULTS.rounds})`,
    help: `rounds: each app is started afresh once per round, apps interleaved (default: ${DEFAULTS.rounds}); --trials is the same flag`,
  },
  {
    names: ["--samples"],
    value: "K",
    help: `back-to-back samples per process and scenario (default: ${DEFAULTS.samples})`,
  },
  {
    names: ["--max-steal"],
    value: "PCT",
    help: `a sample during which the hypervisor took PCT% or more of the server's core (CPU steal, from /proc/stat) is excluded from every estimate and taken again at the end of its process (side by side: its pair), up to ${RETAKE_SHARE * 100}% more samples than planned; a process or pair left with fewer than half its samples clean counts as missing. ${STEAL_OFF} turns it off. With --report: re-analyse the run at this threshold (default: ${DEFAULT_MAX_STEAL}, chosen on a steal-heavy night's calibration: docs/statistics.md)`,
  },
  {
    names: ["--precision"],
    value: "PCT",
    brief: `add rounds until every 95% CI is within +-PCT%, for at most --max-time (default: ${DEFAULT_MAX_TIME_SEC / 60}m)`,
    help: `add rounds (at least ${PRECISION_FLOOR}; side by side, ${SIDE.rounds}) until every app's mean and every comparison the summary makes has a 95% CI within +-PCT percent, or until the next round would not fit in --max-time`,
  },
  {
    names: ["--max-time"],
    value: "DURATION",
    help: `with --precision: the time the rounds may take, like 90s, 10m or 1h (default: ${DEFAULT_MAX_TIME_SEC / 60}m)`,
  },
  {
    names: ["--calibrate"],
    help: `the statistics' known answer: bun-bare against itself (A/A) and against itself with ${CALIBRATION_SHARES_TEXT} more CPU per request (side by side: ${SIDE_CALIBRATION_SHARES_TEXT}; BENCH_EXTRA_WORK, sized first); reports the verdicts and how often subsamples of a default run's length call each different. Takes no apps; ${2 * DEFAULTS.rounds} rounds unless -n says otherwise`,
  },
  {
    names: ["-t", "--tool"],
    value: "NAME",
    brief: `wrk, oha or autocannon (default: the first installed)`,
    help: `load generator: wrk, oha or autocannon (default: the first installed, in that order: wrk is the least likely to be the bottleneck; autocannon is a project dependency, so there is always one)`,
  },
  {
    names: ["-o", "--output"],
    paths: "all",
    value: "DIR",
    brief: `results directory (default: results/<UTC timestamp>)`,
    help: `results directory (default: results/<UTC timestamp>)`,
  },
  {
    names: ["--no-pin"],
    help: `do not pin the server and the load generator to separate CPUs`,
  },
  {
    names: ["-q", "--quick"],
    brief: `smoke run: ${QUICK.rounds} rounds of ${QUICK.samples} x ${QUICK.duration} s samples, ${QUICK.connections} connections (${aboutMinutes(runSec(APPS.length, QUICK))} for all apps)`,
    help: `smoke-run preset: ${QUICK.rounds} rounds of ${QUICK.samples} x ${QUICK.duration} s samples after ${QUICK.warmup} s warm-up, ${QUICK.connections} connections (other flags still override it)`,
  },
  {
    names: ["--rates"],
    value: "LIST",
    help: `after each trial, one open-loop trial per rate at a constant offered rate, latency counted from when each request was due (oha -q --latency-correction; wrk and autocannon cannot, so this needs oha): req/s ("5000") or shares of the app's closed-loop req/s in that same trial ("50%"), comma-separated, e.g. 25%,50%,75%,90%. "search": in the last round, find the capacity at the p99 budget (bracket from the closed-loop req/s, bisect to 5%, three trials at each end; a miss is checked against oha's own p99 at that rate against a do-nothing server): the interval and every level tried`,
  },
  {
    names: ["--slo-p99"],
    value: "MS",
    help: `the p99 budget for "capacity at a latency budget": the highest offered rate whose p99 stayed within it (default: ${DEFAULT_SLO_P99_MS}); requests due but never sent count as over it`,
  },
  {
    names: ["--startup"],
    value: "N",
    help: `N more fresh starts per app, without load, for the start-up figures (spawn to first correct answer, memory when ready and after 1 s idle; every start of the run is measured anyway) (default: 0)`,
  },
  {
    names: ["--profile"],
    help: `after the measured rounds, one extra trial per app and scenario with the runtime's CPU profiler on (node/bun/deno --cpu-prof); writes profiles/<app>-<scenario>.cpuprofile (Chrome DevTools, speedscope) and lists each profile's hottest functions in the reports. Profiled trials never count in the results`,
  },
  {
    names: ["--workers"],
    value: "N",
    help: `serve each app's port from N processes (node:cluster; on Bun and Deno every worker listens with reusePort), or "auto": one per CPU but one, which the load generator keeps (default: 1). A list (1,2,4) measures each app at each count, interleaved, and adds a scaling table. The server gets the first N CPUs and the load generator the CPUs above the largest N; with none left over, nothing is pinned and the report says so. At most 4 per CPU. Not with --profile`,
  },
  {
    names: ["--node"],
    value: "LIST",
    help: `run each Node app on each of these Node versions, interleaved in the same rounds (--node 22,24,26 --bun 1.3,1.4 --deno 2.9): a major or major.minor means its newest release, an exact version is taken as given. Each version is installed once into .cache/runtimes from the npm registry (node, bun and deno packages) and checked with --version; every row is named app@version and the reports add a version comparison. Without them, the versions the lockfile pins`,
  },
  {
    names: ["--bun"],
    value: "LIST",
    help: `the same for the Bun apps`,
  },
  {
    names: ["--deno"],
    value: "LIST",
    help: `the same for the Deno apps`,
  },
  {
    names: ["--side-by-side"],
    brief: `two apps at the same moment on one core, compared by CPU time per request`,
    help: `measure two apps at the same moment: both servers on the server's CPU, each loaded by its own load generator on the generator's CPU, started together; the figure is each server's CPU time per request (schedstat of all its threads / the requests answered), relative to a reference. Noise that moves both cancels in the ratio: on this VM, in under three minutes, +-0.8% for an app against itself, about +-2% for two Node frameworks, +-1.2-2.3% in a quiet hour and about +-4% in a noisy one for Bun against Node (whom the machine's noise moves unalike: their ratio also moves from hour to hour). Pairs of fresh processes, their positions (address, start order) alternated every round and analysed as the crossover they make. Several apps: each against --reference; one app: against itself (A/A); with --node/--bun/--deno, each app's versions against its first (every app needs two or more). Defaults: ${SIDE.rounds} rounds (pairs) of ${SIDE.samples} x ${DEFAULTS.duration} s samples after ${SIDE.warmup} s of warm-up, ${SIDE.connections} connections per app. Needs taskset and 2 cores; not with --no-pin, --workers, --rates, --profile, a list of --connections or --server-host`,
  },
  {
    names: ["--reference"],
    value: "APP",
    help: `the app every other is measured against (default: the first named): side by side, the reference of each pair; one at a time, the app each other's req/s ratio is recorded against in the history`,
  },
  {
    names: ["--against"],
    value: "GIT_REF",
    brief: `this checkout's apps against that commit's, side by side: slower, faster, no change or inconclusive`,
    help: `the named apps at another commit (a git worktree of it in .cache/against, its locked dependencies installed there) side by side with this checkout's: slower / faster / no change beyond --threshold (default ${DEFAULT_AGAINST_THRESHOLD * 100}, a change in CPU per request) / inconclusive per app and scenario, and the outcome in one last line (SLOWER, INCONCLUSIVE or none slower); exit 1 if an app is slower (--fail-inconclusive: or if inconclusive). Where the commit's bun.lock is this checkout's, this checkout's installed dependencies are hard-linked into it (seconds, no extra space); else installed there; the run states the checkout's disk use. Implies --side-by-side; not with --apps-root`,
  },
  {
    names: ["--fail-inconclusive"],
    help: `with --against: exit 1 when the gate is inconclusive too, not only when an app is slower: no app shown slower by --threshold, but one not shown within it either (too few pairs, too much noise). For a gate that must see each change settled`,
  },
  {
    names: ["--db"],
    value: "ENGINE",
    brief: `the database scenarios' engine: sqlite (default) or postgres`,
    help: `the database scenarios' engine: sqlite (default: each app process its own seeded file, the runtime's own driver) or postgres: a throwaway server from this machine's PostgreSQL (initdb into a temporary folder, 127.0.0.1, pinned to the server's CPU), a seeded copy per app start (its workers share it), Bun.sql on Bun and postgres.js on Node and Deno, ${PG_POOL} connections per process; stopped and removed however the run ends. Needs a database scenario (-s db,queries,fortunes,updates); one --workers count; not with --side-by-side, --against or --server-host`,
  },
  {
    names: ["--history"],
    value: "FILE|URL",
    help: `the history every finished run records itself in (a session: its testbed, settings, commit, versions and every estimate with its standard error), and checks itself against: a SQLite file, or a PostgreSQL URL (postgres://user@host/db) that many machines can share (default: results/history.sqlite, or BENCH_HISTORY). One that cannot be reached or written is refused before anything is measured. Runs of --calibrate, --against and --apps-root are not recorded. See ./benchmark.sh history --help`,
  },
  {
    names: ["--sessions"],
    value: "N",
    help: `a campaign: N sessions (each a full run with its own random order, recorded in the history), their starts at random within --spread, never overlapping (a session starts when its time has come and the previous one has ended); each in DIR/session-K of -o. Without -n, each session's rounds come from Kalibera & Jones's allocation with the variance components this testbed's history has measured for these settings (never fewer than 3); the campaign ends with the across-session view of its series`,
  },
  {
    names: ["--spread"],
    value: "DURATION",
    help: `with --sessions: the window the sessions' starts fall in, like 90s, 10m or 4h (default: 0, one after another)`,
  },
  {
    names: ["--no-history"],
    help: `do not record this run in the history (nor check it against it)`,
  },
  {
    names: ["--export"],
    paths: "last",
    value: "bmf FILE",
    missing: "--export needs a format and a file: bmf FILE",
    help: `write the run's figures in Bencher Metric Format (throughput, latency, cpu-per-request, cost-ratio; the 95% interval where the run has one) for a continuous-benchmarking service (bencher run --adapter json); after a finished run, or with --report`,
  },
  {
    names: ["--apps-root"],
    paths: "all",
    value: "DIR",
    help: `take apps from DIR/apps/<name> instead of this checkout (for testing the harness with stand-in apps)`,
  },
  {
    names: ["--server-host"],
    value: "[USER@]HOST[:PORT]",
    help: `run the apps on that machine, reached over SSH (key login, no password prompt), and the load generator here. The project must be checked out there at this checkout's commit (--server-dir); Bun and the dependencies are installed there as here. The apps listen on the address SSH reached (127.0.0.1 otherwise), so the firewall there must let this machine reach ports 3000-3014. CPU, memory, steal, pinning and start-up are measured there, over one SSH connection; the manifest records both machines and the round trip between them. Not with --calibrate, --rates search, --node/--bun/--deno, --apps-root or --workers auto`,
  },
  {
    names: ["--server-dir"],
    value: "DIR",
    help: `the checkout on the server host (default: this checkout's path)`,
  },
  {
    names: ["--ssh-config"],
    paths: "all",
    value: "FILE",
    help: `ssh's -F: the config file to use (keys, known hosts, jump hosts)`,
  },
  {
    names: ["-h", "--help"],
    brief: `these lines; --help all: every flag, the apps, the scenarios, the exit status`,
    help: `the common flags and examples; --help all: this text`,
  },
  {
    names: ["--report"],
    paths: "all",
    value: "FILE",
    section: "reports",
    brief: `regenerate summary.txt and the reports from a results.json`,
    help: `regenerate summary.txt, report.md and report.html from a results.json (or the run folder holding it): a later analysis of an earlier run`,
  },
  {
    names: ["--compare"],
    paths: "all",
    value: "BASE NEW",
    missing: "--compare needs two files: BASE NEW",
    section: "reports",
    brief: `compare two results.json files: exit 1 on a regression`,
    help: `compare two results.json files: req/s and p99 per app and scenario, and the smallest change each pair could have detected; exit 1 if any app is slower by more than the threshold and significantly so (one-sided Welch's t-test on process means, Holm over the pairs, family-wise 5%), or failed, went unmeasured or is missing in the new run; "no change" only where an equivalence test (TOST) shows it; exit 2 if the runs differ in ${MEASURED.map((s) => s.name).join(", ")} or machine`,
  },
  {
    names: ["--threshold"],
    value: "PCT",
    section: "reports",
    help: `regression threshold for --compare, in percent (default: ${DEFAULT_COMPARE.threshold * 100}), or for --against (default: ${DEFAULT_AGAINST_THRESHOLD * 100})`,
  },
  {
    names: ["--allow-mismatch"],
    section: "reports",
    help: `with --compare: compare runs whose setups differ anyway; the output's first line lists the differences`,
  },
  {
    names: ["--update-readme"],
    paths: "all",
    value: "FILE",
    section: "reports",
    help: `replace README.md's results section with this run's report and Mermaid charts`,
  },
];

/** A command line that cannot be read or does not hold together: exit 2, with a pointer to --help. */
export class UsageError extends Error {}

/** What the environment refuses (a missing tool, an unusable folder, a limit): exit 2, one line. */
export class EnvironmentError extends Error {}

/** A flag's key: its last name without the dashes ("--rounds" → "rounds"). */
export const keyOf = (flag: FlagSpec): string => (flag.names.at(-1) as string).replace(/^-+/, "");

const arity = (flag: FlagSpec): number =>
  flag.value === undefined ? 0 : flag.value.split(" ").length;

const BY_NAME = new Map(
  FLAGS.flatMap((f) => [...f.names, ...(f.aliases ?? [])].map((n) => [n, f])),
);

/** The command line as read: each flag given (by key) with its values, and the app names. */
export interface ReadArgs {
  /** A switch maps to [], a flag to its values; the last occurrence counts, unless it joins. */
  readonly given: ReadonlyMap<string, readonly string[]>;
  readonly positionals: readonly string[];
}

/** Reads argv against FLAGS: an unknown flag or a missing value is a UsageError. */
export function readArgs(argv: readonly string[], cwd = process.cwd()): ReadArgs {
  const given = new Map<string, string[]>();
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

const isPath = (flag: FlagSpec, index: number, count: number) =>
  flag.paths === "all" || (flag.paths === "last" && index === count - 1);

/** Paths given on the command line are relative to where the user is, not to the harness. */
const absolute = (path: string, cwd: string) => resolve(cwd, path);

const COLUMN = 25;
const WIDTH = 90;

/** A paragraph in lines of at most `width` characters (a longer word stands alone). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * One flag as --help shows it: its names and value, then its paragraph in a column (`brief`:
 * its line of the short help).
 */
export function flagHelp(flag: FlagSpec, brief = false): string {
  const short = flag.names.length > 1 ? "  " : "      ";
  const left = `${short}${flag.names.join(", ")}${flag.value ? ` ${flag.value}` : ""}`;
  const text = brief ? (flag.brief ?? flag.help) : flag.help;
  const [first = "", ...rest] = wrap(text, WIDTH - COLUMN);
  const indent = " ".repeat(COLUMN);
  const head =
    left.length < COLUMN ? `${left.padEnd(COLUMN)}${first}` : `${left}\n${indent}${first}`;
  return [head, ...rest.map((l) => `${indent}${l}`)].join("\n");
}

const USAGE = `Usage: ./benchmark.sh [options] [app ...]
       ./benchmark.sh --help all       every flag, the apps and scenarios, the exit status
       ./benchmark.sh history --help   the history of sessions`;

/** What a default run is and how long it takes, from the defaults themselves. */
const DEFAULT_RUN =
  `The default run: all ${APPS.length} apps, each started afresh ${DEFAULTS.rounds} times (rounds, apps interleaved), ` +
  `verified against the contract, then ${DEFAULTS.warmup} s of warm-up and ${DEFAULTS.samples} × ` +
  `${DEFAULTS.duration} s samples at ${DEFAULTS.connections} connections each time: ` +
  `${aboutMinutes(runSec(APPS.length))} (${DEFAULTS.warmup + DEFAULTS.samples * DEFAULTS.duration} s ` +
  `of load and about ${PROCESS_COST_SEC} s of start, checks and stop per process). Results, ` +
  "summary.txt and the reports go to results/<UTC timestamp>/.";

const EXAMPLES = [
  ["./benchmark.sh", `the default run (${aboutMinutes(runSec(APPS.length))})`],
  ["./benchmark.sh --quick bun-hono node-hono", "a smoke run of two apps"],
  ["./benchmark.sh -s all -t wrk bun-hono node-hono", "every scenario, wrk"],
  ["./benchmark.sh --precision 3 bun-bare bun-hono", "rounds until every CI is +-3%"],
  ["./benchmark.sh --side-by-side node-hono bun-hono", "CPU per request, at once"],
  ["./benchmark.sh --against main bun-hono", "did my change slow bun-hono?"],
  ["./benchmark.sh --node 22,24 node-hono", "one app on two Nodes"],
  ["./benchmark.sh --report results/<run>", "the reports again"],
];

/** ./benchmark.sh --help: what fits a screen (usage, the default run, the common flags, examples). */
function shortHelp(): string {
  const width = Math.max(...EXAMPLES.map(([command]) => (command as string).length)) + 2;
  return [
    USAGE,
    wrap(DEFAULT_RUN, WIDTH).join("\n"),
    ["Common options:", ...FLAGS.filter((f) => f.brief).map((f) => flagHelp(f, true))].join("\n"),
    [
      "Examples:",
      ...EXAMPLES.map(([command, what]) => `  ${(command as string).padEnd(width)}${what}`),
    ].join("\n"),
  ].join("\n\n");
}

const PREAMBLE = `Benchmarks the apps (default: all ${APPS.length}) on one or more scenarios and writes
results/<UTC timestamp>/results.json and summary.txt; prints the summary at the end.

A run is rounds: in each, every app is started afresh (one process), verified, warmed up,
then measured in a few short back-to-back samples; the apps take turns, in an order reversed
every round. Means and 95% confidence intervals are over the processes; every rank, tie and
comparison comes from one set of tests (a paired t-test on per-round log ratios where
two apps share 20 rounds or more, Welch's on process means below that; Holm over each
table), and a tie states the smallest difference the run could have detected.`;

const REPORTS = "Reports (every run writes report.md and report.html next to its results.json):";

const EXIT_STATUS = `Exit status: 0 every app measured and every sample valid; 1 an app failed (start, contract,
crash) or a sample was invalid (or --compare found a regression or a failed, unmeasured or
missing app, or --against an app slower than at the commit, or --export could not write);
2 bad flags, an app or scenario given twice, a missing tool, a runtime version that cannot
be had, an unusable --output, -c beyond the open-file limit or the local ports
(all before anything is measured), a --server-host that cannot be reached or lacks the
project at this commit, an --against commit that cannot be checked out or installed,
--side-by-side without pinning, BENCH_EXTRA_WORK set outside --calibrate, or an unreadable
results.json; 130 interrupted (Ctrl-C), with the finished samples kept. A connection to the
--server-host lost mid-run: 1, with the finished samples kept.`;

/**
 * ./benchmark.sh --help: a screen of the common flags; `all` (--help all): the whole table,
 * and the apps and scenarios the contract knows.
 */
export function helpText(all = false): string {
  if (!all) return shortHelp();
  const section = (reports: boolean) =>
    FLAGS.filter((f) => (f.section === "reports") === reports).map((f) => flagHelp(f));
  const apps = APPS.map(
    (a) => `  ${a.name.padEnd(13)}port ${a.port}  ${a.runtime} + ${a.framework}`,
  );
  const scenarios = SCENARIOS.map(
    (s) =>
      `  ${s.name.padEnd(10)}${s.description}${s.name === DEFAULT_SCENARIO ? " (default)" : ""}`,
  );
  return [
    USAGE,
    PREAMBLE,
    wrap(DEFAULT_RUN, WIDTH).join("\n"),
    ["Options:", ...section(false)].join("\n"),
    [REPORTS, ...section(true)].join("\n"),
    EXIT_STATUS,
    ["Apps:", ...apps].join("\n"),
    ["Scenarios:", ...scenarios].join("\n"),
  ].join("\n\n");
}
