// Each app process's own database: a seeded SQLite file in a folder of its own, made before the
// process starts (BENCH_DB) and removed when it stops. No process inherits another's rows, the
// verifier's or the load's writes. A folder's name carries the harness's pid, so a run killed
// with SIGKILL, which can clean up nothing, has its folders removed by the next run.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorldDb } from "@bench/contract";

const PREFIX = "bench-db-";

export interface AppDatabase {
  /** The database file (BENCH_DB). */
  readonly path: string;
  /** Removes the file and its folder; safe to call more than once. */
  remove(): void;
}

/** A fresh database, seeded from the contract, in a new folder under `parent`. */
export function makeAppDatabase(parent = tmpdir()): AppDatabase {
  const dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  const path = join(dir, "world.db");
  try {
    createWorldDb(path);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
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

/** Removes the database folders of harnesses no longer running; returns how many. */
export function sweepOrphanDatabases(parent = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(parent)) {
    const pid = Number(/^bench-db-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
