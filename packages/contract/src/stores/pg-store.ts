// The four database routes over PostgreSQL (`--db postgres`), with the same rules as the SQLite
// store (sqlite-store.ts): every World row read by its own query, an update reads each row, gives
// it a new random number and writes the rows back at once (here in one statement). The queries
// of one request go out together (the client pipelines them over its pool), as the field's
// fastest PostgreSQL entries do. Each runtime's client comes from postgres.ts.

import { type Fortune, randomWorldId, type World } from "../spec/db.ts";
import { connectPostgres, type Sql } from "./postgres.ts";
import type { WorldStore } from "./world-store.ts";

class PgStore implements WorldStore {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async world(): Promise<World> {
    const id = randomWorldId();
    const [row] = await this.sql<World>`
      SELECT id, randomnumber AS "randomNumber" FROM world WHERE id = ${id}`;
    if (row === undefined) throw new Error(`World has no row ${id}`);
    return row;
  }

  worlds(count: number): Promise<World[]> {
    return Promise.all(Array.from({ length: count }, () => this.world()));
  }

  async updated(count: number): Promise<World[]> {
    const read = await this.worlds(count);
    const rows = read.map((w) => ({ id: w.id, randomNumber: randomWorldId() }));
    // One statement writes them all: atomic without a BEGIN, as the field's fastest entries do
    // (postgres.js 3.4.9 can send a transaction's BEGIN on a connection it has not reserved
    // when the pipeline is full: UNSAFE_TRANSACTION under load, porsager/postgres#823). A
    // repeated id is written once, with its last number. In ascending ids: PostgreSQL's plan
    // for a few ids (a nested loop over unnest and the primary key) locks rows in that order,
    // so concurrent updates wait for each other rather than deadlock (a deadlock would be a 500).
    const last = new Map(rows.map((r) => [r.id, r.randomNumber]));
    const ids = [...last.keys()].sort((a, b) => a - b);
    const array = (values: number[]) => `{${values.join(",")}}`;
    const numbers = ids.map((id) => last.get(id) as number);
    await this.sql`
      UPDATE world SET randomnumber = u.r
      FROM unnest(${array(ids)}::int[], ${array(numbers)}::int[]) AS u(id, r)
      WHERE world.id = u.id`;
    return rows;
  }

  async fortunes(): Promise<Fortune[]> {
    return [...(await this.sql<Fortune>`SELECT id, message FROM fortune`)];
  }
}

/** A store over the pool `sql`. */
export function pgStoreOver(sql: Sql): WorldStore {
  return new PgStore(sql);
}

/** A store over the database at `url`, with the runtime's client and the contract's pool size. */
export function pgStore(url: string): WorldStore {
  return pgStoreOver(connectPostgres(url));
}
