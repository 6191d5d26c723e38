// The SQLite store: what the four database routes do, written once over the runtime's SQLite
// (sqlite.ts) and shared by every app, as TechEmpower's rules ask: every World row read by its
// own query, with a prepared statement; an update reads each row, gives it a new random number
// and writes the rows back in one transaction. The framework code around it is each app's own.
//
// The harness hands every app process its own seeded copy of the database (BENCH_DB, a file in
// WAL mode, made by createWorldDb); without one, as in `bun run start` or the in-process tests,
// the app seeds a private in-memory database. The database is opened at the first request (by
// selector.ts), not at import.

import { writeFileSync } from "node:fs";
import { type Fortune, randomWorldId, seedSql, type World } from "../spec/db.ts";
import { openSqlite, type SqlDatabase, type SqlStatement } from "./sqlite.ts";
import type { WorldStore } from "./world-store.ts";

/** The SQLite store: every answer at once. */
export interface SyncWorldStore extends WorldStore {
  world(): World;
  worlds(count: number): World[];
  updated(count: number): World[];
  fortunes(): Fortune[];
}

/**
 * Settings every connection gets: a busy connection waits (the workers of one app share the
 * file) instead of failing, and a WAL commit is not flushed to disk on every transaction
 * (durable across a crash of the app, not of the machine: a benchmark's database).
 */
const CONNECTION_SQL = "PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;";

/**
 * Creates the database file at `path`, seeded from the contract, in WAL mode (readers never wait
 * for the writer). The harness makes one per app process; an existing file is refused.
 */
export function createWorldDb(path: string): void {
  writeFileSync(path, "", { flag: "wx" });
  const db = openSqlite(path);
  try {
    db.exec("PRAGMA journal_mode = WAL;");
    db.exec(seedSql());
  } finally {
    db.close();
  }
}

export function openWorldDb(path: string | undefined): SqlDatabase {
  if (path === undefined || path === "") {
    const db = openSqlite(":memory:");
    db.exec(seedSql());
    return db;
  }
  const db = openSqlite(path);
  db.exec(CONNECTION_SQL);
  return db;
}

class Store implements SyncWorldStore {
  private readonly select: SqlStatement;
  private readonly update: SqlStatement;
  private readonly all: SqlStatement;
  private readonly begin: SqlStatement;
  private readonly commit: SqlStatement;
  private readonly db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.db = db;
    this.select = db.prepare("SELECT id, randomNumber FROM World WHERE id = ?");
    this.update = db.prepare("UPDATE World SET randomNumber = ? WHERE id = ?");
    this.all = db.prepare("SELECT id, message FROM Fortune");
    // IMMEDIATE: take the write lock first, so two workers' updates wait for each other
    // instead of one failing to upgrade its read lock.
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
  }

  world(): World {
    return this.select.get(randomWorldId()) as World;
  }

  worlds(count: number): World[] {
    const rows: World[] = [];
    for (let i = 0; i < count; i++) rows.push(this.world());
    return rows;
  }

  updated(count: number): World[] {
    const rows = this.worlds(count).map((w) => ({ id: w.id, randomNumber: randomWorldId() }));
    this.begin.run();
    try {
      for (const row of rows) this.update.run(row.randomNumber, row.id);
      this.commit.run();
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
    return rows;
  }

  fortunes(): Fortune[] {
    return this.all.all() as Fortune[];
  }
}

/** A store over `db`: its statements prepared once. */
export function storeOver(db: SqlDatabase): SyncWorldStore {
  return new Store(db);
}
