// run/flags.ts: the one command line. Its help: a screen of the common flags (--help), the whole
// table (--help all), and the run's expected length computed from the defaults.
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
  PROCESS_COST_SEC,
  QUICK,
  runSec,
} from "../src/run/flags.ts";
import { helpText } from "../src/run/help.ts";

/** The flags a help text lists in its table: the names at the start of each flag's line. */
const listed = (help: string): string[] =>
  help
    .split("\n")
    .filter((line) => /^ {2}(-\w,| {4}--)/.test(line))
    .flatMap((line) => [...line.matchAll(/(?<=^ *(?:-\w, )?)--?[\w-]+/g)].map((m) => m[0]));

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
