// The history in a PostgreSQL database (--history postgres://...), for many machines sharing
// one: the contract's client (Bun.sql here) over one connection, every write in a transaction,
// the tables made once under an advisory lock (two machines creating them at once would
// otherwise collide), and the meta rows checked before anything is written.

import { connectPostgres, type Sql } from "@bench/contract";
import {
  type EstimateRow,
  HistoryError,
  type HistoryStore,
  META_ROWS,
  metaProblem,
  recordJson,
  redacted,
  SCHEMA_SQL,
  type SessionRecord,
  sessionsFrom,
} from "./store.ts";

/** How long the server may take to answer the first query before the URL counts as unreachable. */
const CONNECT_MS = 10_000;

/** An arbitrary key of the advisory lock that serialises creating the tables. */
const SCHEMA_LOCK = 1_970_042_001;

async function within<T>(what: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why)), ms);
  });
  try {
    return await Promise.race([what, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The meta rows, or undefined when the table is not there (a database without a history). */
async function metaOf(sql: Sql): Promise<Map<string, string> | undefined> {
  const [found] = await sql<{
    present: string | null;
  }>`SELECT to_regclass('history_meta')::text AS present`;
  if (!found?.present) return undefined;
  const rows = await sql<{ key: string; value: string }>`SELECT key, value FROM history_meta`;
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Makes the tables when the database has none, under the advisory lock; checks the meta rows. */
async function prepare(sql: Sql, where: string, write: boolean): Promise<boolean> {
  const meta = await metaOf(sql);
  if (meta) {
    const problem = metaProblem(meta);
    if (problem) throw new HistoryError(`${where}: ${problem}; nothing was written to it`);
    return true;
  }
  if (!write) return false;
  await sql.unsafe("BEGIN");
  try {
    await sql.unsafe(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
    for (const statement of SCHEMA_SQL) await sql.unsafe(statement);
    for (const [key, value] of META_ROWS) {
      await sql`INSERT INTO history_meta (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO NOTHING`;
    }
    await sql.unsafe("COMMIT");
  } catch (error) {
    await sql.unsafe("ROLLBACK").catch(() => {});
    throw error;
  }
  return true;
}

/**
 * Connects to the history at `url`: for reading (undefined when the database has none yet) or
 * for writing (its tables made when it has none). Unreachable, refused or foreign: HistoryError.
 */
export async function openPostgresHistory(
  url: string,
  write: boolean,
): Promise<HistoryStore | undefined> {
  const where = redacted(url);
  const sql = connectPostgres(url, 1);
  try {
    const ready = await within(
      prepare(sql, where, write),
      CONNECT_MS,
      `no answer within ${CONNECT_MS / 1000} s`,
    );
    if (!ready) {
      await sql.end();
      return undefined;
    }
  } catch (error) {
    await sql.end().catch(() => {});
    if (error instanceof HistoryError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new HistoryError(`cannot use the history at ${where}: ${why}`);
  }
  return postgresStore(where, sql);
}

function postgresStore(where: string, sql: Sql): HistoryStore {
  return {
    where,
    async add(session: SessionRecord) {
      await sql.unsafe("BEGIN");
      try {
        const added = await sql<{ run: string }>`
          INSERT INTO history_sessions (run, testbed, settings_key, started_at, record)
          VALUES (${session.run}, ${session.testbed.id}, ${session.settingsKey}, ${session.startedAt}, ${recordJson(session)})
          ON CONFLICT (run) DO NOTHING RETURNING run`;
        if (added.length === 0) {
          await sql.unsafe("ROLLBACK");
          return false;
        }
        for (const e of session.estimates) {
          await sql`
            INSERT INTO history_estimates (run, app, reference, scenario, metric, estimate, se, n, x)
            VALUES (${session.run}, ${e.app}, ${e.reference}, ${e.scenario}, ${e.metric}, ${e.estimate}, ${e.se}, ${e.n}, ${e.x ?? null})`;
        }
        await sql.unsafe("COMMIT");
        return true;
      } catch (error) {
        await sql.unsafe("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    async sessions() {
      const rows = await sql<{ record: string }>`
        SELECT record FROM history_sessions ORDER BY started_at, run`;
      const estimates = await sql<EstimateRow>`SELECT * FROM history_estimates`;
      return sessionsFrom(rows, estimates);
    },
    async close() {
      await sql.end();
    },
  };
}
