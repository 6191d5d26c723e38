// run/flags.ts: the one command line. A run's values, each flag's from its row (its form, its
// mode's default); its help (help.ts): a screen of the common flags (--help), the whole table
// (--help all), the defaults as the rows take them, and the run's expected length.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { APPS } from "@bench/contract";
import { REPO_ROOT } from "../src/index.ts";
import type { Results } from "../src/results/schema.ts";
import { commandOf } from "../src/run/command.ts";
import {
  aboutMinutes,
  DEFAULTS,
  FLAGS,
  keyOf,
  PLAIN,
  PROCESS_COST_SEC,
  QUICK,
  runSec,
  type Values,
} from "../src/run/flags.ts";
import { helpText } from "../src/run/help.ts";

/** The flags a help text lists in its table: the names at the start of each flag's line. */
const listed = (help: string): string[] =>
  help
    .split("\n")
    .filter((line) => /^ {2}(-\w,| {4}--)/.test(line))
    .flatMap((line) => [...line.matchAll(/(?<=^ *(?:-\w, )?)--?[\w-]+/g)].map((m) => m[0]));

/** A run's values from its command line, read as a run reads them. */
function run(...argv: string[]): Values {
  const command = commandOf(argv, {}, "/here");
  if (command.kind !== "run") throw new Error(`not a run: ${argv.join(" ")}`);
  return command.values;
}

describe("a run's values", () => {
  test("one per row of the table, by its key; none given, each its default run's default", () => {
    const plain = run();
    const { given, ...values } = plain;
    expect(Object.keys(values).sort()).toEqual(FLAGS.map(keyOf).sort());
    expect(given.size).toBe(0);
    for (const flag of FLAGS.filter((f) => f.default && keyOf(f) !== "output")) {
      expect({ flag: keyOf(flag), value: plain[keyOf(flag)] }).toEqual({
        flag: keyOf(flag),
        value: flag.default?.(PLAIN),
      });
    }
    expect(plain.duration).toBe(DEFAULTS.duration);
    expect(plain.tool).toBeUndefined();
  });

  test("a flag given is read in its form, by whichever of its names; what was given is kept", () => {
    const v = run(
      ...["-c", "1,10", "--workers", "auto", "--max-time", "90s", "--precision", "2.5"],
      ...["--rates", "50%", "--trials", "007", "-t", "wrk", "--no-pin", "bun-bare"],
    );
    expect([v.connections, v.workers, v["max-time"], v.precision, v.rounds, v.tool]).toEqual([
      [1, 10],
      "auto",
      90,
      2.5,
      7,
      "wrk",
    ]);
    expect(v.rates).toEqual([{ text: "50%", fraction: 0.5 }]);
    expect([v["no-pin"], v.profile, v.apps]).toEqual([true, false, "bun-bare"]);
    expect([...v.given].sort()).toEqual([
      "apps",
      "connections",
      "max-time",
      "no-pin",
      "precision",
      "rates",
      "rounds",
      "tool",
      "workers",
    ]);
    expect(() => run("--samples", "0")).toThrow("--samples must be a whole number >= 1, got '0'");
    expect(() => run("-t", "ab")).toThrow(
      "--tool must be oha, wrk, autocannon or h2load, got 'ab'",
    );
  });

  test("the mode's defaults: --quick's preset, side by side's, --calibrate's, --precision's", () => {
    expect(run("--quick").connections).toEqual([QUICK.connections]);
    expect(run("--against", "main").rounds).toBe(15);
    expect(run("--against", "main")["side-by-side"]).toBe(true);
    expect(run("--calibrate").rounds).toBe(2 * DEFAULTS.rounds);
    expect(run("--calibrate").apps).toBe("bun-bare");
    expect(run("--precision", "3").rounds).toBe(3);
    expect(run("--precision", "3", "-n", "8").rounds).toBe(8);
  });
});

