// report/startup-table.ts: the start-up table's intro, order and cells. Synthetic starts, answers
// worked out by hand. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import type { StartupRow } from "../src/analysis/startup.ts";
import { STARTUP_HEADER, STARTUP_INTRO, startupCells } from "../src/report/startup-table.ts";
import type { Results } from "../src/results/schema.ts";
import { expectHeaderOf } from "./support/expect-header.ts";
import { syntheticRun } from "./support/synthetic.ts";

describe("start-up", () => {
  const start = (
    readyMs: number,
    rssReadyMiB: number,
    rssIdleMiB: number | undefined,
    fresh: boolean,
  ) => ({
    readyMs,
    rssReadyMiB,
    ...(rssIdleMiB === undefined ? {} : { rssIdleMiB }),
    fresh,
  });
  const run = syntheticRun(["bun-bare", "node-bare", "deno-bare", "deno-hono"], ["api"], []);
  const RUN: Results = {
    ...run,
    apps: run.apps.map((a) => {
      const startups = {
        // Three starts, two fresh: ready 10, 20, 30 ms; idle RSS read on two of them.
        "bun-bare": [
          start(30, 40, 42, false),
          start(10, 38, 41, true),
          start(20, 39, undefined, true),
        ],
        "node-bare": [start(5, 50, 51, false)],
        "deno-bare": [start(12, 30, 30, true)],
      }[a.name];
      return startups ? { ...a, startups } : a;
    }),
  };

  test("the intro states the idle pause the memory is read after: 1,000 ms is 1 s", () => {
    expect(STARTUP_INTRO).toContain(" after 1 s with no requests");
  });

  test("fastest start first; an app never started has no row", () => {
    expect(analyze(RUN).startup.map((r) => [r.app, r.readyMs.median])).toEqual([
      ["node-bare", 5],
      ["deno-bare", 12],
      ["bun-bare", 20],
    ]);
  });

  test("the cells: starts (fresh), median with its range unless every start agreed", () => {
    const cells = analyze(RUN).startup.map(startupCells);
    expectHeaderOf(STARTUP_HEADER, cells[0]);
    expect(cells).toEqual([
      ["node-bare", "1 (0)", "5", "50.0", "51.0"],
      ["deno-bare", "1 (1)", "12", "30.0", "30.0"],
      // Idle RSS: median of 42 and 41 = 41.5.
      ["bun-bare", "3 (2)", "20 (10–30)", "39.0", "41.5 (41.0–42.0)"],
    ]);
    const row: StartupRow = {
      app: "x",
      starts: 2,
      fresh: 0,
      readyMs: { median: 7, min: 7, max: 7 },
      rssReadyMiB: 1,
      rssIdleMiB: { median: 2.5, min: 2, max: 3 },
    };
    expect(startupCells(row).slice(2)).toEqual(["7", "1.0", "2.5 (2.0–3.0)"]);
  });
});
