// ./benchmark.sh history: the history of sessions read back (terminal, history.md and
// history.html, --json, --export bmf), checked (--check: exit 1 when a series' newest session
// is CHANGED), or fed earlier runs (history import DIR...). Exit: 0 ok, 1 --check found a
// change, 2 usage or a history that cannot be used.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { analyze } from "../analysis/analysis.ts";
import { METRIC_UNITS } from "../analysis/session-estimates.ts";
import { REPO_ROOT } from "../common/root.ts";
import { orList } from "../common/text.ts";
import { openHistory } from "../history/open.ts";
import { sessionOf } from "../history/recording.ts";
import {
  defaultHistory,
  HISTORY_ENV,
  HISTORY_FILE,
  HistoryError,
  type HistoryStore,
} from "../history/store.ts";
import { changedNow, type HistoryFilter, historyView, type SeriesView } from "../history/view.ts";
import type { Results } from "../results/schema.ts";
import { InputError, loadResults } from "./files.ts";
import {
  historyBmf,
  historyHtml,
  historyJson,
  historyMarkdown,
  historyReadme,
  historyText,
  withHistorySection,
} from "./history-report.ts";

/** The README's headline figures need this many sessions (issue 46: 8, over four hours). */
export const README_SESSIONS = 8;

export interface HistoryIo {
  out(line: string): void;
  err(line: string): void;
}

const TERMINAL: HistoryIo = { out: (l) => console.log(l), err: (l) => console.error(l) };

/** The figures --metric chooses among: those a session records. */
const METRICS = Object.keys(METRIC_UNITS);

export const HISTORY_USAGE = `Usage: ./benchmark.sh history [APP ...] [-s SCENARIO] [--testbed ID] [--metric M] [--json] [--check]
       ./benchmark.sh history import DIR ...

The history of sessions (each finished run records itself): per testbed and settings, never
pooled, each series' sessions in time order, what they say together (the across-session
estimate and its 95% CI, how far sessions part, the prediction for one more session), the
sessions that were CHANGED when new, and the steps Apache Otava's method finds. Writes
history.md and history.html (-o DIR, default results/history/) and prints the same.

  APP ...             only series of these apps (as the app or as the reference)
  -s, --scenario S    only this scenario (as the run's tables name it: api, "api (c=10)")
  --testbed ID        only this testbed (its id, or the start of it)
  --metric M          only ${orList(METRICS)}
  --json              print only the history as JSON on stdout (natural scale, full precision)
  --check             exit 1 if the newest session of any series is CHANGED, naming them
  --export bmf FILE   each series' across-session estimate in Bencher Metric Format
  --update-readme FILE  replace FILE's history section (between <!-- history:start --> and
                      <!-- history:end -->) with the series shown that have ${README_SESSIONS}+ sessions
  --history FILE|URL  the history to read (default: ${HISTORY_FILE}, or ${HISTORY_ENV})
  -o, --output DIR    where history.md and history.html go (default: results/history)
  import DIR ...      add the runs in these folders (a run folder, or a folder of them, as
                      docs/results): each complete results.json not of --calibrate,
                      --against or --apps-root, once

Exit status: 0 ok; 1 --check found a CHANGED series; 2 bad flags, or a history that cannot be
read (not one, corrupt, written by a newer harness, unreachable).`;

interface Parsed {
  readonly command: "show" | "import" | "help";
  readonly positionals: string[];
  readonly filter: HistoryFilter;
  readonly json: boolean;
  readonly check: boolean;
  readonly bmf?: string;
  readonly readme?: string;
  readonly target: string;
  readonly outDir: string;
}

const VALUED = new Set([
  "-s",
  "--scenario",
  "--testbed",
  "--metric",
  "--history",
  "-o",
  "--output",
  "--update-readme",
]);
const SWITCHES = new Set(["--json", "--check", "-h", "--help"]);

/** Reads `history`'s arguments; a paths relative to `cwd`; an InputError on anything unknown. */
export function parseHistoryArgs(argv: readonly string[], cwd = process.cwd()): Parsed {
  const given = new Map<string, string>();
  const switches = new Set<string>();
  const positionals: string[] = [];
  let bmf: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--export") {
      if (argv[i + 1] !== "bmf" || argv[i + 2] === undefined)
        throw new InputError("--export needs a format and a file: bmf FILE");
      bmf = resolve(cwd, argv[i + 2] as string);
      i += 2;
    } else if (VALUED.has(arg)) {
      const value = argv[++i];
      if (value === undefined || value === "") throw new InputError(`${arg} needs a value`);
      given.set(arg.replace(/^-+/, "").replace(/^s$/, "scenario").replace(/^o$/, "output"), value);
    } else if (SWITCHES.has(arg)) switches.add(arg);
    else if (arg.startsWith("-")) throw new InputError(`unknown option '${arg}'`);
    else positionals.push(arg);
  }
  const metric = given.get("metric");
  if (metric !== undefined && !METRICS.includes(metric))
    throw new InputError(`--metric is ${orList(METRICS)}, got '${metric}'`);
  const history = given.get("history");
  const target =
    history === undefined
      ? defaultHistory()
      : history.includes("://")
        ? history
        : resolve(cwd, history);
  const importing = positionals[0] === "import";
  if (importing && positionals.length < 2)
    throw new InputError("history import needs a folder: DIR ...");
  return {
    command: switches.has("-h") || switches.has("--help") ? "help" : importing ? "import" : "show",
    positionals: importing ? positionals.slice(1).map((p) => resolve(cwd, p)) : positionals,
    filter: {
      ...(importing || positionals.length === 0 ? {} : { apps: positionals }),
      ...(given.has("scenario") ? { scenario: given.get("scenario") as string } : {}),
      ...(given.has("testbed") ? { testbed: given.get("testbed") as string } : {}),
      ...(metric !== undefined ? { metric } : {}),
    },
    json: switches.has("--json"),
    check: switches.has("--check"),
    ...(bmf ? { bmf } : {}),
    ...(given.has("update-readme")
      ? { readme: resolve(cwd, given.get("update-readme") as string) }
      : {}),
    target,
    outDir: resolve(cwd, given.get("output") ?? join(REPO_ROOT, "results", "history")),
  };
}

