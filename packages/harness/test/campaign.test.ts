// A campaign of sessions (run/campaign.ts): what it refuses, where its starts fall, what a
// round and a session cost, the rounds Kalibera & Jones give from a history, and the campaign
// itself: its lines, each session's values and rounds, its exit code and its closing view, with
// a stand-in for run.ts, a throwaway SQLite history and a clock of the test's own.

import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../src/analysis/random.ts";
import { openHistory } from "../src/history/open.ts";
import type { HistoryStore, SessionRecord } from "../src/history/store.ts";
import { historyView } from "../src/history/view.ts";
import { historyText } from "../src/report/history-report.ts";
import {
  type CampaignEnv,
  campaignOf,
  costs,
  planRounds,
  type Runner,
  runCampaign,
  startOffsets,
  waitUntil,
} from "../src/run/campaign.ts";
import { commandOf } from "../src/run/command.ts";
import type { Values } from "../src/run/flags.ts";
import type { Options } from "../src/run/options.ts";
import { session } from "./support/history-fixtures.ts";
import { tempDirs } from "./support/temp.ts";

/** A run's values from its command line, as campaignOf is given them. */
function valuesOf(argv: string[]): Values {
  const command = commandOf(argv, {}, "/here");
  if (command.kind !== "run") throw new Error(`not a run: ${argv.join(" ")}`);
  return command.values;
}

/** A run's values from -n 3 and these flags. */
const values = (...argv: string[]) => valuesOf(["-n", "3", ...argv]);

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

  // Three apps, 2 s windows, two scenarios: a process is 1 + 2 + 3 × 2 = 9 s a scenario, 18 s.
  const larger = {
    apps: [{ name: "a" }, { name: "b" }, { name: "c" }],
    warmupSec: 2,
    durationSec: 2,
    samples: 3,
    scenarios: [{ name: "api" }, { name: "db" }],
  } as unknown as Parameters<typeof costs>[0];

  test("a round counts every sample's window in every scenario; side by side, one turn a pair", () => {
    expect(costs(larger, []).process).toBe(54);
    // Two pairs against the first app: two turns of 18 s.
    expect(costs({ ...larger, side: {} } as Parameters<typeof costs>[0], []).process).toBe(36);
  });

  test("a session's own part: the median over the sessions whose times can be read", () => {
    // 3 rounds of 54 s each (162 s) and a fixed part of 50, 10 and 30 s, in that order; a
    // session whose finish cannot be read (a hand-edited history) says nothing.
    const lasting = (run: string, fixed: number) => {
      const s = session(run, "2026-11-28T01:00:00.000Z");
      return {
        ...s,
        finishedAt: new Date(Date.parse(s.startedAt) + (162 + fixed) * 1000).toISOString(),
      };
    };
    const unreadable = { ...session("x", "2026-11-28T01:00:00.000Z"), finishedAt: "" };
    const earlier = [lasting("a", 50), unreadable, lasting("b", 10), lasting("c", 30)];
    expect(costs(larger, earlier)).toEqual({ session: 30, process: 54 });
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

  /** Sessions whose req/s parts by `rps` and whose ratio to bun-bare by `ratio`, 10% within. */
  const twoSeries = (rps: number[], ratio: number[]): SessionRecord[] =>
    history(rps, 0.1).map((s, i) => ({
      ...s,
      estimates: s.estimates.map((e) =>
        e.metric === "rps-ratio" ? { ...e, estimate: -1 + (ratio[i] as number) } : e,
      ),
    }));
  const WIDE = [0, 0.08, -0.07, 0.06, -0.06]; // 4 rounds at 10% within
  const NARROW = [0, 0.07, -0.06, 0.05, -0.06]; // 8 rounds at 10% within

  test("the series that needs the most rounds decides, whichever comes first", () => {
    const eight =
      "over 5 sessions: processes vary 10.0%, sessions 1.8% beyond them; a session's fixed part costs 24 s, a round 12 s: ⌈√(24/12 · 10.0%² / 1.8%²)⌉ = 8 rounds";
    for (const [rps, ratio] of [
      [WIDE, NARROW],
      [NARROW, WIDE],
    ] as const) {
      const plan = planRounds(me, twoSeries(rps, ratio), design, 20);
      expect(plan.rounds).toBe(8);
      expect(plan.why).toBe(eight);
    }
  });

  test("other testbeds, settings and later sessions do not count", () => {
    const foreign = history([0, 0.2, -0.2, 0.15], 0.01).map((s, i) =>
      i % 2 ? { ...s, settingsKey: "k2" } : { ...s, testbed: { ...s.testbed, id: "tb9" } },
    );
    expect(planRounds(me, foreign, design, 20).rounds).toBe(20);
  });
});

