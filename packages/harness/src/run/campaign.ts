// --sessions N --spread DURATION: a campaign of sessions, so that a figure is measured as the
// history needs it, over hours rather than within one (Abedi & Brecht, ICPE 2017: randomized
// multiple interleaved trials across time). The starts fall at random within the window and
// never overlap (a session starts when its time has come and the previous one has ended); each
// session is a full run with its own random order, recorded in the history; without -n its
// rounds come from Kalibera & Jones's allocation over this testbed's earlier sessions of the
// same settings (analysis/allocation.ts). The campaign ends with the across-session view.

import { join } from "node:path";
import { type Allocation, allocateRounds } from "../analysis/allocation.ts";
import { mulberry32 } from "../analysis/random.ts";
import { formatSec } from "../common/time.ts";
import { openHistory } from "../history/open.ts";
import { comparable } from "../history/recording.ts";
import type { SessionRecord } from "../history/store.ts";
import { historyView } from "../history/view.ts";
import { historyText } from "../report/history-report.ts";
import { UsageError } from "./errors.ts";
import type { Values } from "./flags.ts";
import type { Options } from "./options.ts";

export interface Campaign {
  readonly sessions: number;
  readonly spreadSec: number;
}

/** --sessions and --spread as given, checked against the rest; undefined without --sessions. */
export function campaignOf(values: Values): Campaign | undefined {
  const { sessions, spread: spreadSec } = values;
  if (sessions === undefined) {
    if (values.given.has("spread")) throw new UsageError("--spread goes with --sessions");
    return undefined;
  }
  const refused: [string, boolean][] = [
    ["--no-history (a campaign's sessions are what the history is for)", values["no-history"]],
    ["--calibrate", values.calibrate],
    ["--against", values.against !== undefined],
    ["--apps-root", values["apps-root"] !== undefined],
    ["--server-host", values["server-host"] !== undefined],
    [
      "--precision (each session's rounds are the campaign's to choose)",
      values.precision !== undefined,
    ],
  ];
  const found = refused.find(([, given]) => given);
  if (found) throw new UsageError(`--sessions does not go with ${found[0]}`);
  return { sessions, spreadSec };
}

/** Each session's start, seconds after the campaign's: uniform within the window, in order. */
export function startOffsets(sessions: number, spreadSec: number, random: () => number): number[] {
  return Array.from({ length: sessions }, () => random() * spreadSec).sort((a, b) => a - b);
}

/** The seconds one round and one session's fixed part take, from the run's design. */
export function costs(
  options: Pick<Options, "apps" | "warmupSec" | "durationSec" | "samples" | "side" | "scenarios">,
  earlier: readonly SessionRecord[],
) {
  // A process: its start and verification (about a second), its warm-up and its samples.
  const perProcess =
    (1 + options.warmupSec + options.samples * options.durationSec) * options.scenarios.length;
  const turns = options.side ? Math.max(1, options.apps.length - 1) : options.apps.length;
  const round = turns * perProcess;
  const fixed = earlier.map((s) => {
    const rounds = Math.max(1, ...s.estimates.map((e) => e.n));
    return (Date.parse(s.finishedAt) - Date.parse(s.startedAt)) / 1000 - rounds * round;
  });
  const sorted = fixed.filter(Number.isFinite).sort((a, b) => a - b);
  // Bootstrap, verification, the reports: a few seconds when the history cannot say.
  const session = Math.max(1, sorted[Math.floor(sorted.length / 2)] ?? 10);
  return { session: Math.round(session), process: Math.round(round) };
}

/**
 * The rounds of the next session: the most any of its series needs by Kalibera & Jones, over
 * the earlier sessions of its testbed and settings; `fallback` when none can say.
 */
export function planRounds(
  me: Pick<SessionRecord, "testbed" | "settingsKey" | "startedAt" | "run">,
  all: readonly SessionRecord[],
  options: Parameters<typeof costs>[0],
  fallback: number,
): Allocation {
  const earlier = comparable(all, { ...me, estimates: [] } as unknown as SessionRecord);
  const c = costs(options, earlier);
  const series = new Map<string, { estimate: number; se: number; processes: number }[]>();
  for (const s of earlier) {
    for (const e of s.estimates) {
      const key = [e.app, e.reference, e.scenario, e.metric].join("\u0000");
      series.set(key, [
        ...(series.get(key) ?? []),
        { estimate: e.estimate, se: e.se, processes: e.n },
      ]);
    }
  }
  // The series that needs the most rounds decides; with none the history can size, the fallback.
  const sized = [...series.values()]
    .map((points) => allocateRounds(points, c, fallback))
    .filter((p) => p.components && Number.isFinite(p.components.optimum));
  if (sized.length === 0) return allocateRounds([], c, fallback);
  return sized.reduce((most, p) => (p.rounds > most.rounds ? p : most));
}

