import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { compareRuns } from "../src/analysis/comparison.ts";
import { type Group, groupsOf, inGroup, scenarioOfKey } from "../src/analysis/groups.ts";
import { curveViews } from "../src/report/curve.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { summarize } from "../src/report/summary.ts";
import type { Results } from "../src/results/schema.ts";
import { schemaErrors } from "../src/results/schema.ts";
import { invalid } from "./support/report-synthetic.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

// bun-bare peaks at 100 connections, then only queues; node-bare keeps climbing to 1,000.
const CURVE: [string, number, number, number][] = [
  ["bun-bare", 1, 5_000, 0.5],
  ["bun-bare", 100, 40_000, 5],
  ["bun-bare", 1000, 38_000, 60],
  ["node-bare", 1, 4_000, 0.6],
  ["node-bare", 100, 12_000, 12],
  ["node-bare", 1000, 13_000, 150],
];
const trials = CURVE.flatMap(([app, c, rps, p99]) =>
  [1, 2].map((round) => syntheticTrial(app, "api", round, c, rps + round * 10, p99)),
);
const RUN: Results = syntheticRun(["bun-bare", "node-bare"], ["api"], trials, {
  connections: 1000,
  connectionCounts: [1, 100, 1000],
});

describe("groups", () => {
  test("one group per scenario, or per scenario and count when there are several", () => {
    expect(schemaErrors(RUN)).toEqual([]);
    expect(groupsOf(RUN).map((g) => g.key)).toEqual(["api (c=1)", "api (c=100)", "api (c=1000)"]);
    const single = syntheticRun(["bun-bare"], ["api", "echo"], [], { connectionCounts: [64] });
    expect(groupsOf(single)).toEqual([
      { key: "api", scenario: "api" },
      { key: "echo", scenario: "echo" },
    ]);
    expect(scenarioOfKey("api (c=100)")).toBe("api");
    expect(scenarioOfKey("api")).toBe("api");
  });

  test("a trial belongs to its scenario at the connections it opened", () => {
    const [, c100] = groupsOf(RUN);
    const t = syntheticTrial("bun-bare", "api", 1, 100, 1, 1);
    expect(inGroup(t, c100 as Group)).toBe(true);
    expect(inGroup({ ...t, connections: 1000 }, c100 as Group)).toBe(false);
    expect(inGroup({ ...t, scenario: "echo" }, c100 as Group)).toBe(false);
  });

  test("the summary never mixes counts: each table holds its own trials", () => {
    const summary = summarize(RUN);
    expect([...summary.keys()]).toEqual(["api (c=1)", "api (c=100)", "api (c=1000)"]);
    const at100 = summary.get("api (c=100)") ?? [];
    expect(at100.map((r) => [r.app, r.rps.mean, r.validTrials])).toEqual([
      ["bun-bare", 40_015, 2],
      ["node-bare", 12_015, 2],
    ]);
  });

  test("compare pairs trials per scenario and count", () => {
    const rows = compareRuns(RUN, RUN);
    expect(rows.map((r) => `${r.app} ${r.scenario}`)).toEqual([
      "bun-bare api (c=1)",
      "node-bare api (c=1)",
      "bun-bare api (c=100)",
      "node-bare api (c=100)",
      "bun-bare api (c=1000)",
      "node-bare api (c=1000)",
    ]);
    for (const r of rows) expect(r.rpsChange).toBe(0);
  });
});

test("the curve: req/s (p99) per count, the peak, and what the counts past it cost", () => {
  const [view] = curveViews(analyze(RUN));
  expect(view?.header).toEqual(["app", "c=1", "c=100", "c=1,000", "peak", "past the peak"]);
  expect(view?.rows).toEqual([
    [
      "bun-bare",
      "5,015 (0.5)",
      "40,015 (5.0)",
      "38,015 (60.0)",
      "c=100",
      "at 1,000: p99 ×12.0, req/s −5%",
    ],
    [
      "node-bare",
      "4,015 (0.6)",
      "12,015 (12.0)",
      "13,015 (150.0)",
      "c=1,000",
      "peak at the largest count measured",
    ],
  ]);
  const md = markdownReport(analyze(RUN));
  expect(md).toContain("## Throughput curve");
  expect(md).toContain(
    "| bun-bare | 5,015 (0.5) | 40,015 (5.0) | 38,015 (60.0) | c=100 | at 1,000: p99 ×12.0, req/s −5% |",
  );
  expect(md).toContain("## api (c=100) — GET /api/test");
  // A run with one count has no curve.
  expect(curveViews(analyze(syntheticRun(["bun-bare"], ["api"], trials.slice(0, 2))))).toEqual([]);
});

describe("the throughput curve (--connections 1,10)", () => {
  /** Two processes of `app` on `scenario` at `c` connections, both at `rps` with this p99. */
  const two = (app: string, scenario: string, c: number, rps: number, p99: number) =>
    [1, 2].map((round) => syntheticTrial(app, scenario, round, c, rps, p99));
  const RUN = syntheticRun(
    ["bun-bare", "node-bare", "deno-bare"],
    ["api", "echo"],
    [
      // bun-bare on api: the same req/s at both counts, 4× the p99 at 10: the first count is
      // the peak (a tie does not move it), and the last one is +0% on it.
      ...two("bun-bare", "api", 1, 1_000, 1),
      ...two("bun-bare", "api", 10, 1_000, 4),
      // node-bare on api: no valid trial at 1 connection; at 10 the peak is the last count.
      ...two("node-bare", "api", 1, 5_000, 1).map(invalid),
      ...two("node-bare", "api", 10, 2_000, 2),
      // deno-bare: never measured. bun-bare on echo: 500 → 400 req/s (−20%), p99 1 → 3 ms.
      ...two("bun-bare", "echo", 1, 500, 1),
      ...two("bun-bare", "echo", 10, 400, 3),
    ],
    { connections: 10, connectionCounts: [1, 10] },
  );

  test("per scenario, per app: req/s (p99) at each count, the peak, what is past it", () => {
    const views = curveViews(analyze(RUN));
    expect(views.map((v) => v.scenario)).toEqual(["api", "echo"]);
    const [api, echo] = views;
    expect(api?.header).toEqual(["app", "c=1", "c=10", "peak", "past the peak"]);
    expect(api?.rows).toEqual([
      ["bun-bare", "1,000 (1.0)", "1,000 (4.0)", "c=1", "at 10: p99 ×4.0, req/s +0%"],
      ["node-bare", "—", "2,000 (2.0)", "c=10", "peak at the largest count measured"],
      ["deno-bare", "—", "—", "—", "—"],
    ]);
    expect(echo?.rows).toEqual([
      ["bun-bare", "500 (1.0)", "400 (3.0)", "c=1", "at 10: p99 ×3.0, req/s −20%"],
      ["node-bare", "—", "—", "—", "—"],
      ["deno-bare", "—", "—", "—", "—"],
    ]);
    // The chart's points: a count without valid trials is NaN, not a zero.
    expect(api?.series[1]).toEqual({
      app: "node-bare",
      points: [
        { connections: 1, rps: Number.NaN, p99Ms: Number.NaN },
        { connections: 10, rps: 2_000, p99Ms: 2 },
      ],
    });
  });
});
