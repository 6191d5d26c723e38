// analysis.ts on small synthetic runs whose answers are worked out by hand: the ranks of
// rankRows against a stand-in test, the between-round noise of a group, the size of a group's
// family, and rows for apps the run knows little about. Fast and hermetic (mutation group
// "analysis").
import { describe, expect, test } from "bun:test";
import { analyze, processSamples, rankRows } from "../src/analysis/analysis.ts";
import type { Verdict } from "../src/analysis/verdicts.ts";
import type { Trial } from "../src/results/schema.ts";
import { STARTED } from "./support/report-synthetic.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

/** Rows of rankRows with `n` processes each, already sorted fastest first. */
const rows = (...n: number[]) => n.map((k) => ({ rps: { n: k, mean: 1, stddev: 0, cov: 0 } }));

describe("rankRows against a stand-in test", () => {
  test("two processes make a row testable: the next row is tested against it", () => {
    const calls: number[][] = [];
    const ranks = rankRows(rows(2, 3), (i, j) => {
      calls.push([i, j]);
      return { significant: true };
    });
    expect(calls).toEqual([[0, 1]]);
    expect(ranks).toStrictEqual([
      { position: 1, tie: false },
      { position: 2, tie: false },
    ]);
  });

  test("an untestable opener hands the reference to the first testable row, not the next one", () => {
    // Rows of 1, 1, 3, 3 processes: rows 0 and 1 cannot be tested, so both rank 1 (row 1 a
    // tie); row 2 is the first testable one and becomes the reference, itself a tie with the
    // opener; row 3 is tested against row 2 only.
    const calls: number[][] = [];
    const ranks = rankRows(rows(1, 1, 3, 3), (i, j) => {
      calls.push([i, j]);
      return { significant: true };
    });
    expect(calls).toEqual([[2, 3]]);
    expect(ranks.map((r) => [r?.position, r?.tie])).toEqual([
      [1, false],
      [1, true],
      [1, true],
      [4, false],
    ]);
  });

  test("a tie carries the detectable difference of its test, and none when there is none", () => {
    const tie = (v: Verdict) => rankRows(rows(3, 3), () => v)[1];
    expect(tie({ significant: false, mdd: 0.07 })).toStrictEqual({
      position: 1,
      tie: true,
      mdd: 0.07,
    });
    expect(tie({ significant: false })).toStrictEqual({ position: 1, tie: true });
  });
});

/** One valid sample per process of `app` on `scenario`, round k holding values[k − 1]. */
const processes = (app: string, scenario: string, values: number[]): Trial[] =>
  values.map((rps, k) => syntheticTrial(app, scenario, k + 1, 64, rps, 4));

describe("a group's between-round noise and family", () => {
  // Log process means, less each app's own level (which the app effects absorb):
  //   round 1: 0, 0, 0; round 2: 0.2, 0.4, 0.3; round 3: 0.4, 0.2, 0.3
  // for bun-bare, node-bare and deno-bare. Grand mean 0.2, every app's mean 0.2, round means
  // 0, 0.3, 0.3: SS rounds = 3 · (0.04 + 0.01 + 0.01) = 0.18 on 2 df (MS 0.09); residuals
  // ±0.1 four times, 0 otherwise: SS 0.04 on 2 · 2 df (MS 0.01). Between rounds:
  // √((0.09 − 0.01) / 3) = √(0.08 / 3) = 16.3%.
  const levels = { "bun-bare": 1000, "node-bare": 2000, "deno-bare": 500 };
  const logs = {
    "bun-bare": [0, 0.2, 0.4],
    "node-bare": [0, 0.4, 0.2],
    "deno-bare": [0, 0.3, 0.3],
  };
  const measured = Object.entries(levels).flatMap(([app, level]) =>
    processes(
      app,
      "api",
      logs[app as keyof typeof logs].map((y) => level * Math.exp(y)),
    ),
  );
  const invalid = (t: Trial): Trial => ({
    ...t,
    checks: { ...t.checks, valid: false, invalidReasons: ["error rate 5% > 0.01%"] },
  });
  const run = syntheticRun(
    ["bun-bare", "node-bare", "deno-bare", "bun-hono"],
    ["api", "db"],
    [
      ...measured,
      // Another scenario's samples and invalid samples, far off: neither may count in "api".
      ...processes("bun-bare", "db", [9, 9000, 90]),
      ...processes("node-bare", "api", [5, 50_000, 500]).map(invalid),
      ...processes("bun-hono", "db", [3000, 3100, 2900]),
    ],
  );
  const api = analyze(run).groups.get("api");

  test("the round component from each measured app's process means, by hand", () => {
    expect(api?.roundCov).toBeCloseTo(Math.sqrt(0.08 / 3), 10);
    // bun-hono has no sample on api: it is no app of the two-way layout (an empty one would
    // leave no complete round, and no estimate).
    expect(api?.rows.map((r) => r.rps.n)).toEqual([3, 3, 3, 0]);
  });

  test("fewer than three complete rounds: no round component at all", () => {
    const two = analyze(
      syntheticRun(
        ["bun-bare", "node-bare"],
        ["api"],
        [...processes("bun-bare", "api", [1, 2]), ...processes("node-bare", "api", [3, 4])],
      ),
    ).groups.get("api");
    expect(two).toBeDefined();
    expect(two && "roundCov" in two).toBe(false);
  });

  test("the family counts testable pairs only", () => {
    // Four apps, six pairs; bun-hono (no sample) is in none that can be tested: three.
    expect(api?.comparisons).toBe(3);
  });
});

