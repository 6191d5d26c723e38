// Which store a process serves from, chosen from its environment: PostgreSQL when the harness
// names one (`--db postgres`, BENCH_PG), else the SQLite file it names (BENCH_DB), else a SQLite
// database seeded in memory. Kept apart from both stores, which know nothing of each other.

import { DB_ENV, PG_ENV } from "../spec/db.ts";
import { pgStore } from "./pg-store.ts";
import { openWorldDb, storeOver } from "./sqlite-store.ts";
import type { WorldStore } from "./world-store.ts";

let shared: WorldStore | undefined;

/**
 * The store `env` names: PostgreSQL when BENCH_PG names a database, else the SQLite file
 * BENCH_DB names (or a database seeded in memory without it).
 */
export function storeFor(env: Readonly<Record<string, string | undefined>>): WorldStore {
  const postgres = env[PG_ENV];
  return postgres ? pgStore(postgres) : storeOver(openWorldDb(env[DB_ENV]));
}

/** The process's store (storeFor its environment), opened on first use. */
export function worldStore(): WorldStore {
  shared ??= storeFor(process.env);
  return shared;
}
