// Each runtime's own SQLite, behind the few calls the database scenarios make: bun:sqlite on Bun,
// node:sqlite on Node and on Deno (which implements node:sqlite). Both are synchronous and
// prepare statements the same way, so one small interface fits both; the module is required
// only when a database is opened, so importing the contract loads no driver.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { Runtime } from "../spec/registry.ts";
import { detectRuntime } from "../spec/runtime.ts";

export interface SqlStatement {
  get(...params: number[]): unknown;
  all(...params: number[]): unknown[];
  run(...params: (number | string)[]): unknown;
}

export interface SqlDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

/** The SQLite each runtime brings: Deno implements Node's. */
const DRIVERS = { bun: "bun:sqlite", node: "node:sqlite", deno: "node:sqlite" } as const;

/** The driver module of `runtime` (default: the one running this code). */
export function driverName(runtime: Runtime = detectRuntime().name): (typeof DRIVERS)[Runtime] {
  return DRIVERS[runtime];
}

type Opener = new (path: string) => SqlDatabase;

function opener(): Opener {
  const require = createRequire(import.meta.url);
  const name = driverName();
  const module = require(name) as { Database?: Opener; DatabaseSync?: Opener };
  return (name === "bun:sqlite" ? module.Database : module.DatabaseSync) as Opener;
}

/**
 * Opens `path` (":memory:" for a private in-memory database) with the runtime's driver. A file
 * must exist: a mistyped path would otherwise open a new, empty database.
 */
export function openSqlite(path: string): SqlDatabase {
  if (path !== ":memory:" && !existsSync(path)) {
    throw new Error(`no database file at ${path}`);
  }
  const Database = opener();
  return new Database(path);
}