describe("rows of apps the run knows little about", () => {
  test("an app of the settings with no record yet is a measured ok row, with no failure", () => {
    const run = syntheticRun(
      ["bun-bare", "node-bare"],
      ["api"],
      [
        ...processes("bun-bare", "api", [100, 101, 102]),
        ...processes("node-bare", "api", [50, 51, 52]),
      ],
    );
    const partial = { ...run, apps: run.apps.filter((a) => a.name === "bun-bare") };
    const rows = analyze(partial).groups.get("api")?.rows ?? [];
    expect(rows.map((r) => [r.app, r.status])).toEqual([
      ["bun-bare", "ok"],
      ["node-bare", "ok"],
    ]);
    for (const r of rows) expect("failure" in r).toBe(false);
  });
});

describe("rows in their order", () => {
  test("process samples come in round order, whatever order the trials were recorded in", () => {
    const trials = [3, 1, 2, 1].map((round, i) => ({
      ...syntheticTrial("bun-bare", "api", round, 64, 100 + i, 4),
    }));
    const valid = trials as (Trial & { result: NonNullable<Trial["result"]> })[];
    // Round 1 holds the 2nd and 4th trials (101, 103), round 2 the 3rd, round 3 the 1st.
    expect(processSamples(valid)).toEqual([
      { round: 1, values: [101, 103] },
      { round: 2, values: [102] },
      { round: 3, values: [100] },
    ]);
  });

  test("an unmeasured app goes last even when the run lists it first", () => {
    const run = syntheticRun(
      ["deno-bare", "bun-bare", "node-bare"],
      ["api"],
      [
        ...processes("node-bare", "api", [50, 51, 52]),
        ...processes("bun-bare", "api", [9, 10, 11]),
      ],
    );
    const rows = analyze(run).groups.get("api")?.rows ?? [];
    expect(rows.map((r) => r.app)).toEqual(["node-bare", "bun-bare", "deno-bare"]);
  });

  test("a run without apps has empty tables", () => {
    const groups = analyze(syntheticRun([], ["api"], [])).groups;
    expect(groups.get("api")?.rows).toEqual([]);
    expect(groups.get("api")?.comparisons).toBe(0);
  });
});

describe("the flags' explanations", () => {
  test("CONTENDED says why the samples are not the server's best", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      processes("bun-bare", "api", [100, 101, 102]).map((t, i) => ({
        ...t,
        checks: { ...t.checks, contended: i === 0 },
      })),
    );
    const row = analyze(run).groups.get("api")?.rows[0];
    expect(row?.flags).toEqual([
      {
        tag: "CONTENDED 1/3",
        text:
          "CONTENDED 1/3: the server's core was busy with something other than the server, or " +
          "CPU steal was high (not the server's best; see the notes)",
      },
    ]);
  });

  test("NETWORK-BOUND (two hosts) counts the valid samples the network may have paced", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      processes("bun-bare", "api", [100, 101, 102]).map((t, i) => ({
        ...t,
        checks: { ...t.checks, networkBound: i !== 1 },
      })),
    );
    expect(analyze(run).groups.get("api")?.rows[0]?.flags).toEqual([
      {
        tag: "NETWORK-BOUND 2/3",
        text: "NETWORK-BOUND 2/3: the network between the hosts may have set the pace (see the notes)",
      },
    ]);
  });

  test("DATABASE-BOUND (--db postgres) counts the valid samples the database dominated", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["db"],
      processes("bun-bare", "db", [100, 101, 102]).map((t, i) => ({
        ...t,
        checks: { ...t.checks, databaseBound: i === 1 },
      })),
    );
    expect(analyze(run).groups.get("db")?.rows[0]?.flags).toEqual([
      {
        tag: "DATABASE-BOUND 1/3",
        text:
          "DATABASE-BOUND 1/3: the database server used more of the server's core than the app: " +
          "the figure measures the database as much as the app (see the notes)",
      },
    ]);
  });

  test("a sample without the CPU time per request: no figure for its app", () => {
    const [first, ...rest] = processes("bun-bare", "api", [100, 101, 102]).map((t) => ({
      ...t,
      server: { ...t.server, cpuNsPerRequest: 10_000 },
    }));
    const withAll = analyze(syntheticRun(["bun-bare"], ["api"], [first as Trial, ...rest]));
    expect(withAll.groups.get("api")?.rows[0]?.cpuNsPerRequest?.mean).toBe(10_000);
    const { cpuNsPerRequest: _, ...bare } = (first as Trial).server;
    const without = analyze(
      syntheticRun(["bun-bare"], ["api"], [{ ...(first as Trial), server: bare }, ...rest]),
    );
    expect(without.groups.get("api")?.rows[0]?.cpuNsPerRequest).toBeUndefined();
  });
});

describe("what the analysis adds beside the tables", () => {
  test("a process's stolen sample flags its row, before the other flags", () => {
    const trials = [1, 2, 3].flatMap((round) =>
      [1, 2].map((sample) => ({
        ...syntheticTrial("bun-bare", "api", round, 64, 10_000 + round, 4),
        sample,
        stealPercent: round === 1 && sample === 2 ? 40 : 0,
      })),
    );
    const row = analyze(syntheticRun(["bun-bare"], ["api"], trials, { samples: 2 })).groups.get(
      "api",
    )?.rows[0];
    expect(row?.flags[0]?.text).toBe(
      "STEAL 1/6: CPU steal ≥ 15% on the server's core: excluded, 0 re-taken",
    );
  });

  test("start-up rows from the fastest to get ready, whatever the apps' order", () => {
    const reversed = { ...STARTED, apps: [...STARTED.apps].reverse() };
    expect(analyze(reversed).startup.map((r) => [r.app, r.readyMs.median])).toEqual([
      ["bun-bare", 40],
      ["node-hono", 425],
    ]);
  });
});
