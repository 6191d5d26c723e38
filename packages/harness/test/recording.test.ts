// A finished run as a session (history/recording.ts): what it records, which earlier sessions
// it is held against, and CHANGED; recorded into a real SQLite history in a temporary folder.

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { analyze } from "../src/analysis/analysis.ts";
import { settingsKey, testbedOf } from "../src/analysis/settings.ts";
import {
  checkAgainst,
  comparable,
  recordSession,
  runId,
  seriesKey,
  sessionOf,
} from "../src/history/recording.ts";
import type { Results, Trial } from "../src/results/schema.ts";
import { session } from "./support/history-fixtures.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

/** A run of bun-bare and node-bare at `level` × their req/s, 3 processes, started at `hour`. */
function run(hour: number, level = 1, commit = "c0ffee"): Results {
  const trials: Trial[] = [1, 2, 3].flatMap((round) => [
    syntheticTrial("bun-bare", "api", round, 64, level * (100_000 + round * 1000), 4),
    syntheticTrial("node-bare", "api", round, 64, 40_000 + round * 500, 4),
  ]);
  const r = syntheticRun(["bun-bare", "node-bare"], ["api"], trials);
  return {
    ...r,
    startedAt: new Date(Date.UTC(2026, 10, 28, hour)).toISOString(),
    finishedAt: new Date(Date.UTC(2026, 10, 28, hour, 5)).toISOString(),
    manifest: {
      ...r.manifest,
      machine: { ...r.manifest.machine, virtualization: "kvm" },
      git: { commit, dirty: false },
    },
    apps: r.apps.map((a) => ({ ...a, reportedRuntime: { name: a.runtime, version: "1.0" } })),
  };
}

describe("a session", () => {
  test("its id: the start to the second and a hash of where, how and what", () => {
    const a = run(1);
    expect(runId(a)).toMatch(/^2026-11-28T01:00:00Z~[0-9a-f]{6}$/);
    expect(runId(a)).toBe(runId(run(1)));
    expect(runId(run(1, 1, "other"))).not.toBe(runId(a));
  });

  test("what it records: testbed, settings, commit, versions and the estimates", () => {
    const r = run(1);
    const s = sessionOf(r, analyze(r), "/results/x");
    expect(s.testbed).toEqual(testbedOf(r.manifest));
    expect(s.settingsKey).toBe(settingsKey(r.manifest));
    expect(s.settings.mode).toBe("one at a time");
    expect(s).toMatchObject({ commit: "c0ffee", dirty: false, source: "/results/x" });
    expect(s.versions).toMatchObject({ bun: "1.0", node: "1.0" });
    expect(s.estimates.map((e) => `${e.app}/${e.metric}`).sort()).toEqual([
      "bun-bare/rps",
      "node-bare/rps",
      "node-bare/rps-ratio",
    ]);
  });
});

describe("a session's record", () => {
  test("its finish as the run recorded it; a run without one (stopped early): its start", () => {
    const r = run(1);
    expect(sessionOf(r, analyze(r), "/x").finishedAt).toBe("2026-11-28T01:05:00.000Z");
    const { finishedAt: _, ...unfinished } = r;
    expect(sessionOf(unfinished, analyze(r), "/x").finishedAt).toBe("2026-11-28T01:00:00.000Z");
  });

  test("versions: the lockfile's, and each runtime an app reported; one that did not adds none", () => {
    const r = run(1);
    const partly: Results = {
      ...r,
      manifest: {
        ...r.manifest,
        versions: { ...r.manifest.versions, lockfile: { hono: "4.6.0" } },
      },
      apps: r.apps.map((a) => (a.name === "node-bare" ? { ...a, reportedRuntime: undefined } : a)),
    };
    expect(sessionOf(partly, analyze(partly), "/x").versions).toEqual({
      hono: "4.6.0",
      bun: "1.0",
    });
  });
});

