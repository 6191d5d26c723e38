// The history of sessions, one store interface over two engines: a SQLite file (the default,
// results/history.sqlite: no server) or a PostgreSQL database (--history postgres://...), which
// many machines can share. A session and its estimates go in one transaction, so a run killed
// while recording leaves nothing half-written, and two runs recording at once are both kept.
// A store is checked before anything is written to it (and before anything is measured): a
// file that is not a history, or one a newer harness wrote, is refused with one line.

import { join } from "node:path";
import type { SeriesEstimate } from "../analysis/session-estimates.ts";
import type { Testbed } from "../analysis/settings.ts";
import { REPO_ROOT } from "../common/root.ts";

/** What identifies a history in its meta table, and the layout this harness reads and writes. */
export const HISTORY_FORMAT = "runtime-bench-history";
export const HISTORY_VERSION = 1;

/** A store that cannot be used (unreachable, unwritable, foreign, corrupt, newer): exit 2. */
export class HistoryError extends Error {}

/** One finished run as the history keeps it. */
export interface SessionRecord {
  /** The session's id: its start and a short hash of its machine, command line and commit. */
  readonly run: string;
  readonly testbed: Testbed;
  /** settings.ts's key of the measured settings, and the settings by name. */
  readonly settingsKey: string;
  readonly settings: Readonly<Record<string, string>>;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly commit: string;
  readonly dirty: boolean;
  /** Runtimes as the apps reported them, and the lockfile's packages. */
  readonly versions: Readonly<Record<string, string>>;
  /** Where its results.json was. */
  readonly source: string;
  readonly estimates: readonly SeriesEstimate[];
}

export interface HistoryStore {
  /** The file, or the URL without its password. */
  readonly where: string;
  /** Adds a session with its estimates, all or nothing; false when it was there already. */
  add(session: SessionRecord): Promise<boolean>;
  /** Every session, oldest first. */
  sessions(): Promise<SessionRecord[]>;
  close(): Promise<void>;
}

/** The tables, in SQL both engines read alike. */
export const SCHEMA_SQL = [
  "CREATE TABLE IF NOT EXISTS history_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS history_sessions (run TEXT PRIMARY KEY, testbed TEXT NOT NULL, " +
    "settings_key TEXT NOT NULL, started_at TEXT NOT NULL, record TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS history_estimates (run TEXT NOT NULL, app TEXT NOT NULL, " +
    "reference TEXT NOT NULL, scenario TEXT NOT NULL, metric TEXT NOT NULL, " +
    "estimate DOUBLE PRECISION NOT NULL, se DOUBLE PRECISION NOT NULL, n INTEGER NOT NULL, " +
    "x DOUBLE PRECISION, PRIMARY KEY (run, app, reference, scenario, metric))",
];

/** The meta rows a new store gets. */
export const META_ROWS: readonly [string, string][] = [
  ["format", HISTORY_FORMAT],
  ["version", String(HISTORY_VERSION)],
];

/** Why a store's meta rows are not a history this harness can use; undefined when they are. */
export function metaProblem(meta: ReadonlyMap<string, string>): string | undefined {
  const format = meta.get("format");
  if (format !== HISTORY_FORMAT) {
    return `not a runtime-bench history (its format is ${format === undefined ? "missing" : JSON.stringify(format)})`;
  }
  const version = Number(meta.get("version"));
  if (!Number.isInteger(version) || version < 1) {
    return `its history version ${JSON.stringify(meta.get("version"))} is not one this harness knows`;
  }
  if (version > HISTORY_VERSION) {
    return `written by a newer harness (history version ${version}; this one reads up to ${HISTORY_VERSION}): update this checkout`;
  }
  return undefined;
}

/** A session row's JSON: the record without its estimates, which have a table of their own. */
export function recordJson(s: SessionRecord): string {
  const { estimates: _, ...rest } = s;
  return JSON.stringify(rest);
}

/** An estimate row as either engine returns it. */
export interface EstimateRow {
  readonly run: string;
  readonly app: string;
  readonly reference: string;
  readonly scenario: string;
  readonly metric: string;
  readonly estimate: number;
  readonly se: number;
  readonly n: number;
  readonly x: number | null;
}

/** Sessions from their rows (oldest first) and their estimates' rows. */
export function sessionsFrom(
  rows: readonly { record: string }[],
  estimates: readonly EstimateRow[],
): SessionRecord[] {
  const byRun = new Map<string, SeriesEstimate[]>();
  for (const e of estimates) {
    const list = byRun.get(e.run) ?? [];
    list.push({
      app: e.app,
      reference: e.reference,
      scenario: e.scenario,
      metric: e.metric as SeriesEstimate["metric"],
      estimate: Number(e.estimate),
      se: Number(e.se),
      n: Number(e.n),
      ...(e.x === null || e.x === undefined ? {} : { x: Number(e.x) }),
    });
    byRun.set(e.run, list);
  }
  return rows.map((row) => {
    const record = JSON.parse(row.record) as Omit<SessionRecord, "estimates">;
    return { ...record, estimates: byRun.get(record.run) ?? [] };
  });
}

/** The history's file when neither --history nor HISTORY_ENV names one, in the checkout. */
export const HISTORY_FILE = "results/history.sqlite";

/** The variable that names a history for every run of this shell (a file or a URL). */
export const HISTORY_ENV = "BENCH_HISTORY";

/** Where a run records when no --history says: HISTORY_ENV, else HISTORY_FILE. */
export const defaultHistory = (env: Record<string, string | undefined> = process.env): string =>
  env[HISTORY_ENV] ?? join(REPO_ROOT, HISTORY_FILE);

/** A PostgreSQL URL rather than a file. */
export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//.test(target);

/** The URL without its password, for messages and records. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
  }
}