/** Waits until `at` (performance.now() ms) or a signal; false when a signal came. */
export function waitUntil(at: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(ok);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), Math.max(0, at - performance.now()));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * What a campaign takes from outside itself: where its lines go, its random source and its
 * waits. The defaults are the real ones; a test gives its own, so that a campaign of hours
 * runs in milliseconds and the same every time.
 */
export interface CampaignEnv {
  /** A line of progress (stderr: stdout is the closing view's). */
  readonly log: (line: string) => void;
  /** The closing view (stdout). */
  readonly print: (text: string) => void;
  /** Uniform in [0, 1): the starts, then each session's order seed. */
  readonly random: () => number;
  /** As waitUntil: until `at` on performance.now()'s clock, false when a signal came first. */
  readonly waitUntil: (at: number) => Promise<boolean>;
}

/** The real environment; the random source seeded by the clock, so each campaign has its own. */
function realEnv(): CampaignEnv {
  return {
    log: (line) => process.stderr.write(`${line}\n`),
    print: (text) => process.stdout.write(text),
    random: mulberry32(Date.now() % 2 ** 31),
    waitUntil,
  };
}

/** What the campaign needs of run.ts: a session measured, and a run's options without running. */
export interface Runner {
  session(values: Values, argv: string[]): Promise<number>;
  options(values: Values, argv: string[]): Options;
  /** The testbed and settings key a run with these options would record. */
  identity(options: Options): Pick<SessionRecord, "testbed" | "settingsKey">;
}

/** The campaign: every session in turn, then the across-session view of its series. */
export async function runCampaign(
  values: Values,
  argv: string[],
  campaign: Campaign,
  runner: Runner,
  outDir: string,
  env: Partial<CampaignEnv> = {},
): Promise<number> {
  const { log, print, random, waitUntil: wait } = { ...realEnv(), ...env };
  const offsets = startOffsets(campaign.sessions, campaign.spreadSec, random);
  const t0 = performance.now();
  log(
    `bench: campaign of ${campaign.sessions} sessions within ${formatSec(campaign.spreadSec)}, starting at ` +
      offsets.map((o) => `+${formatSec(o)}`).join(", "),
  );
  let worst = 0;
  let identity: Pick<SessionRecord, "testbed" | "settingsKey"> | undefined;
  let target: string | undefined;
  for (const [k, offset] of offsets.entries()) {
    if (!(await wait(t0 + offset * 1000))) return 130;
    const session: Values = {
      ...values,
      output: join(outDir, `session-${k + 1}`),
      orderSeed: Math.floor(random() * 2 ** 31),
    };
    const options = runner.options(session, argv);
    identity ??= runner.identity(options);
    target ??= options.history;
    const rounds = values.given.has("rounds") ? undefined : await allocate(options, identity);
    log(`bench: session ${k + 1} of ${campaign.sessions}${rounds ? `: ${rounds.why}` : ""}`);
    const code = await runner.session(
      rounds ? { ...session, rounds: rounds.rounds } : session,
      argv,
    );
    // Ctrl-C or TERM (130, 143) ends the campaign, and so does a usage error (2), which every
    // later session would meet as well; a session that failed (1) does not: the next may pass.
    if (code === 130 || code === 143 || code === 2) return code;
    worst = Math.max(worst, code);
  }
  if (target && identity) print(await closingView(target, identity));
  return worst;
}

/** The next session's rounds, from the history as it is now (earlier sessions recorded). */
async function allocate(
  options: Options,
  identity: Pick<SessionRecord, "testbed" | "settingsKey">,
) {
  const store = await openHistory(options.history as string, false);
  try {
    const all = store ? await store.sessions() : [];
    const me = { ...identity, startedAt: new Date().toISOString(), run: "" };
    return planRounds(me, all, options, options.rounds);
  } finally {
    await store?.close();
  }
}

/** The campaign's series across every session of its testbed and settings, as text. */
async function closingView(
  target: string,
  identity: Pick<SessionRecord, "testbed" | "settingsKey">,
): Promise<string> {
  const store = await openHistory(target, false);
  try {
    const sessions = (store ? await store.sessions() : []).filter(
      (s) => s.testbed.id === identity.testbed.id && s.settingsKey === identity.settingsKey,
    );
    return `\n${historyText(historyView(sessions))}\n`;
  } finally {
    await store?.close();
  }
}
