// Each app process's database folder: made seeded, removed once, and swept up after a harness
// that was killed before it could remove its own.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openSqlite, WORLD_ROWS } from "@bench/contract";
import { makeAppDatabase, sweepOrphanDatabases } from "../src/apps/app-db.ts";

const parent = mkdtempSync(join(tmpdir(), "app-db-test-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** A pid no process has now: one that ran and was reaped. */
function deadPid(): number {
  return spawnSync("sh", ["-c", "echo $$"], {
    encoding: "utf8",
  }).stdout.trim() as unknown as number;
}

describe("an app's database", () => {
  test("is a seeded file in a folder named after the harness, gone after remove()", () => {
    const db = makeAppDatabase(parent);
    expect(dirname(db.path).startsWith(join(parent, `bench-db-${process.pid}-`))).toBe(true);
    const handle = openSqlite(db.path);
    expect(handle.prepare("SELECT count(*) AS n FROM World").get()).toEqual({ n: WORLD_ROWS });
    handle.close();
    db.remove();
    expect(existsSync(dirname(db.path))).toBe(false);
    db.remove();
  });

  test("the folders of dead harnesses are swept, live ones and other folders kept", () => {
    const dead = deadPid();
    const mine = makeAppDatabase(parent);
    const orphan = join(parent, `bench-db-${dead}-abc`);
    const living = join(parent, `bench-db-${process.ppid}-def`);
    const other = join(parent, "bench-db-notapid-x");
    for (const dir of [orphan, living, other]) mkdirSync(dir);
    expect(sweepOrphanDatabases(parent)).toBe(1);
    expect(readdirSync(parent).sort()).toEqual(
      [dirname(mine.path), living, other].map((d) => d.slice(parent.length + 1)).sort(),
    );
    expect(sweepOrphanDatabases(parent)).toBe(0);
    mine.remove();
  });

  test("a parent folder that does not exist is an error, and nothing is made", () => {
    const unwritable = join(parent, "missing", "deeper");
    expect(() => makeAppDatabase(unwritable)).toThrow();
    expect(existsSync(unwritable)).toBe(false);
  });
});
