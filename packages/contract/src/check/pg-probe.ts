// The verifier's own access to a PostgreSQL database (db-probes.ts's interface; SQLite's is
// there): what the database checks rewrite and read back through, beside the app's pool. Not a
// store: no app serves from it.

import type { Fortune } from "../spec/db.ts";
import type { Sql } from "../stores/postgres.ts";
import type { DbProbe } from "./db-probes.ts";

/** The probe over the pool `sql` (one connection is enough: the checks run one at a time). */
export function pgProbe(sql: Sql): DbProbe {
  return {
    exec: async (text) => {
      await sql.unsafe(text);
    },
    numberOf: async (id) =>
      (await sql<{ n: number }>`SELECT randomnumber AS n FROM world WHERE id = ${id}`)[0]?.n,
    addFortune: async ({ id, message }) => {
      await sql`INSERT INTO fortune (id, message) VALUES (${id}, ${message})`;
    },
    removeFortune: async (id) => {
      await sql`DELETE FROM fortune WHERE id = ${id}`;
    },
    fortunes: async () => [...(await sql<Fortune>`SELECT id, message FROM fortune`)],
  };
}