describe("the check against earlier sessions", () => {
  test("only earlier sessions of the same testbed and settings count", () => {
    const me = session("me", "2026-11-28T10:00:00.000Z");
    const all = [
      session("a", "2026-11-28T01:00:00.000Z"),
      { ...session("b", "2026-11-28T02:00:00.000Z"), settingsKey: "other" },
      { ...session("c", "2026-11-28T03:00:00.000Z"), testbed: { ...me.testbed, id: "other" } },
      session("later", "2026-11-28T11:00:00.000Z"),
      me,
    ];
    expect(comparable(all, me).map((s) => s.run)).toEqual(["a"]);
    // Another run that started the same instant is not earlier; nor is this run's own record,
    // whatever its start says (the id is the start to the second).
    const twin = session("twin", me.startedAt);
    const self = session("me", "2026-11-28T09:59:59.000Z");
    expect(comparable([twin, self], me)).toEqual([]);
    expect(seriesKey(me, me.estimates[0] as (typeof me.estimates)[0])).toBe(
      ["tb1", "k1", "bun-bare", "", "api", "rps"].join("\u0000"),
    );
  });

  const earlier = [0, 0.02, -0.01, 0.01].map((w, i) =>
    session(`e${i}`, `2026-11-28T0${i}:00:00.000Z`, Math.log(1000) + w),
  );

  test("far outside what the earlier sessions predict: CHANGED; inside: not", () => {
    const far = session("new", "2026-11-28T09:00:00.000Z", Math.log(2000));
    const checks = checkAgainst(earlier, far);
    // A ratio's check names what it is against; an app's own figure has no reference.
    expect(checks.map((c) => [c.app, c.reference, c.metric])).toEqual([
      ["bun-bare", undefined, "rps"],
      ["node-bare", "bun-bare", "rps-ratio"],
    ]);
    expect(checks[0]).not.toHaveProperty("reference");
    const [rps] = checks.filter((c) => c.metric === "rps");
    expect(rps).toMatchObject({ app: "bun-bare", scenario: "api", earlier: 4, changed: true });
    expect(rps?.estimate).toBeCloseTo(2000, 6);
    expect(rps?.low).toBeLessThan(1000);
    expect(rps?.high).toBeGreaterThan(1000);
    expect(rps?.high).toBeLessThan(2000);
    const near = session("new", "2026-11-28T09:00:00.000Z", Math.log(1005));
    expect(checkAgainst(earlier, near).find((c) => c.metric === "rps")?.changed).toBe(false);
  });

  test("an earlier session without one of the figures counts only for the others", () => {
    const older = earlier.map((s, i) =>
      i === 0 ? { ...s, estimates: s.estimates.filter((e) => e.metric === "rps") } : s,
    );
    const checks = checkAgainst(older, session("new", "2026-11-28T09:00:00.000Z"));
    expect(checks.map((c) => [c.metric, c.earlier])).toEqual([
      ["rps", 4],
      ["rps-ratio", 3],
    ]);
  });

  test("fewer than 3 earlier sessions: nothing to check against", () => {
    expect(checkAgainst(earlier.slice(0, 2), session("new", "2026-11-28T09:00:00.000Z"))).toEqual(
      [],
    );
  });

  test("recorded in a real history: the fifth session is checked, a far costlier one CHANGED", async () => {
    const target = join(temp("bench-recording-"), "history.sqlite");
    const outcomes = [];
    for (const [hour, level] of [
      [1, 1],
      [2, 1.01],
      [3, 0.99],
      [4, 1],
      [5, 0.05],
    ] as const) {
      const r = run(hour, level);
      outcomes.push(await recordSession(target, r, analyze(r), `/results/${hour}`));
    }
    expect(outcomes.map((o) => [o.recorded, o.earlier])).toEqual([
      [true, 0],
      [true, 1],
      [true, 2],
      [true, 3],
      [true, 4],
    ]);
    expect(outcomes[3]?.checked.length).toBeGreaterThan(0);
    const last = outcomes[4];
    expect(
      last?.checked
        .filter((c) => c.changed)
        .map((c) => `${c.app}/${c.metric}`)
        .sort(),
    ).toEqual(["bun-bare/rps", "node-bare/rps-ratio"]);
    const again = run(5, 0.05);
    expect((await recordSession(target, again, analyze(again), "/x")).recorded).toBe(false);
    // Each recording closed the history: SQLite folded its write-ahead log into the file, so
    // the file alone (copied, backed up) holds every session.
    expect(existsSync(`${target}-wal`)).toBe(false);
  });
});