/** The files of this process open on the history at `target` (the file, its -wal and -shm). */
const openFilesOf = (target: string) =>
  readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const file = readlinkSync(`/proc/self/fd/${fd}`);
      return file.startsWith(target) ? [file] : [];
    } catch {
      return []; // closed since it was listed (the listing's own)
    }
  });

/** A history file's path in a new temporary folder; nothing is there yet. */
const temp = tempDirs();
const newHistory = () => join(temp("bench-campaign-"), "history.sqlite");

async function add(target: string, sessions: readonly SessionRecord[]) {
  const store = (await openHistory(target, true)) as HistoryStore;
  for (const s of sessions) await store.add(s);
  await store.close();
}

/** Five earlier sessions of tb1 and k1 whose req/s needs 4 rounds a session (planRounds above). */
const EARLIER = [0, 0.08, -0.07, 0.06, -0.06].map((b, i) => {
  const s = session(`e${i}`, `2026-11-27T0${i}:00:00.000Z`, Math.log(1000) + b);
  return {
    ...s,
    finishedAt: `2026-11-27T0${i}:01:00.000Z`,
    estimates: s.estimates.map((e) => ({ ...e, se: 0.1 / Math.sqrt(e.n) })),
  };
});

/**
 * run.ts's stand-in: the options of `design` with the values' rounds and `target` as the
 * history, testbed tb1 and settings k1; each session's values kept, its exit code the next of
 * `codes` (0 after them), and the session `record` gives (if any) added to the history.
 */
function fakeRunner(
  target: string,
  codes: readonly number[] = [],
  record?: (k: number) => SessionRecord,
) {
  const ran: Values[] = [];
  const runner: Runner = {
    options: (values) =>
      ({ ...design, history: target, rounds: values.rounds }) as unknown as Options,
    identity: () => ({
      testbed: EARLIER[0]?.testbed as SessionRecord["testbed"],
      settingsKey: "k1",
    }),
    async session(values) {
      ran.push(values);
      if (record) await add(target, [record(ran.length)]);
      return codes[ran.length - 1] ?? 0;
    },
  };
  return { runner, ran };
}

/**
 * The campaign's environment, kept: its lines, what it printed, the times it waited for, and
 * `draws` as its random source; each wait answers the next of `waits` (true after them).
 */
function fakeEnv(draws: readonly number[], waits: readonly boolean[] = []) {
  const lines: string[] = [];
  const printed: string[] = [];
  const until: number[] = [];
  let next = 0;
  const env: CampaignEnv = {
    log: (line) => lines.push(line),
    print: (text) => printed.push(text),
    random: () => {
      const x = draws[next++];
      if (x === undefined) throw new Error("the campaign drew more than the test gave");
      return x;
    },
    waitUntil: async (at) => {
      until.push(at);
      return waits[until.length - 1] ?? true;
    },
  };
  return { env, lines, printed, until };
}

const viewOf = (sessions: readonly SessionRecord[]) => `\n${historyText(historyView(sessions))}\n`;
const NO_SERIES = viewOf([]);

