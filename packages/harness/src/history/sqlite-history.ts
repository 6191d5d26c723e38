// The history in a SQLite file (bun:sqlite): checked read-only before it is opened for writing,
// so a file that is not a history is never touched; written in WAL mode with a busy timeout and
// BEGIN IMMEDIATE, so two runs that finish at once both record, one after the other.

import { Database, type Statement } from "bun:sqlite";
import { accessSync, constants, existsSync, linkSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import {
  type EstimateRow,
  HistoryError,
  type HistoryStore,
  META_ROWS,
  metaProblem,
  recordJson,
  SCHEMA_SQL,
  type SessionRecord,
  sessionsFrom,
} from "./store.ts";

/** How long a writer waits for another to finish its transaction. */
const BUSY_MS = 30_000;

/** Checks an existing file read-only: a history this harness reads, not corrupt. */
function check(path: string): void {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    // A writer may hold the file this moment (another run recording): wait for it.
    db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
    const read = db;
    const rows = using(read, "SELECT key, value FROM history_meta", (q) => q.all()) as {
      key: string;
      value: string;
    }[];
    const problem = metaProblem(new Map(rows.map((r) => [r.key, r.value])));
    if (problem) throw new HistoryError(`${path}: ${problem}; nothing was written to it`);
    const [quick] = using(read, "PRAGMA quick_check", (q) => q.all()) as { quick_check: string }[];
    if (quick?.quick_check !== "ok") {
      throw new HistoryError(
        `${path}: the history is corrupt (${quick?.quick_check}); nothing was written to it`,
      );
    }
  } catch (error) {
    if (error instanceof HistoryError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new HistoryError(
      `${path}: not a runtime-bench history (${why}); nothing was written to it`,
    );
  } finally {
    db?.close();
  }
}

/** Whether a new file can be made at `path`: its folder exists and is writable, or can be made. */
function creatable(path: string): void {
  const folder = dirname(path);
  try {
    if (!existsSync(folder)) mkdirSync(folder, { recursive: true });
    if (!statSync(folder).isDirectory()) throw new Error(`${folder} is not a folder`);
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new HistoryError(`cannot write the history at ${path}: ${why}`);
  }
}

/**
 * Checks that the history at `path` can be written (an existing one read-only first), before
 * anything is measured; creates nothing.
 */
export function checkSqliteWritable(path: string): void {
  if (!existsSync(path)) {
    creatable(path);
    return;
  }
  check(path);
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new HistoryError(`cannot write the history at ${path}: ${why}`);
  }
}

/**
 * Opens the history at `path`: for reading (undefined when there is none yet) or for writing
 * (made when there is none).
 */
export function openSqliteHistory(path: string, write: boolean): HistoryStore | undefined {
  if (!existsSync(path)) {
    if (!write) return undefined;
    create(path);
  }
  check(path);
  const db = write ? new Database(path) : new Database(path, { readonly: true });
  db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
  return sqliteStore(path, db);
}

/**
 * A new history at `path`, made whole beside it and linked into place, so no other run ever
 * opens it half-made; when another run made it first, theirs stands and this one is dropped.
 */
function create(path: string): void {
  creatable(path);
  const scratch = `${path}.${process.pid}.${Date.now()}.new`;
  const db = new Database(scratch, { create: true });
  try {
    db.exec("PRAGMA journal_mode = WAL");
    const setup = db.transaction(() => {
      for (const sql of SCHEMA_SQL) db.exec(sql);
      using(db, "INSERT INTO history_meta (key, value) VALUES (?, ?)", (insert) => {
        for (const [key, value] of META_ROWS) insert.run(key, value);
      });
    });
    setup.immediate();
  } finally {
    db.close();
  }
  try {
    linkSync(scratch, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    for (const leftover of [scratch, `${scratch}-wal`, `${scratch}-shm`])
      rmSync(leftover, { force: true });
  }
}

/**
 * A statement for the length of `use`, then finalized: a statement left open keeps the
 * connection (and its locks) alive past close(), which another writer would wait on.
 */
function using<T>(db: Database, sql: string, use: (statement: Statement) => T): T {
  const statement = db.prepare(sql);
  try {
    return use(statement);
  } finally {
    statement.finalize();
  }
}

const INSERT_SESSION =
  "INSERT OR IGNORE INTO history_sessions (run, testbed, settings_key, started_at, record) VALUES (?, ?, ?, ?, ?)";
const INSERT_ESTIMATE =
  "INSERT INTO history_estimates (run, app, reference, scenario, metric, estimate, se, n, x) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

function sqliteStore(path: string, db: Database): HistoryStore {
  return {
    where: path,
    async add(session: SessionRecord) {
      const insert = db.transaction(() => {
        const s = session;
        const added = using(db, INSERT_SESSION, (q) =>
          q.run(s.run, s.testbed.id, s.settingsKey, s.startedAt, recordJson(s)),
        );
        if (added.changes === 0) return false;
        using(db, INSERT_ESTIMATE, (q) => {
          for (const e of s.estimates) {
            q.run(
              s.run,
              e.app,
              e.reference,
              e.scenario,
              e.metric,
              e.estimate,
              e.se,
              e.n,
              e.x ?? null,
            );
          }
        });
        return true;
      });
      return insert.immediate() as boolean;
    },
    async sessions() {
      const rows = using(db, "SELECT record FROM history_sessions ORDER BY started_at, run", (q) =>
        q.all(),
      ) as { record: string }[];
      const estimates = using(db, "SELECT * FROM history_estimates", (q) =>
        q.all(),
      ) as EstimateRow[];
      return sessionsFrom(rows, estimates);
    },
    async close() {
      db.close();
    },
  };
}
