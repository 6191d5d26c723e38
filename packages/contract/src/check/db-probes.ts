// The verifier's own access to an app's database, on either engine: it rewrites World, reads a
// row back, adds and removes a fortune. The checks (db-checks.ts) are written once against this
// interface; SQLite answers here, through the verifier's runtime's driver, PostgreSQL in
// pg-probe.ts, through its client.

import { type Fortune, WORLD_ROWS } from "../spec/db.ts";
import type { SqlDatabase } from "../stores/sqlite.ts";

export interface DbProbe {
  /** Runs a statement without parameters. */
  exec(sql: string): Promise<void>;
  /** Row `id`'s number as the table holds it now (undefined: no such row). */
  numberOf(id: number): Promise<number | undefined>;
  addFortune(fortune: Fortune): Promise<void>;
  removeFortune(id: number): Promise<void>;
  fortunes(): Promise<Fortune[]>;
}

/** A rewrite of every World row: its statement and the number it gives each id. */
export interface Rewrite {
  readonly sql: string;
  readonly numberOf: (id: number) => number;
}

/** A new rewrite with numbers no app can know in advance (SQL both engines run as is). */
export function drawRewrite(): Rewrite {
  const a = 1 + Math.floor(Math.random() * (WORLD_ROWS - 1));
  const b = Math.floor(Math.random() * WORLD_ROWS);
  return {
    sql: `UPDATE World SET randomNumber = ((id * ${a} + ${b}) % ${WORLD_ROWS}) + 1`,
    numberOf: (id) => ((id * a + b) % WORLD_ROWS) + 1,
  };
}

/** Rewrites every row of World through `probe`; returns each id's new number. */
export async function rewriteWorlds(probe: DbProbe): Promise<(id: number) => number> {
  const rewrite = drawRewrite();
  await probe.exec(rewrite.sql);
  return rewrite.numberOf;
}

export function sqliteProbe(db: SqlDatabase): DbProbe {
  return {
    exec: async (sql) => db.exec(sql),
    numberOf: async (id) =>
      (
        db.prepare("SELECT randomNumber FROM World WHERE id = ?").get(id) as
          | { randomNumber: number }
          | undefined
      )?.randomNumber,
    addFortune: async ({ id, message }) => {
      db.prepare("INSERT INTO Fortune (id, message) VALUES (?, ?)").run(id, message);
    },
    removeFortune: async (id) => {
      db.prepare("DELETE FROM Fortune WHERE id = ?").run(id);
    },
    fortunes: async () => db.prepare("SELECT id, message FROM Fortune").all() as Fortune[],
  };
}
