// report/profiles-table.ts: the --profile section per profiled trial: what it measured, how much
// the sampler saw, the hottest functions. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { profileViews } from "../src/report/profiles-table.ts";
import type { Results } from "../src/results/schema.ts";
import { syntheticRun } from "./support/synthetic.ts";

describe("profiles (--profile)", () => {
  const HEADER = ["#", "function", "where", "self samples", "share"];
  const summary = (coverage: number) => ({
    totalMs: 5_000,
    samples: 4_000,
    idleSamples: 1_000,
    coverage,
    top: [
      { function: "handle", location: "apps/bun-bare/src/app.ts:10", samples: 600, percent: 20 },
      { function: "(garbage collector)", location: "", samples: 300, percent: 10.04 },
    ],
  });
  const base = { startedAt: "2026-11-22T12:00:00.000Z" };
  const RUN: Results = {
    ...syntheticRun(["bun-bare"], ["api"], []),
    profiles: [
      // Coverage exactly at the threshold (0.5): not called low.
      {
        ...base,
        app: "bun-bare",
        scenario: "api",
        file: "profiles/bun-bare-api.cpuprofile",
        rps: 12_345.6,
        p99Ms: 1.26,
        summary: summary(0.5),
      },
      {
        ...base,
        app: "node-bare",
        scenario: "api",
        summary: { ...summary(0.2), samples: 100, idleSamples: 0, totalMs: 1_234, top: [] },
      },
      {
        ...base,
        app: "deno-bare",
        scenario: "echo",
        rps: 1_000,
        unavailable: "deno wrote no profile",
      },
      { ...base, app: "bun-hono", scenario: "api" },
      // Unavailable wins over a summary.
      {
        ...base,
        app: "node-hono",
        scenario: "api",
        unavailable: "the trial failed",
        summary: summary(0.9),
      },
    ],
  };

  test("per profiled trial: what it measured, how much the sampler saw, the hottest functions", () => {
    const [bun, node, ...rest] = profileViews(RUN);
    expect(bun).toStrictEqual({
      title: "bun-bare · api",
      file: "profiles/bun-bare-api.cpuprofile",
      // 4,000 samples, 1,000 idle: 3,000 busy; 5,000 ms = 5.0 s.
      text: "Profiled trial: 12,346 req/s, p99 1.3 ms (not counted). 4,000 samples over 5.0 s, 3,000 of them busy (not idle).",
      header: HEADER,
      rows: [
        ["1", "handle", "apps/bun-bare/src/app.ts:10", "600", "20.0%"],
        ["2", "(garbage collector)", "(native)", "300", "10.0%"],
      ],
    });
    expect(node).toStrictEqual({
      title: "node-bare · api",
      text:
        "100 samples over 1.2 s, 100 of them busy (not idle). The sampler saw only 20% of the time: " +
        "it samples only while the JavaScript VM runs, so the runtime's native work (its HTTP " +
        "server, I/O) is mostly missing from this list.",
      header: HEADER,
      rows: [],
    });
    expect(rest).toStrictEqual([
      {
        title: "deno-bare · echo",
        text: "Profiled trial: 1,000 req/s, p99 — ms (not counted). No profile: deno wrote no profile.",
        header: HEADER,
        rows: [],
      },
      { title: "bun-hono · api", text: "No profile: none recorded.", header: HEADER, rows: [] },
      { title: "node-hono · api", text: "No profile: the trial failed.", header: HEADER, rows: [] },
    ]);
  });

  test("a run without --profile has no profiles", () => {
    expect(profileViews({ ...RUN, profiles: undefined })).toEqual([]);
  });
});
