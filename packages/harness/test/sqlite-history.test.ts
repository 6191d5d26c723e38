// The history in a SQLite file (history/sqlite-history.ts and store.ts): what it keeps, what
// it refuses without touching it, and two writers at once. Files in a temporary folder; the
// concurrent writers are short helper processes of this test.

import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkHistoryWritable, openHistory } from "../src/history/open.ts";
import {
  defaultHistory,
  HISTORY_VERSION,
  HistoryError,
  type HistoryStore,
  isPostgresUrl,
  metaProblem,
  redacted,
  type SessionRecord,
} from "../src/history/store.ts";
import { session } from "./support/history-fixtures.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();
const dir = () => temp("bench-history-");

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

async function refused(path: string, message: RegExp) {
  const before = sha(path);
  await expect(openHistory(path, true)).rejects.toThrow(message);
  await expect(openHistory(path, false)).rejects.toThrow(message);
  expect(() => checkHistoryWritable(path)).toThrow(message);
  expect(sha(path)).toBe(before);
  expect(existsSync(`${path}-wal`)).toBe(false);
}

describe("a history file", () => {
  test("made on the first write; a session kept whole, once; read back oldest first", async () => {
    const path = join(dir(), "sub", "history.sqlite");
    expect(await openHistory(path, false)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const store = (await openHistory(path, true)) as HistoryStore;
    expect(await store.add(session("b", "2026-11-28T02:00:00.000Z"))).toBe(true);
    expect(await store.add(session("a", "2026-11-28T01:00:00.000Z"))).toBe(true);
    expect(await store.add(session("a", "2026-11-28T01:00:00.000Z", 5))).toBe(false);
    const back = await store.sessions();
    expect(back.map((s) => s.run)).toEqual(["a", "b"]);
    expect(back[0]).toEqual(session("a", "2026-11-28T01:00:00.000Z"));
    expect(store.where).toBe(path);
    await store.close();
    const reader = (await openHistory(path, false)) as HistoryStore;
    expect((await reader.sessions()).length).toBe(2);
    await reader.close();
  });

  test("a session whose estimates cannot all be written leaves nothing behind", async () => {
    const path = join(dir(), "history.sqlite");
    const store = (await openHistory(path, true)) as HistoryStore;
    const broken = session("x", "2026-11-28T01:00:00.000Z");
    const twice = {
      ...broken,
      estimates: [broken.estimates[0], broken.estimates[0]],
    } as SessionRecord;
    await expect(store.add(twice)).rejects.toThrow();
    expect(await store.sessions()).toEqual([]);
    await store.close();
  });

  test("not a history, or one this harness cannot read: refused, the file untouched", async () => {
    const d = dir();
    const text = join(d, "text.sqlite");
    writeFileSync(text, "results, not a database\n".repeat(100));
    await refused(
      text,
      /not a runtime-bench history \(file is not a database\); nothing was written/,
    );
    const empty = join(d, "empty.sqlite");
    writeFileSync(empty, "");
    await refused(empty, /not a runtime-bench history \(no such table: history_meta\)/);
    const other = join(d, "other.sqlite");
    const db = new Database(other, { create: true });
    db.exec(
      "CREATE TABLE history_meta (key TEXT, value TEXT); INSERT INTO history_meta VALUES ('format', 'something-else')",
    );
    db.close();
    await refused(other, /not a runtime-bench history \(its format is "something-else"\)/);
    const newer = join(d, "newer.sqlite");
    const made = (await openHistory(newer, true)) as HistoryStore;
    await made.close();
    const raw = new Database(newer);
    raw.exec(`UPDATE history_meta SET value = '${HISTORY_VERSION + 1}' WHERE key = 'version'`);
    raw.exec("PRAGMA journal_mode = DELETE");
    raw.close();
    await refused(
      newer,
      /written by a newer harness \(history version 2; this one reads up to 1\)/,
    );
  });

  test("a place that cannot hold a file is refused before anything is measured", () => {
    const d = dir();
    const file = join(d, "a-file");
    writeFileSync(file, "x");
    expect(() => checkHistoryWritable(join(file, "history.sqlite"))).toThrow(
      /cannot write the history at .*a-file\/history\.sqlite/,
    );
    expect(() => checkHistoryWritable(join(d, "new", "history.sqlite"))).not.toThrow();
  });

  test("two writers at once: both sessions recorded", async () => {
    const path = join(dir(), "history.sqlite");
    const writer = (name: string) =>
      new Promise<number | null>((resolve) => {
        const script = `
          import { openHistory } from ${JSON.stringify(join(import.meta.dir, "..", "src", "history", "open.ts"))};
          import { session } from ${JSON.stringify(join(import.meta.dir, "support", "history-fixtures.ts"))};
          const store = await openHistory(${JSON.stringify(path)}, true);
          for (let i = 0; i < 25; i++) await store.add(session("${name}-" + i, new Date(Date.UTC(2026, 10, 28, 0, i)).toISOString()));
          await store.close();`;
        const child = spawn(process.execPath, ["-e", script], { stdio: "inherit" });
        child.on("close", resolve);
      });
    expect(await Promise.all([writer("p"), writer("q")])).toEqual([0, 0]);
    const store = (await openHistory(path, false)) as HistoryStore;
    expect((await store.sessions()).length).toBe(50);
    await store.close();
  });
});

describe("the store's helpers", () => {
  test("meta rows: a history of this version or older; anything else said plainly", () => {
    const meta = (format?: string, version?: string) =>
      new Map(
        [
          ["format", format],
          ["version", version],
        ].filter(([, v]) => v !== undefined) as [string, string][],
      );
    expect(metaProblem(meta("runtime-bench-history", "1"))).toBeUndefined();
    expect(metaProblem(meta(undefined, "1"))).toBe(
      "not a runtime-bench history (its format is missing)",
    );
    expect(metaProblem(meta("runtime-bench-history", "x"))).toBe(
      'its history version "x" is not one this harness knows',
    );
    expect(metaProblem(meta("runtime-bench-history", "0"))).toContain("not one this harness knows");
  });

  test("targets: a postgres URL or a file; a password never shown; the default", () => {
    expect(isPostgresUrl("postgres://u@h/db")).toBe(true);
    expect(isPostgresUrl("postgresql://u@h/db")).toBe(true);
    expect(isPostgresUrl("/tmp/postgres.sqlite")).toBe(false);
    expect(redacted("postgres://me:secret@host:5432/db")).toBe("postgres://me:***@host:5432/db");
    expect(redacted("postgres://me@host/db")).toBe("postgres://me@host/db");
    expect(defaultHistory({ BENCH_HISTORY: "/x/h.sqlite" })).toBe("/x/h.sqlite");
    expect(defaultHistory({})).toMatch(/results\/history\.sqlite$/);
  });

  test("HistoryError is what a caller turns into one line and exit 2", () => {
    expect(new HistoryError("x")).toBeInstanceOf(Error);
  });
});