/** Every results.json a folder names: its own, or its subfolders' (one level down). */
export function resultsFiles(dir: string): string[] {
  if (existsSync(join(dir, "results.json"))) return [join(dir, "results.json")];
  if (!existsSync(dir)) throw new InputError(`${dir}: no such folder`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, "results.json")))
    .map((e) => join(dir, e.name, "results.json"))
    .sort();
}

/** Why a run is not a session of the history; undefined when it is one. */
export function notASession(results: Results): string | undefined {
  if (results.status !== "complete") return `${results.status}, not complete`;
  if (results.manifest.calibration) return "a --calibrate run";
  if (results.manifest.settings.sideBySide?.against) return "an --against run";
  if (results.manifest.settings.argv.includes("--apps-root")) return "an --apps-root run";
  return undefined;
}

async function importRuns(store: HistoryStore, dirs: readonly string[], io: HistoryIo) {
  let added = 0;
  for (const file of dirs.flatMap(resultsFiles)) {
    const name = relative(REPO_ROOT, dirname(file)) || dirname(file);
    let results: Results;
    try {
      results = loadResults(file);
    } catch (error) {
      io.err(`${name}: skipped: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
      continue;
    }
    const why = notASession(results);
    if (why) {
      io.err(`${name}: skipped: ${why}`);
      continue;
    }
    const fresh = await store.add(sessionOf(results, analyze(results), dirname(file)));
    if (fresh) added++;
    io.err(`${name}: ${fresh ? "added" : "already in the history"}`);
  }
  io.out(`history: ${added} session(s) added to ${store.where}`);
}

/** --update-readme FILE: its history section from the series shown; a file without one refused. */
function updateReadme(file: string, series: readonly SeriesView[], io: HistoryIo): void {
  let text: string;
  try {
    text = withHistorySection(readFileSync(file, "utf8"), historyReadme(series, README_SESSIONS));
  } catch (error) {
    throw new InputError(
      `--update-readme ${file}: ${error instanceof Error ? error.message : error}`,
    );
  }
  writeFileSync(file, text);
  io.err(`history: ${file}: history section updated`);
}

async function show(store: HistoryStore | undefined, p: Parsed, io: HistoryIo): Promise<number> {
  const series = historyView(store ? await store.sessions() : [], p.filter);
  if (p.json) {
    io.out(JSON.stringify(historyJson(series), null, 2));
  } else {
    io.out(historyText(series));
    const where = store?.where ?? p.target;
    mkdirSync(p.outDir, { recursive: true });
    writeFileSync(join(p.outDir, "history.md"), historyMarkdown(series, where));
    writeFileSync(join(p.outDir, "history.html"), historyHtml(series, where));
    io.err(`history: ${join(p.outDir, "history.md")}, ${join(p.outDir, "history.html")}`);
  }
  if (p.bmf) writeFileSync(p.bmf, `${JSON.stringify(historyBmf(series), null, 2)}\n`);
  if (p.readme) updateReadme(p.readme, series, io);
  if (!p.check) return 0;
  const changed = changedNow(series);
  for (const s of changed) {
    io.err(
      `CHANGED: ${s.app}${s.reference ? ` against ${s.reference}` : ""} · ${s.scenario} · ${s.metric} (session ${s.sessions.at(-1)?.run}, testbed ${s.testbed})`,
    );
  }
  if (changed.length === 0) io.err("history --check: no series' newest session is CHANGED");
  return changed.length > 0 ? 1 : 0;
}

async function main(argv: readonly string[], io: HistoryIo, cwd: string): Promise<number> {
  const p = parseHistoryArgs(argv, cwd);
  if (p.command === "help") {
    io.out(HISTORY_USAGE);
    return 0;
  }
  const store = await openHistory(p.target, p.command === "import");
  try {
    if (p.command === "import") {
      await importRuns(store as HistoryStore, p.positionals, io);
      return 0;
    }
    return await show(store, p, io);
  } finally {
    await store?.close();
  }
}

/** The command, its refusals as one line and exit 2. */
export async function runHistoryCli(
  argv: readonly string[],
  io: HistoryIo = TERMINAL,
  cwd = process.cwd(),
): Promise<number> {
  try {
    return await main(argv, io, cwd);
  } catch (error) {
    if (!(error instanceof HistoryError || error instanceof InputError)) throw error;
    io.err(`history: ${error.message}`);
    if (error instanceof InputError) io.err("Run './benchmark.sh history --help' for the flags.");
    return 2;
  }
}
