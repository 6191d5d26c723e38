// scripts/mutation.sh: runs StrykerJS once per group (groups.ts) whose code or tests changed since
// its scores were recorded (recorded.ts), then scores every module against the bar, the unchanged
// groups with their recorded scores. Usage: mutation.sh [--all] [--record] [--survivors] [group ...]:
// --all runs every group (a group named runs anyway); --record writes the scores of the groups
// that ran into recorded.json; --survivors rewrites the sections of docs/mutation-survivors.md
// for the modules this run scored, carrying the reasons already written there.
// Exit status: 0 every module at or above the bar, 1 one below it or a Stryker run failed,
// 2 usage or environment error.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { GROUPS, type MutationGroup } from "./groups.ts";
import { fingerprint, readRecorded, toRun, withScores, writeRecorded } from "./recorded.ts";
import { belowBar, type ModuleScore, type StrykerReport, scoresOf, scoreTable } from "./score.ts";
import {
  reasonsFrom,
  type Survivor,
  survivorsOf,
  survivorTables,
  unreviewed,
} from "./survivors.ts";

/** Every module's mutation score must reach this, in percent. */
export const BAR = 90;
/** A mutant's tests get this much longer than the unmutated run before it counts as a hang. */
const TIMEOUT_MS = 5000;

const ROOT = resolve(import.meta.dir, "../../..");
const OUT = join(ROOT, "test-artifacts/mutation");
const PAGE = join(ROOT, "docs/mutation-survivors.md");
/** The scores each group last had, with the fingerprint they were scored at (recorded.ts). */
const RECORDED = join(ROOT, "packages/harness/mutation/recorded.json");
const NODE = join(ROOT, "packages/harness/node_modules/.bin/node");
const STRYKER = join(ROOT, "node_modules/@stryker-mutator/core/bin/stryker.js");
const TEST_SCRIPT = join(ROOT, "scripts/mutation-test.sh");

function usage(message: string): never {
  console.error(`mutation.sh: ${message}`);
  console.error(
    `usage: mutation.sh [--all] [--record] [--survivors] [group ...]; groups: ${GROUPS.map((g) => g.name).join(", ")}`,
  );
  process.exit(2);
}

/** Where mutation-test.sh writes the test runs that exited 0 without bun test's summary. */
const oddLog = (group: MutationGroup) => join(OUT, `${group.name}.odd.log`);

function configOf(group: MutationGroup): string {
  const config = {
    testRunner: "command",
    // bun test --bail, a mutant surviving only on bun test's own summary (mutation-test.sh)
    commandRunner: {
      command: `MUTATION_ODD_LOG='${oddLog(group)}' bash '${TEST_SCRIPT}' ${group.tests.join(" ")}`,
    },
    mutate: group.mutate,
    coverageAnalysis: "off",
    // MUTATION_CONCURRENCY: fewer test processes at once, for a machine that is busy already
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    timeoutMS: TIMEOUT_MS,
    reporters: ["json", "progress-append-only"],
    jsonReporter: { fileName: join(OUT, `${group.name}.json`) },
    thresholds: { high: BAR, low: BAR, break: null },
    tempDirName: join(ROOT, ".stryker-tmp"),
    cleanTempDir: "always",
  };
  const file = join(tmpdir(), `stryker-${group.name}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/**
 * One Stryker run; resolves to its exit status. Its log and JSON report go to
 * test-artifacts/mutation; an earlier run's report is removed first, so a run that fails
 * before writing one is never scored with stale results.
 */
function runGroup(group: MutationGroup): Promise<number> {
  const cwd = join(ROOT, "packages", group.package);
  const log = join(OUT, `${group.name}.log`);
  rmSync(join(OUT, `${group.name}.json`), { force: true });
  rmSync(oddLog(group), { force: true });
  const config = configOf(group);
  const child = spawn(NODE, [STRYKER, "run", config], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    lines.push(text);
    for (const line of text.split("\n")) {
      if (/Mutation testing \d+%|ERROR|Instrumented/.test(line))
        console.log(`  ${group.name}: ${line.trim()}`);
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return new Promise((done) => {
    child.on("close", (code) => {
      writeFileSync(log, lines.join(""));
      if (existsSync(oddLog(group))) {
        const odd = readFileSync(oddLog(group), "utf8").trim().split("\n").length;
        console.log(
          `  ${group.name}: ${odd} test run(s) exited 0 without bun test's summary, each run again; a mutant whose second run did the same counts as killed (${oddLog(group)})`,
        );
      }
      rmSync(config, { force: true });
      done(code ?? 1);
    });
  });
}

function readReport(group: MutationGroup): { scores: ModuleScore[]; survivors: Survivor[] } {
  const report = JSON.parse(readFileSync(join(OUT, `${group.name}.json`), "utf8")) as StrykerReport;
  const dir = `packages/${group.package}`;
  return { scores: scoresOf(report, dir), survivors: survivorsOf(report, dir) };
}