describe("runCampaign", () => {
  const OUT = "/results/campaign";

  test("the plan: random starts in the window, in order; each session its folder and order seed", async () => {
    const target = newHistory();
    const { runner, ran } = fakeRunner(target);
    // Three starts at 0.5, 0.25 and 0.75 of an hour, then each session's seed.
    const { env, lines, printed, until } = fakeEnv([0.5, 0.25, 0.75, 0.1, 0.2, 0.3]);
    const given = values("--sessions", "3", "--spread", "1h");
    const before = performance.now();
    const code = await runCampaign(
      given,
      ["-n", "3"],
      { sessions: 3, spreadSec: 3600 },
      runner,
      OUT,
      env,
    );
    const after = performance.now();
    expect(code).toBe(0);
    expect(lines).toEqual([
      "bench: campaign of 3 sessions within 60m00s, starting at +15m00s, +30m00s, +45m00s",
      "bench: session 1 of 3",
      "bench: session 2 of 3",
      "bench: session 3 of 3",
    ]);
    // Each start counted from the campaign's own, in milliseconds of performance.now().
    expect(until[0]).toBeGreaterThanOrEqual(before + 900_000);
    expect(until[0]).toBeLessThanOrEqual(after + 900_000);
    expect(until.map((t) => Math.round(t - (until[0] as number)))).toEqual([0, 900_000, 1_800_000]);
    // -n given: each session takes its rounds, and the rest of the values as they were.
    expect(ran).toEqual(
      [0.1, 0.2, 0.3].map((x, k) => ({
        ...given,
        output: join(OUT, `session-${k + 1}`),
        orderSeed: Math.floor(x * 2 ** 31),
      })),
    );
    expect(ran.map((v) => v.rounds)).toEqual([3, 3, 3]);
    // Nothing was recorded: the view says so, and reading the history made no file.
    expect(printed).toEqual([NO_SERIES]);
    expect(existsSync(target)).toBe(false);
  });

  test("without -n: the rounds from the earlier sessions of its testbed and settings, read again before each", async () => {
    const target = newHistory();
    const otherTestbed = {
      ...session("f1", "2026-11-27T07:00:00.000Z"),
      testbed: { ...session("f1", "").testbed, id: "tb9" },
    };
    const otherSettings = { ...session("f2", "2026-11-27T08:00:00.000Z"), settingsKey: "k2" };
    await add(target, [...EARLIER, otherTestbed, otherSettings]);
    // Each session records one more of tb1 and k1, at the level of the first.
    const recorded = (k: number) => ({
      ...(EARLIER[0] as SessionRecord),
      run: `new${k}`,
      startedAt: `2026-11-27T1${k}:00:00.000Z`,
      finishedAt: `2026-11-27T1${k}:01:00.000Z`,
    });
    const { runner, ran } = fakeRunner(target, [], recorded);
    const { env, lines, printed } = fakeEnv([0, 0, 0.5, 0.5]);
    const code = await runCampaign(
      valuesOf(["--sessions", "2"]),
      [],
      { sessions: 2, spreadSec: 0 },
      runner,
      OUT,
      env,
    );
    expect(code).toBe(0);
    // The first session recorded one more at the level of the first: the sessions now part
    // less beyond their processes, and the second session takes more rounds.
    expect(lines.slice(1)).toEqual([
      "bench: session 1 of 2: over 5 sessions: processes vary 10.0%, sessions 3.6% beyond them; a session's fixed part costs 24 s, a round 12 s: ⌈√(24/12 · 10.0%² / 3.6%²)⌉ = 4 rounds",
      "bench: session 2 of 2: over 6 sessions: processes vary 10.0%, sessions 1.9% beyond them; a session's fixed part costs 24 s, a round 12 s: ⌈√(24/12 · 10.0%² / 1.9%²)⌉ = 8 rounds",
    ]);
    expect(ran.map((v) => v.rounds)).toEqual([4, 8]);
    // The closing view: every session of tb1 and k1, none of the other testbed or settings.
    expect(printed).toEqual([viewOf([...EARLIER, recorded(1), recorded(2)])]);
    // Every read closed the history again: this process holds no file of it open.
    expect(openFilesOf(target)).toEqual([]);
  });

  test("the first session of a new history: the default rounds, said so; no history file made", async () => {
    const target = newHistory();
    const { runner, ran } = fakeRunner(target);
    const { env, lines, printed } = fakeEnv([0, 0, 0.5, 0.5]);
    const code = await runCampaign(
      valuesOf(["--sessions", "2"]),
      [],
      { sessions: 2, spreadSec: 0 },
      runner,
      OUT,
      env,
    );
    expect(code).toBe(0);
    expect(lines).toEqual([
      "bench: campaign of 2 sessions within 0s, starting at +0s, +0s",
      "bench: session 1 of 2: fewer than 3 earlier sessions with an interval of their own: the default, 20 rounds",
      "bench: session 2 of 2: fewer than 3 earlier sessions with an interval of their own: the default, 20 rounds",
    ]);
    expect(ran.map((v) => v.rounds)).toEqual([20, 20]);
    expect(printed).toEqual([NO_SERIES]);
    expect(existsSync(target)).toBe(false);
  });

  /** A campaign of three back-to-back sessions with -n 3 whose sessions exit with `codes`. */
  async function exiting(codes: number[], waits: boolean[] = []) {
    const { runner, ran } = fakeRunner(newHistory(), codes);
    const { env, lines, printed } = fakeEnv([0, 0, 0, 0.1, 0.2, 0.3], waits);
    const code = await runCampaign(
      values("--sessions", "3"),
      [],
      { sessions: 3, spreadSec: 0 },
      runner,
      OUT,
      env,
    );
    return { code, sessions: ran.length, lines, printed };
  }

  test("a session that failed does not stop the campaign: every session runs, the worst code is its own", async () => {
    for (const codes of [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]) {
      const { code, sessions, printed } = await exiting(codes);
      expect([code, sessions, printed]).toEqual([1, 3, [NO_SERIES]]);
    }
    expect((await exiting([0, 0, 0])).code).toBe(0);
  });

  test("Ctrl-C, TERM or a usage error in a session ends the campaign with its code, without the view", async () => {
    for (const stop of [130, 143, 2]) {
      const { code, sessions, lines, printed } = await exiting([0, stop, 0]);
      expect([code, sessions, printed]).toEqual([stop, 2, []]);
      expect(lines.at(-1)).toBe("bench: session 2 of 3");
    }
  });

  test("a signal while waiting for a session's start: exit 130, no later session, no view", async () => {
    const { code, sessions, lines, printed } = await exiting([], [true, false]);
    expect([code, sessions, printed]).toEqual([130, 1, []]);
    expect(lines.at(-1)).toBe("bench: session 1 of 3");
  });
});

