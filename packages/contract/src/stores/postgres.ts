// Each runtime's idiomatic PostgreSQL client, behind the few calls the database scenarios make:
// Bun.sql on Bun, postgres.js on Node and on Deno. Both take tagged templates (a prepared
// statement per distinct query), pool connections and pipeline concurrent queries, so one small
// interface fits both. postgres.js is required only when a client is made: importing the
// contract loads no driver.

import { createRequire } from "node:module";
import { PG_POOL } from "../spec/db.ts";
import type { Runtime } from "../spec/registry.ts";
import { detectRuntime } from "../spec/runtime.ts";

export interface Sql {
  /** A parameterised query (values travel as parameters, never spliced into the text). */
  <T = Record<string, unknown>>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T[]>;
  /** A whole script, no parameters (seeding, DDL, the verifier's rewrites). */
  unsafe<T = Record<string, unknown>>(query: string): Promise<T[]>;
  /** Closes the pool. */
  end(): Promise<void>;
}

const CLIENTS = { bun: "Bun.sql", node: "postgres.js", deno: "postgres.js" } as const;

/** The client of `runtime` (default: the one running this code). */
export function clientName(runtime: Runtime = detectRuntime().name): (typeof CLIENTS)[Runtime] {
  return CLIENTS[runtime];
}

type PostgresJs = (url: string, options: Record<string, unknown>) => Sql;
interface BunGlobal {
  SQL: new (options: Record<string, unknown>) => Sql;
}

/** A pool of at most `max` connections to `url` (postgres://user@host:port/database). */
export function connectPostgres(url: string, max = PG_POOL): Sql {
  if (clientName() === "Bun.sql") {
    const { SQL } = (globalThis as unknown as { Bun: BunGlobal }).Bun;
    return new SQL({ url, max });
  }
  const postgres = createRequire(import.meta.url)("postgres") as PostgresJs;
  // onnotice: postgres.js logs the server's notices to the console by default.
  return postgres(url, { max, onnotice: () => {} });
}
