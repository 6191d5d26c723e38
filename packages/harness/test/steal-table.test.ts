// CPU steal in the reports (report/steal-table.ts): the summary's line and the section that
// lists every excluded sample, on crafted runs.

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { sections } from "../src/report/sections.ts";
import { STEAL_HEADER, stealLine, stealRows } from "../src/report/steal-table.ts";
import type { PairTrial, Results, Trial } from "../src/results/schema.ts";
import {
  syntheticPairTrial,
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
} from "./support/synthetic.ts";

/** bun-bare, 3 processes of 2 samples, each sample's steal as given (in round order). */
function oneAtATime(steal: number[], maxSteal?: number): Results {
  const trials: Trial[] = steal.map((s, i) => ({
    ...syntheticTrial("bun-bare", "api", Math.floor(i / 2) + 1, 64, 10_000, 4),
    sample: (i % 2) + 1,
    startedAt: `2026-11-28T01:00:0${i}.000Z`,
    stealPercent: s,
  }));
  return syntheticRun(["bun-bare"], ["api"], trials, {
    samples: 2,
    ...(maxSteal === undefined ? {} : { maxSteal }),
  });
}

describe("stealLine", () => {
  test("no sample at the threshold: the steal, and that none was excluded", () => {
    expect(stealLine(analyze(oneAtATime([0, 1, 2, 3, 4, 14.9])))).toBe(
      "CPU steal on the server's core: median 2.5%, worst 14.9% over 6 samples · none at ≥ 15% (--max-steal)",
    );
  });

  test("excluded, re-taken, not replaced, and the processes missing", () => {
    const r = oneAtATime([0, 30, 40, 50, 0, 0]);
    r.trials.push({ ...(r.trials[0] as Trial), sample: 3, retake: true, stealPercent: 2 });
    expect(stealLine(analyze(r))).toBe(
      "CPU steal on the server's core: median 2.0%, worst 50.0% over 7 samples · 3 at ≥ 15% (--max-steal) excluded, 1 re-taken, 2 not replaced; 1 process missing",
    );
  });

  test("singular and plural: one sample, one process; pairs", () => {
    const one = syntheticRun(
      ["bun-bare"],
      ["api"],
      [{ ...syntheticTrial("bun-bare", "api", 1, 64, 10_000, 4), stealPercent: 40 }],
      { samples: 1 },
    );
    expect(stealLine(analyze(one))).toBe(
      "CPU steal on the server's core: median 40.0%, worst 40.0% over 1 sample · 1 at ≥ 15% (--max-steal) excluded, 0 re-taken, 1 not replaced; 1 process missing",
    );
    const two = oneAtATime([40, 50, 40, 50, 0, 0]);
    expect(stealLine(analyze(two))).toMatch(/; 2 processes missing$/);
  });

  test("none missing: the line ends with what was not replaced", () => {
    expect(stealLine(analyze(oneAtATime([30, 0, 0, 0, 0, 0])))).toBe(
      "CPU steal on the server's core: median 0.0%, worst 30.0% over 6 samples · 1 at ≥ 15% (--max-steal) excluded, 0 re-taken, 1 not replaced",
    );
  });

  test("off: every sample kept, said so", () => {
    expect(stealLine(analyze(oneAtATime([0, 30, 40, 50, 0, 0], 100)))).toBe(
      "CPU steal on the server's core: median 15.0%, worst 50.0% over 6 samples · --max-steal 100: off, every sample kept",
    );
  });

  test("side by side: the servers' core, and pairs", () => {
    const pair = (round: number, steal: number): PairTrial => ({
      ...syntheticPairTrial("bun-bare", "node-bare", round, 1, 10_000, 20_000),
      stealPercent: steal,
    });
    const side = syntheticSideRun(
      [["bun-bare", "node-bare"]],
      [pair(1, 30), pair(2, 30), pair(3, 0)],
    );
    side.manifest.settings.samples = 1;
    expect(stealLine(analyze(side))).toBe(
      "CPU steal on the servers' core: median 30.0%, worst 30.0% over 3 samples · 2 at ≥ 15% (--max-steal) excluded, 0 re-taken, 2 not replaced; 2 pairs missing",
    );
    expect(stealRows(analyze(side))[0]?.[0]).toBe("node-bare vs bun-bare");
    const lone = syntheticSideRun([["bun-bare", "node-bare"]], [pair(1, 30), pair(2, 0)]);
    lone.manifest.settings.samples = 1;
    expect(stealLine(analyze(lone))).toMatch(/; 1 pair missing$/);
  });
});

describe("the CPU steal section", () => {
  test("the table's columns, and a re-take said so", () => {
    expect(STEAL_HEADER).toEqual(["app", "scenario", "round", "sample", "steal", "why"]);
    const r = oneAtATime([0, 0, 0, 0, 0, 0]);
    r.trials.push({ ...(r.trials[0] as Trial), sample: 3, retake: true, stealPercent: 33 });
    expect(stealRows(analyze(r))).toEqual([
      ["bun-bare", "api", "1", "3 (re-take)", "33.0%", "stolen"],
    ]);
  });

  test("every excluded sample in the order taken, stolen or with its process missing", () => {
    const a = analyze(oneAtATime([0, 20, 40, 50, 0, 0]));
    expect(stealRows(a)).toEqual([
      ["bun-bare", "api", "1", "2", "20.0%", "stolen"],
      ["bun-bare", "api", "2", "1", "40.0%", "stolen"],
      ["bun-bare", "api", "2", "2", "50.0%", "stolen"],
    ]);
    const three = oneAtATime([0, 20, 0, 0, 0, 0]);
    three.manifest.settings.samples = 3;
    // round 1 of 3 samples with two stolen: fewer than 2 clean, so its clean one goes too
    three.trials[2] = { ...(three.trials[2] as Trial), round: 1, sample: 3, stealPercent: 30 };
    expect(stealRows(analyze(three)).map((r) => r.slice(2))).toEqual([
      ["1", "1", "0.0%", "its process or pair is missing"],
      ["1", "2", "20.0%", "stolen"],
      ["1", "3", "30.0%", "stolen"],
    ]);
  });

  test("in every report when a sample was excluded; not there when none was", () => {
    const a = analyze(oneAtATime([0, 20, 0, 0, 0, 0]));
    const found = sections(a).find((s) => s.title === "CPU steal");
    expect(found?.parts[0]?.tables[0]?.header).toEqual(STEAL_HEADER);
    expect(found?.parts[0]?.text).toBe(`${stealLine(a)}.`);
    expect(markdownReport(a)).toContain("## CPU steal");
    // names and the reason left, numbers right
    expect(markdownReport(a)).toContain(
      `| ${STEAL_HEADER.join(" | ")} |\n| :-- | :-- | --: | --: | --: | :-- |\n`,
    );
    const clean = analyze(oneAtATime([0, 0, 0, 0, 0, 0]));
    expect(sections(clean).map((s) => s.title)).not.toContain("CPU steal");
    expect(markdownReport(clean)).toContain("| CPU steal | CPU steal on the server's core:");
  });
});
