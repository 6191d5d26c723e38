// The history for real, with both engines: in a throwaway clone of this checkout, a campaign of
// four sessions of bun-bare (random starts within a window, each recorded), `history --json`
// whose across figures a reader recomputes from the sessions it lists, a fifth session checked
// against them, then a commit that makes bun-bare ~20× costlier: its run exits 0 and its
// summary says CHANGED, and `history --check` exits 1 naming bun-bare. The same on a SQLite
// file and on a throwaway PostgreSQL server. Whether the unchanged fifth session is flagged is
// left to the simulations (sessions.test.ts: 5% family-wise by design), never to this machine's
// noise; the planted cost is far beyond any noise.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tCritical } from "../src/analysis/stats.ts";
import { findPostgres, type PostgresServer, startPostgres } from "../src/apps/postgres-server.ts";
import { benchmarkIn, cloneHere, git, plantCost } from "./support/clone.ts";
import { expectExit, taggedProcesses } from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const run = (dir: string, args: string[], history: string) =>
  benchmarkIn(dir, args, { BENCH_HISTORY: history });

/** One short session of bun-bare: three processes of one 1 s sample after 1 s of warm-up. */
const SESSION = [
  "-s",
  "api",
  "-n",
  "3",
  "--samples",
  "1",
  "-d",
  "1",
  "-w",
  "1",
  "--tool",
  "wrk",
  "bun-bare",
];

interface Json {
  series: {
    app: string;
    metric: string;
    sessions: { run: string; estimate: number; low: number; high: number }[];
    across: { estimate: number; low: number; high: number; betweenSd: number } | null;
    prediction: { low: number; high: number } | null;
    changed: string[];
  }[];
}

/** The across figures from the sessions the JSON lists, as a reader would recompute them. */
function recomputed(sessions: { estimate: number }[]) {
  const logs = sessions.map((s) => Math.log(s.estimate));
  const n = logs.length;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const t = tCritical(0.05, n - 1);
  return {
    estimate: Math.exp(mean),
    low: Math.exp(mean - (t * sd) / Math.sqrt(n)),
    high: Math.exp(mean + (t * sd) / Math.sqrt(n)),
    predictionLow: Math.exp(mean - t * sd * Math.sqrt(1 + 1 / n)),
    predictionHigh: Math.exp(mean + t * sd * Math.sqrt(1 + 1 / n)),
  };
}

let dir: string;
let base: string;
beforeAll(() => {
  dir = cloneHere();
  base = git(dir, "rev-parse", "HEAD").trim();
  plantCost(dir);
  git(dir, "checkout", "--quiet", base);
}, 120_000);
afterAll(() => {
  if (dir) rmSync(join(dir, ".."), { recursive: true, force: true });
}, 60_000);

/** The whole story on the history at `target`. */
async function story(target: string): Promise<void> {
  git(dir, "checkout", "--quiet", base);
  const out = (name: string) => join(dir, "..", `${name}-${Date.now()}`);
  const campaign = await run(
    dir,
    ["--sessions", "4", "--spread", "20s", "-o", out("campaign"), ...SESSION],
    target,
  );
  expectExit(campaign, 0);
  expect(campaign.stderr).toMatch(/bench: campaign of 4 sessions within 20s, starting at \+/);
  expect(campaign.stdout).toContain("-- bun-bare · api · req/s");
  expect(campaign.stdout).toMatch(/across 4 sessions over [\d.]+ h: /);

  const listed = await run(dir, ["history", "--json"], target);
  expectExit(listed, 0);
  const json = JSON.parse(listed.stdout) as Json;
  const rps = json.series.find((s) => s.app === "bun-bare" && s.metric === "rps");
  expect(rps?.sessions).toHaveLength(4);
  const again = recomputed(rps?.sessions ?? []);
  expect(rps?.across?.estimate).toBeCloseTo(again.estimate, 6);
  expect(rps?.across?.low).toBeCloseTo(again.low, 6);
  expect(rps?.across?.high).toBeCloseTo(again.high, 6);
  expect(rps?.prediction?.low).toBeCloseTo(again.predictionLow, 6);
  expect(rps?.prediction?.high).toBeCloseTo(again.predictionHigh, 6);

  const fifth = await run(dir, ["-o", out("fifth"), ...SESSION], target);
  expectExit(fifth, 0);
  expect(fifth.stdout).toMatch(
    /history: session \S+ of testbed \S+ recorded in .*; 4 earlier session\(s\) of this testbed and settings; \d+ figure\(s\) checked against them/,
  );

  git(dir, "checkout", "--quiet", "-");
  const costly = await run(dir, ["-o", out("costly"), ...SESSION], target);
  expectExit(costly, 0);
  expect(costly.stdout).toMatch(
    / {2}CHANGED: bun-bare · api · rps [\d,]+, predicted [\d,]+–[\d,]+ from 5 earlier sessions/,
  );
  const check = await run(dir, ["history", "--check", "-o", out("pages")], target);
  expectExit(check, 1);
  expect(check.stderr).toMatch(/^CHANGED: bun-bare · api · rps \(session /m);
  expect(taggedProcesses()).toEqual([]);
}

describe("the history of sessions", () => {
  test("on a SQLite file", async () => {
    await story(join(temp("bench-history-e2e-"), "history.sqlite"));
  }, 600_000);

  describe("on PostgreSQL", () => {
    const missing = findPostgres() === undefined;
    if (missing && process.env.CI !== "true") {
      console.warn("skipped: PostgreSQL is not installed (apt-get install postgresql)");
    }
    let server: PostgresServer | undefined;
    beforeAll(async () => {
      if (!missing) server = await startPostgres();
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    }, 60_000);

    test.skipIf(missing && process.env.CI !== "true")(
      "the same story, and an unreachable URL refused before anything is measured",
      async () => {
        const db = await (server as PostgresServer).appDatabase();
        await story(db.path);
        const nowhere = "postgres://bench@127.0.0.1:1/none";
        const refused = await run(dir, ["-o", join(dir, "..", "nowhere"), ...SESSION], nowhere);
        expectExit(refused, 2);
        expect(refused.stderr.trim().split("\n").at(-1)).toMatch(
          /^bench: cannot use the history at postgres:\/\/bench@127\.0\.0\.1:1\/none: /,
        );
        expect(refused.stderr).not.toContain("warm-up");
      },
      600_000,
    );
  });
});