/** How many listeners each signal a campaign stops on has now. */
const handlers = () => [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")];

describe("waitUntil and the real environment", () => {
  afterEach(() => setSystemTime());

  test("waits until the time comes, then true; a time past: at once", async () => {
    const at = performance.now() + 40;
    expect(await waitUntil(at)).toBe(true);
    // Timers fire on the event loop's turn after their time; a millisecond for the clocks' rounding.
    expect(performance.now()).toBeGreaterThanOrEqual(at - 1);
    expect(await waitUntil(performance.now() - 1000)).toBe(true);
  });

  test("Ctrl-C or TERM ends the wait with false, and leaves no handler behind", async () => {
    const before = handlers();
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const waiting = waitUntil(performance.now() + 60_000);
      expect(handlers()).toEqual(before.map((n) => n + 1));
      process.emit(signal);
      expect(await waiting).toBe(false);
      expect(handlers()).toEqual(before);
    }
  });

  test("a campaign on the real clock: no session starts before its time", async () => {
    const { runner } = fakeRunner(newHistory());
    const started: number[] = [];
    const timed: Runner = {
      ...runner,
      session: (values, argv) => {
        started.push(performance.now());
        return runner.session(values, argv);
      },
    };
    // Starts at 30 and 45 ms (0.6 and 0.9 of 50 ms).
    const { env } = fakeEnv([0.9, 0.6, 0.1, 0.2]);
    const { waitUntil: _, ...real } = env;
    const before = performance.now();
    const code = await runCampaign(
      values("--sessions", "2"),
      [],
      { sessions: 2, spreadSec: 0.05 },
      timed,
      "/r",
      real,
    );
    expect(code).toBe(0);
    expect(started[0]).toBeGreaterThanOrEqual(before + 30 - 1);
    expect(started[1]).toBeGreaterThanOrEqual(before + 45 - 1);
  });

  test("Ctrl-C while a campaign waits: exit 130 at once, no session, no handler left", async () => {
    const before = handlers();
    const { runner, ran } = fakeRunner(newHistory());
    const { env, printed } = fakeEnv([0.99, 0.98]);
    const { waitUntil: _, ...real } = env;
    const running = runCampaign(
      values("--sessions", "2"),
      [],
      { sessions: 2, spreadSec: 3600 },
      runner,
      "/r",
      real,
    );
    process.emit("SIGINT");
    expect(await running).toBe(130);
    expect([ran.length, printed, handlers()]).toEqual([0, [], before]);
  });

  test("its lines go to stderr, the closing view to stdout", async () => {
    const { runner } = fakeRunner(newHistory());
    const { env } = fakeEnv([0, 0, 0.1, 0.2]);
    const written = { stdout: "", stderr: "" };
    const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
    for (const stream of ["stdout", "stderr"] as const) {
      process[stream].write = ((chunk: string) => {
        written[stream] += chunk;
        return true;
      }) as typeof process.stdout.write;
    }
    try {
      const { random, waitUntil: wait } = env;
      await runCampaign(
        values("--sessions", "2"),
        [],
        { sessions: 2, spreadSec: 0 },
        runner,
        "/r",
        { random, waitUntil: wait },
      );
    } finally {
      process.stdout.write = writes.stdout;
      process.stderr.write = writes.stderr;
    }
    expect(written).toEqual({
      stderr:
        "bench: campaign of 2 sessions within 0s, starting at +0s, +0s\nbench: session 1 of 2\nbench: session 2 of 2\n",
      stdout: NO_SERIES,
    });
  });

  test("each campaign its own random starts, from the clock it begins at", async () => {
    const plans: string[] = [];
    for (const ms of [0, 1, 2, 3]) {
      setSystemTime(new Date(Date.UTC(2026, 10, 28, 12) + ms));
      const { runner } = fakeRunner(newHistory());
      const { env, lines } = fakeEnv([], [false]);
      await runCampaign(
        values("--sessions", "3"),
        [],
        { sessions: 3, spreadSec: 3600 },
        runner,
        "/r",
        { log: env.log, waitUntil: env.waitUntil },
      );
      plans.push(lines[0] as string);
    }
    expect(new Set(plans).size).toBe(4);
  });
});
