// verify()'s database step, on either engine: the app's SQLite file (BENCH_DB) or its PostgreSQL
// URL (BENCH_PG) is opened, handed to the checks (db-checks.ts) and closed. Plumbing only (it
// was db-open.ts, a name that hid that it runs the checks): the conformance tests run it on
// SQLite, the PostgreSQL tests on a real server.

import { connectPostgres } from "../stores/postgres.ts";
import { openSqlite } from "../stores/sqlite.ts";
import { checkDatabase } from "./db-checks.ts";
import { sqliteProbe } from "./db-probes.ts";
import { pgProbe } from "./pg-probe.ts";
import type { Fetcher, Violation } from "./violation.ts";

/** The database checks against `database` (a file path, or a postgres:// URL). */
export async function checkDatabaseAt(
  fetcher: Fetcher,
  origin: string,
  database: string,
): Promise<Violation[]> {
  if (database.startsWith("postgres://")) {
    const sql = connectPostgres(database, 1);
    try {
      return await checkDatabase(fetcher, origin, pgProbe(sql));
    } finally {
      await sql.end();
    }
  }
  const db = openSqlite(database);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return await checkDatabase(fetcher, origin, sqliteProbe(db));
  } finally {
    db.close();
  }
}
