// --help from the one table (flags.ts): a screen of the common flags (those with a brief), the
// default run and its length, and examples; --help all: every flag's paragraph, the apps, the
// scenarios and the exit status. Every number in it comes from the constants that decide it.

import { APPS, DEFAULT_SCENARIO, SCENARIOS } from "@bench/contract";
import { PAIRED_MIN_ROUNDS } from "../analysis/verdicts.ts";
import { aboutMinutes, DEFAULTS, FLAGS, type FlagSpec, PROCESS_COST_SEC, runSec } from "./flags.ts";

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
two apps share ${PAIRED_MIN_ROUNDS} rounds or more, Welch's on process means below that; Holm over each
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
  const width = Math.max(...SCENARIOS.map((s) => s.name.length)) + 2;
  const scenarios = SCENARIOS.map(
    (s) =>
      `  ${s.name.padEnd(width)}${s.description}${s.name === DEFAULT_SCENARIO ? " (default)" : ""}`,
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