describe("--help", () => {
  const short = helpText();
  const all = helpText(true);

  test("fits a screen: 60 lines at most, none wider than 90 characters", () => {
    const lines = short.split("\n");
    expect(lines.length).toBeLessThanOrEqual(60);
    expect(lines.filter((l) => [...l].length > 90)).toEqual([]);
  });

  test("lists the common flags (those with a brief) and no other; --help all lists every flag", () => {
    const common = FLAGS.filter((f) => f.brief !== undefined);
    expect(common.length).toBeGreaterThanOrEqual(8);
    expect(listed(short)).toEqual(common.flatMap((f) => f.names));
    expect(listed(all)).toEqual(FLAGS.flatMap((f) => f.names));
    // --help all gives each flag its whole paragraph, the screen a common flag's brief
    const flat = (text: string) => text.replace(/\s+/g, " ");
    for (const flag of FLAGS) expect(flat(all)).toContain(flat(flag.help));
    for (const flag of common) expect(flat(short)).toContain(flat(flag.brief as string));
    expect(short).toContain("Examples:\n  ./benchmark.sh ");
    expect(all).toContain("\nApps:\n");
    expect(short).not.toContain("\nApps:\n");
  });

  test("every default --help states as a value is the one its flag takes, read in its form", () => {
    // Where the default is a place on this machine (a timestamped folder, this checkout), the
    // help describes it in words; --db's names its default before what the default does.
    const described = ["output", "server-dir", "db"];
    let checked = 0;
    for (const flag of FLAGS.filter((f) => f.default && !described.includes(keyOf(f)))) {
      const stated = /\(default: ([^,;)]+)/.exec(flag.help)?.[1];
      if (stated === undefined) continue;
      let read: unknown;
      try {
        read = flag.form(stated, `--${keyOf(flag)}`, [stated]);
      } catch {
        // Not a value of the flag's form ("0" for --spread: none): the text as said.
        read = stated === String(flag.default?.(PLAIN)) ? flag.default?.(PLAIN) : stated;
      }
      expect({ flag: keyOf(flag), stated: read }).toEqual({
        flag: keyOf(flag),
        stated: flag.default?.(PLAIN),
      });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(13);
  });

  test("--help all asks for the whole table; --help alone, or with apps, the screen", () => {
    expect(commandOf(["--help"], {})).toEqual({ kind: "help", all: false });
    expect(commandOf(["--help", "all"], {})).toEqual({ kind: "help", all: true });
    expect(commandOf(["-h", "all"], {})).toEqual({ kind: "help", all: true });
    expect(commandOf(["bun-bare", "-h"], {})).toEqual({ kind: "help", all: false });
  });
});

describe("a run's expected length", () => {
  test("each process its warm-up, samples and cost, for every app and round", () => {
    expect(runSec(1, { rounds: 1, warmup: 0, samples: 1, duration: 1 })).toBeCloseTo(
      1 + PROCESS_COST_SEC,
      9,
    );
    expect(runSec(2, { rounds: 3, warmup: 2, samples: 3, duration: 1 })).toBeCloseTo(
      6 * (5 + PROCESS_COST_SEC),
      9,
    );
    expect(aboutMinutes(1680)).toBe("about 28 minutes");
    expect(aboutMinutes(50)).toBe("about 1 minute");
  });

  test("--help states the default run's and --quick's, from the defaults", () => {
    const short = helpText().replace(/\s+/g, " ");
    expect(short).toContain(`each time: ${aboutMinutes(runSec(APPS.length, DEFAULTS))} (`);
    expect(short).toContain(`(${aboutMinutes(runSec(APPS.length, QUICK))} for all apps)`);
    expect(helpText(true).replace(/\s+/g, " ")).toContain(aboutMinutes(runSec(APPS.length)));
  });

  test("the per-process cost agrees with the stored default run's length, within 5%", () => {
    const stored = JSON.parse(
      readFileSync(join(REPO_ROOT, "docs/results/2026-11-23-fifteen/results.json"), "utf8"),
    ) as Results;
    const s = stored.manifest.settings;
    const took = (Date.parse(stored.finishedAt ?? "") - Date.parse(stored.startedAt)) / 1000;
    const design = {
      rounds: s.trials,
      warmup: s.warmupSec,
      samples: s.samples ?? 1,
      duration: s.durationSec,
    };
    expect(runSec(stored.apps.length, design) / took).toBeWithin(0.95, 1.05);
  });
});
