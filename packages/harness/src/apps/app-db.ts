// Each app process's own database: a seeded SQLite file in a folder of its own, made before the
// process starts (BENCH_DB) and removed when it stops. No process inherits another's rows, the
// verifier's or the load's writes. A folder's name carries the harness's pid, so a run killed
// with SIGKILL, which can clean up nothing, has its folders removed by the next run: these and
// a PostgreSQL server's (postgres-server.ts).

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  clientName,
  createWorldDb,
  DB_ENV,
  driverName,
  type Scenario,
  SQLITE_SETTINGS,
} from "@bench/contract";
import type { DbEngine } from "../common/engine.ts";
import type { Pinning } from "../common/plan.ts";
import type { DatabaseRecord } from "../results/schema.ts";
import { tetherFolder } from "../runtimes/lifeline.ts";
import { type PostgresRecord, type PostgresServer, startPostgres } from "./postgres-server.ts";

const PREFIX = "bench-db-";

export interface AppDatabase {
  /** Where the verifier finds it: the database file (BENCH_DB), or a PostgreSQL URL (BENCH_PG). */
  readonly path: string;
  /** What the app process is given to find it. */
  readonly env: Readonly<Record<string, string>>;
  /** Removes it; safe to call more than once. */
  remove(): void;
}

/** A fresh database, seeded from the contract, in a new folder under `parent`. */
export function makeAppDatabase(parent = tmpdir()): AppDatabase {
  const dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  const release = tetherFolder(dir);
  const remove = () => {
    rmSync(dir, { recursive: true, force: true });
    release();
  };
  const path = join(dir, "world.db");
  try {
    createWorldDb(path);
  } catch (error) {
    remove();
    throw error;
  }
  return { path, env: { [DB_ENV]: path }, remove };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the database folders (bench-db-, bench-pg-) of harnesses no longer running; returns
 * how many.
 */
export function sweepOrphanDatabases(parent = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(parent)) {
    const pid = Number(/^bench-(?:db|pg)-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** The database server could not be had: the run cannot start (exit 1, one line). */
export class DatabaseError extends Error {}

/**
 * Before a run with database scenarios: the sweep, then, with --db postgres, the server, pinned
 * to the server's CPUs as SQLite is (it runs inside the app). Undefined: SQLite, or no database.
 */
export async function databaseServer(
  options: {
    readonly scenarios: readonly Scenario[];
    readonly db: DbEngine;
    readonly workers: number;
  },
  pinning: Pinning,
): Promise<PostgresServer | undefined> {
  if (!options.scenarios.some((s) => s.database)) return undefined;
  sweepOrphanDatabases();
  if (options.db !== "postgres") return undefined;
  try {
    const cpus = pinning.enabled && pinning.serverCpus ? { cpus: pinning.serverCpus } : {};
    return await startPostgres({ ...cpus, workers: options.workers });
  } catch (error) {
    throw new DatabaseError(`--db postgres: ${error instanceof Error ? error.message : error}`);
  }
}

const RUNTIMES = ["bun", "node", "deno"] as const;

/** What the manifest says of the database: the engine, each runtime's client, the settings. */
export function databaseRecord(postgres?: PostgresRecord): DatabaseRecord {
  const clients = (name: (r: (typeof RUNTIMES)[number]) => string) =>
    Object.fromEntries(RUNTIMES.map((r) => [r, name(r)]));
  if (postgres) return { ...postgres, clients: clients(clientName) };
  return {
    engine: "sqlite",
    clients: clients(driverName),
    settings: { ...SQLITE_SETTINGS },
  };
}