/** Rewrites the sections of the modules this run scored; the others stay as they were. */
function writePage(scored: readonly ModuleScore[], survivors: readonly Survivor[]): number {
  const old = existsSync(PAGE) ? readFileSync(PAGE, "utf8") : "# Surviving mutants\n";
  const reasons = reasonsFrom(old);
  const [intro, ...sections] = old.split(/\n(?=## )/);
  const rerun = new Set(scored.map((s) => s.module));
  const kept = sections.filter((s) => !rerun.has(/^## (\S+)/.exec(s)?.[1] ?? ""));
  const fresh = survivorTables(survivors, reasons)
    .split(/\n(?=## )/)
    .filter(Boolean);
  const all = [...kept.map((s) => s.trim()), ...fresh.map((s) => s.trim())].sort();
  writeFileSync(PAGE, `${(intro ?? "").trimEnd()}\n\n${all.join("\n\n")}\n`);
  return unreviewed(survivors, reasons);
}

/** What the fingerprints include besides the files: the tools and the rules of the run. */
function tools(): string {
  const stryker = join(ROOT, "node_modules/@stryker-mutator/core/package.json");
  const version = (JSON.parse(readFileSync(stryker, "utf8")) as { version: string }).version;
  return JSON.stringify({ stryker: version, bun: process.versions.bun, BAR, TIMEOUT_MS });
}

interface Flags {
  readonly survivors: boolean;
  readonly all: boolean;
  readonly record: boolean;
  readonly names: string[];
}

function flagsOf(argv: readonly string[]): Flags {
  const known = ["--survivors", "--all", "--record"];
  const names = argv.filter((a) => !known.includes(a));
  for (const a of names) {
    if (a.startsWith("-")) usage(`unknown option ${a}`);
    if (!GROUPS.some((g) => g.name === a)) usage(`no group named ${a}`);
  }
  return {
    survivors: argv.includes("--survivors"),
    // a group named is run whether it changed or not
    all: argv.includes("--all") || names.length > 0,
    record: argv.includes("--record"),
    names,
  };
}

/** Runs each group in turn; whether every Stryker run succeeded. */
async function runAll(groups: readonly MutationGroup[]): Promise<boolean> {
  let ok = true;
  for (const group of groups) {
    const started = Date.now();
    console.log(`mutation: ${group.name}: ${group.mutate.join(" ")}`);
    const status = await runGroup(group);
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    console.log(`mutation: ${group.name}: Stryker exited ${status} after ${minutes} min`);
    if (status !== 0) ok = false;
  }
  return ok;
}

async function main(argv: string[]): Promise<number> {
  const flags = flagsOf(argv);
  if (!existsSync(NODE) || !existsSync(STRYKER))
    usage(`${NODE} or Stryker is missing (bun install)`);
  const wanted =
    flags.names.length === 0 ? GROUPS : GROUPS.filter((g) => flags.names.includes(g.name));
  const recorded = readRecorded(RECORDED);
  const stamp = tools();
  const prints = new Map(wanted.map((g) => [g.name, fingerprint(g, ROOT, stamp)]));
  const { run, reused } = toRun(wanted, recorded, (g) => prints.get(g.name) as string, flags.all);
  for (const g of reused) {
    console.log(
      `mutation: ${g.name}: nothing it depends on changed since it was scored (${recorded[g.name]?.scoredAt}): its recorded scores stand`,
    );
  }
  mkdirSync(OUT, { recursive: true });
  const ran = await runAll(run);
  const done = run.filter((g) => existsSync(join(OUT, `${g.name}.json`)));
  const read = done.map(readReport);
  const fresh = read.flatMap((r) => r.scores);
  const scores = [...fresh, ...reused.flatMap((g) => recorded[g.name]?.scores ?? [])];
  console.log(scoreTable(scores, BAR));
  const below = belowBar(scores, BAR);
  if (below.length > 0) console.log(`mutation: ${below.length} module(s) below ${BAR}%`);
  if (flags.survivors) {
    const open = writePage(
      fresh,
      read.flatMap((r) => r.survivors),
    );
    console.log(`mutation: ${PAGE}: ${open} survivor(s) not yet reviewed`);
  }
  if (flags.record && ran) {
    const at = new Date().toISOString();
    const entries = done.map((g, i) => [
      g.name,
      { fingerprint: prints.get(g.name) as string, scoredAt: at, scores: read[i]?.scores ?? [] },
    ]);
    writeRecorded(RECORDED, withScores(recorded, Object.fromEntries(entries)));
    console.log(`mutation: ${RECORDED}: ${done.length} group(s) recorded`);
  }
  return !ran || below.length > 0 || done.length < run.length ? 1 : 0;
}

process.exit(await main(process.argv.slice(2)));
