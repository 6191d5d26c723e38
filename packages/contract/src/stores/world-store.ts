// What every app serves the four database routes from: one interface over either engine, so the
// framework code around it is written once. The harness hands every app process its own seeded
// copy of a SQLite database (BENCH_DB, sqlite-store.ts), whose answers come at once, each
// framework's fastest path; with `--db postgres` a PostgreSQL database (BENCH_PG, pg-store.ts),
// whose answers are promises. selector.ts picks one from the process's environment.

import type { Fortune, World } from "../spec/db.ts";

/** A value now (SQLite) or later (PostgreSQL). */
export type Maybe<T> = T | Promise<T>;

/**
 * `f` of `value`: at once when it is there, when it resolves when it is a promise. (Not named
 * `then`: a module exporting `then` is a thenable, and `await import()` of it calls it.)
 */
export function withValue<T, R>(value: Maybe<T>, f: (value: T) => R): Maybe<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

export interface WorldStore {
  /** One random row. */
  world(): Maybe<World>;
  /** `count` random rows, each its own query. */
  worlds(count: number): Maybe<World[]>;
  /** `count` random rows, each given a new random number and written back. */
  updated(count: number): Maybe<World[]>;
  /** Every row of Fortune. */
  fortunes(): Maybe<Fortune[]>;
}
