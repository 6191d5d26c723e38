// A campaign of sessions (run/campaign.ts): what it refuses, where its starts fall, what a
// round and a session cost, and the rounds Kalibera & Jones give from a history.

import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../src/analysis/random.ts";
import type { SessionRecord } from "../src/history/store.ts";
import { campaignOf, costs, planRounds, startOffsets } from "../src/run/campaign.ts";
import { commandOf } from "../src/run/command.ts";
import type { Values } from "../src/run/flags.ts";
import { session } from "./support/history-fixtures.ts";

/** A run's values from its command line (-n 3 and these flags), as campaignOf is given them. */
function values(...argv: string[]): Values {
  const command = commandOf(["-n", "3", ...argv], {}, "/here");
  if (command.kind !== "run") throw new Error(`not a run: ${argv.join(" ")}`);
  return command.values;
}

describe("campaignOf", () => {
  test("none without --sessions; N sessions within --spread (default: back to back)", () => {
    expect(campaignOf(values())).toBeUndefined();
    expect(campaignOf(values("--sessions", "4", "--spread", "3m"))).toEqual({
      sessions: 4,
      spreadSec: 180,
    });
    expect(campaignOf(values("--sessions", "2"))).toEqual({ sessions: 2, spreadSec: 0 });
  });

  test("refusals: one line each", () => {
    const cases: [string[], string][] = [
      [["--spread", "1m"], "--spread goes with --sessions"],
      [["--sessions", "1"], "--sessions must be a whole number >= 2, got '1'"],
      [
        ["--sessions", "2", "--spread", "soon"],
        "--spread takes a duration like 90s, 10m or 1h, got 'soon'",
      ],
      [["--sessions", "2", "--no-history"], "--sessions does not go with --no-history"],
      [["--sessions", "2", "--calibrate"], "--sessions does not go with --calibrate"],
      [["--sessions", "2", "--against", "main"], "--sessions does not go with --against"],
      [["--sessions", "2", "--apps-root", "/x"], "--sessions does not go with --apps-root"],
      [["--sessions", "2", "--server-host", "h"], "--sessions does not go with --server-host"],
      [["--sessions", "2", "--precision", "3"], "--sessions does not go with --precision"],
    ];
    for (const [argv, message] of cases) {
      expect(() => campaignOf(values(...argv))).toThrow(message);
    }
  });
});

describe("startOffsets", () => {
  test("within the window, in order, random", () => {
    const offsets = startOffsets(50, 600, mulberry32(3));
    expect(offsets).toHaveLength(50);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...offsets)).toBeLessThan(600);
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(300);
    expect(startOffsets(3, 0, mulberry32(1))).toEqual([0, 0, 0]);
  });
});

const design = {
  apps: [{ name: "bun-bare" }, { name: "node-bare" }],
  warmupSec: 2,
  durationSec: 1,
  samples: 3,
  scenarios: [{ name: "api" }],
} as unknown as Parameters<typeof costs>[0];

describe("costs", () => {
  test("a round: every app's start, warm-up and samples; a session: the rest of its time", () => {
    expect(costs(design, [])).toEqual({ session: 10, process: 12 });
    const s = {
      ...session("a", "2026-11-28T01:00:00.000Z"),
      finishedAt: "2026-11-28T01:01:10.000Z",
    };
    // 70 s for 3 rounds of 12 s: 34 s were the session's own
    expect(costs(design, [s])).toEqual({ session: 34, process: 12 });
    const side = { ...design, side: {} } as Parameters<typeof costs>[0];
    expect(costs(side, []).process).toBe(6); // one pair of two apps
  });
});

describe("planRounds", () => {
  const me = {
    testbed: session("x", "2026-11-28T00:00:00.000Z").testbed,
    settingsKey: "k1",
    startedAt: "2026-11-29T00:00:00.000Z",
    run: "me",
  };
  /** Sessions whose bun-bare figure parts by `between` and whose processes spread by `within`. */
  const history = (between: number[], within: number): SessionRecord[] =>
    between.map((b, i) => {
      const s = session(`s${i}`, `2026-11-28T0${i}:00:00.000Z`, Math.log(1000) + b);
      return {
        ...s,
        finishedAt: `2026-11-28T0${i}:01:00.000Z`,
        estimates: s.estimates.map((e) => ({ ...e, se: within / Math.sqrt(e.n) })),
      };
    });

  test("too short a history: the fallback, said so", () => {
    const plan = planRounds(me, history([0, 0.01], 0.1), design, 20);
    expect(plan.rounds).toBe(20);
    expect(plan.why).toContain("fewer than 3 earlier sessions");
  });

  test("sessions that part much more than their processes: few rounds, never below 3", () => {
    const plan = planRounds(me, history([0, 0.2, -0.2, 0.15, -0.1], 0.01), design, 20);
    expect(plan.rounds).toBe(3);
    expect(plan.components).toBeDefined();
  });

  test("noisier processes against the sessions' own spread: more rounds", () => {
    const plan = planRounds(me, history([0, 0.08, -0.07, 0.06, -0.06], 0.1), design, 20);
    expect(plan.rounds).toBe(4);
    expect(plan.why).toMatch(/^over 5 sessions/);
  });

  test("sessions that part no more than their processes explain: the fallback, said so", () => {
    const plan = planRounds(me, history([0, 0.05, -0.04, 0.03, -0.05], 0.3), design, 20);
    expect(plan.rounds).toBe(20);
  });

  test("other testbeds, settings and later sessions do not count", () => {
    const foreign = history([0, 0.2, -0.2, 0.15], 0.01).map((s, i) =>
      i % 2 ? { ...s, settingsKey: "k2" } : { ...s, testbed: { ...s.testbed, id: "tb9" } },
    );
    expect(planRounds(me, foreign, design, 20).rounds).toBe(20);
  });
});
