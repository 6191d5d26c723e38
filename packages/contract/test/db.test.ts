// The database contract: its rules (db.ts), the stores every app serves from (stores/) and
// the verifier (db-checks.ts), which must pass a conforming app and fail stand-ins that each
// break one rule: a cache, a fixed row, no clamping, updates that are not written or not new, a
// fortunes page from a cache, unescaped, without the added fortune or not declared as HTML.
// In-process and on SQLite files of a temporary folder: fast enough for mutation testing.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkDatabase,
  drawRewrite,
  type Fetcher,
  QUERIES_CASES,
  sqliteProbe,
  type Violation,
  worldProblems,
} from "../src/check.ts";
import {
  ADDED_FORTUNE,
  createWorldDb,
  DB_ENV,
  DB_ROUTES,
  driverName,
  escapeHtml,
  FORTUNES,
  FORTUNES_CONTENT_TYPE,
  type Fortune,
  fortunesHtml,
  fortunesToServe,
  openSqlite,
  openWorldDb,
  PG_ENV,
  parseQueries,
  QUERIES_MAX,
  randomWorldId,
  SCENARIO_QUERIES,
  SCENARIOS,
  type SqlDatabase,
  type SyncWorldStore,
  seededNumber,
  seedSql,
  storeFor,
  storeOver,
  WORLD_ROWS,
  type World,
  type WorldStore,
  withValue,
  worldStore,
} from "../src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "contract-db-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => {
  const path = join(dir, `w${++files}.db`);
  createWorldDb(path);
  return path;
};

describe("the rules", () => {
  test("?queries= is clamped to 1..500; anything not an integer is 1", () => {
    for (const [raw, count] of QUERIES_CASES) expect(parseQueries(raw)).toBe(count);
    expect(parseQueries(null)).toBe(1);
    expect(parseQueries("1")).toBe(1);
    expect(parseQueries("500")).toBe(500);
    expect(parseQueries("499")).toBe(499);
    expect(parseQueries("+2")).toBe(1);
    expect(parseQueries(" 3")).toBe(1);
    expect(parseQueries("3 ")).toBe(1);
    expect(parseQueries("-0")).toBe(1);
    expect(parseQueries("2")).toBe(2);
  });

  test("the hostile values sent are the ones named, and the variables are BENCH_DB and BENCH_PG", () => {
    expect(QUERIES_CASES.map(([raw, n]) => [raw?.slice(0, 3), raw?.length, n])).toEqual([
      [undefined, undefined, 1],
      ["", 0, 1],
      ["0", 1, 1],
      ["-5", 2, 1],
      ["abc", 3, 1],
      ["1.5", 3, 1],
      ["7", 1, 7],
      ["501", 3, QUERIES_MAX],
      ["100", 10, QUERIES_MAX],
      ["xxx", 10_240, 1],
      ["999", 10_240, QUERIES_MAX],
    ]);
    // The names people type (`BENCH_DB=… bun run start`, docs/running.md): every reader takes
    // them from these constants, so only this pins them.
    expect(DB_ENV).toBe("BENCH_DB");
    expect(PG_ENV).toBe("BENCH_PG");
    expect(driverName("bun")).toBe("bun:sqlite");
    expect(driverName("node")).toBe("node:sqlite");
    expect(driverName("deno")).toBe("node:sqlite");
  });

  test("the seed is fixed by the contract and in range", () => {
    expect(seededNumber(1)).toBe(((7919 + 4099) % WORLD_ROWS) + 1);
    const numbers = Array.from({ length: WORLD_ROWS }, (_, i) => seededNumber(i + 1));
    expect(Math.min(...numbers)).toBe(1);
    expect(Math.max(...numbers)).toBe(WORLD_ROWS);
  });

  test("a random id is in 1..10000 and takes many values", () => {
    const ids = Array.from({ length: 2000 }, randomWorldId);
    expect(ids.every((id) => Number.isInteger(id) && id >= 1 && id <= WORLD_ROWS)).toBe(true);
    expect(new Set(ids).size).toBeGreaterThan(1500);
  });

  test("HTML escaping covers & < > \" '", () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;",
    );
    expect(escapeHtml("フレームワーク")).toBe("フレームワーク");
  });

  test("the page: the added fortune, sorted by message, every value escaped", () => {
    const served = fortunesToServe(FORTUNES);
    expect(served).toHaveLength(FORTUNES.length + 1);
    expect(served).toContainEqual(ADDED_FORTUNE);
    const messages = served.map((f) => f.message);
    expect(messages).toEqual([...messages].sort());
    expect(served[0]?.id).toBe(11); // "<script>…" sorts first
    expect(served.at(-1)?.id).toBe(12); // Japanese after every ASCII message
    const page = fortunesHtml(FORTUNES);
    expect(page.startsWith('<!DOCTYPE html><html><head><meta charset="utf-8">')).toBe(true);
    expect(page).toContain("<tr><th>id</th><th>message</th></tr><tr><td>11</td><td>&lt;script&gt;");
    expect(page).toContain("<tr><td>0</td><td>Additional fortune added at request time.</td></tr>");
    expect(page).toContain(
      "<tr><td>12</td><td>フレームワークのベンチマーク</td></tr></table></body></html>",
    );
    expect(page).not.toContain("<script>");
    expect(fortunesHtml([{ id: 7, message: "a&b" }])).toBe(
      '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Fortunes</title></head><body>' +
        "<table><tr><th>id</th><th>message</th></tr><tr><td>0</td><td>Additional fortune added at " +
        "request time.</td></tr><tr><td>7</td><td>a&amp;b</td></tr></table></body></html>",
    );
    expect(seedSql().split("\n")).toHaveLength(4);
  });

  test("equal messages keep their order; the sort is by code unit, not locale", () => {
    const rows = (...pairs: [number, string][]) => pairs.map(([id, message]) => ({ id, message }));
    const ids = (fortunes: Fortune[]) => fortunesToServe(fortunes).map((f) => f.id);
    expect(ids(rows([2, "b"], [1, "b"], [3, "a"]))).toEqual([0, 3, 2, 1]);
    expect(ids(rows([5, "b"], [4, "b"], [6, "b"], [7, "B"]))).toEqual([0, 7, 5, 4, 6]);
    expect(ids(rows([1, "é"], [2, "z"], [3, "Z"]))).toEqual([0, 3, 2, 1]);
  });

  test("the four database scenarios ask for the database and for 20 rows", () => {
    const db = SCENARIOS.filter((s) => "database" in s && s.database);
    expect(db.map((s) => s.name)).toEqual(["db", "queries", "fortunes", "updates"]);
    expect(db.map((s) => s.path)).toEqual([
      DB_ROUTES.db,
      `${DB_ROUTES.queries}?queries=${SCENARIO_QUERIES}`,
      DB_ROUTES.fortunes,
      `${DB_ROUTES.updates}?queries=${SCENARIO_QUERIES}`,
    ]);
  });
});

describe("the store", () => {
  test("a seeded file holds the contract's rows; a missing file is refused", () => {
    const path = freshFile();
    // Closed once seeded: the last connection's close checkpoints the WAL and removes it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const db = openSqlite(path);
    expect(db.prepare("SELECT count(*) AS n FROM World").get()).toEqual({ n: WORLD_ROWS });
    expect(db.prepare("SELECT randomNumber FROM World WHERE id = ?").get(77)).toEqual({
      randomNumber: seededNumber(77),
    });
    expect(db.prepare("SELECT id, message FROM Fortune").all()).toEqual([...FORTUNES]);
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    db.close();
    expect(() => openSqlite(join(dir, "nothing.db"))).toThrow("no database file at");
    expect(existsSync(join(dir, "nothing.db"))).toBe(false);
    expect(() => createWorldDb(join(dir, `w${files}.db`))).toThrow("EEXIST");
    expect(
      openWorldDb(join(dir, `w${files}.db`))
        .prepare("PRAGMA busy_timeout")
        .get(),
    ).toEqual({
      timeout: 5000,
    });
    expect(driverName()).toBe("bun:sqlite");
  });

  test("each rewrite draws a new multiplier and a new offset", () => {
    const probe = openSqlite(freshFile());
    const drawn = Array.from({ length: 12 }, () => rewriteNow(probe));
    const offsets = new Set(drawn.map((f) => f(WORLD_ROWS)));
    const steps = new Set(drawn.map((f) => (f(2) - f(1) + WORLD_ROWS) % WORLD_ROWS));
    expect(offsets.size).toBeGreaterThan(6);
    expect(steps.size).toBeGreaterThan(6);
    const last = drawn.at(-1) as (id: number) => number;
    const read = probe.prepare("SELECT randomNumber FROM World WHERE id = ?");
    for (const id of [1, 2, 5000, WORLD_ROWS])
      expect(read.get(id)).toEqual({ randomNumber: last(id) });
    probe.close();
  });

  test("reads, updates and fortunes come from the table", () => {
    const path = freshFile();
    const store = storeOver(openWorldDb(path));
    const probe = openSqlite(path);
    const numberOf = rewriteNow(probe);
    const row = store.world();
    expect(Object.keys(row)).toEqual(["id", "randomNumber"]);
    expect(row.randomNumber).toBe(numberOf(row.id));
    const rows = store.worlds(50);
    expect(rows).toHaveLength(50);
    for (const r of rows) expect(r.randomNumber).toBe(numberOf(r.id));
    expect(new Set(rows.map((r) => r.id)).size).toBeGreaterThan(40);
    const updated = store.updated(30);
    expect(updated).toHaveLength(30);
    const read = probe.prepare("SELECT randomNumber FROM World WHERE id = ?");
    const last = new Map(updated.map((r) => [r.id, r.randomNumber]));
    for (const [id, n] of last) expect(read.get(id)).toEqual({ randomNumber: n });
    expect(updated.filter((r) => r.randomNumber !== numberOf(r.id)).length).toBeGreaterThan(25);
    probe.prepare("INSERT INTO Fortune (id, message) VALUES (?, ?)").run(99, "new");
    expect(store.fortunes()).toContainEqual({ id: 99, message: "new" });
    expect(store.fortunes()).toHaveLength(FORTUNES.length + 1);
    probe.close();
  });

  test("a failed update is rolled back and the next one works", () => {
    const path = freshFile();
    const db = openWorldDb(path);
    const store = storeOver(db);
    db.exec("CREATE TABLE flag (on_ INTEGER); INSERT INTO flag VALUES (1);");
    db.exec(
      "CREATE TRIGGER fail BEFORE UPDATE ON World WHEN (SELECT on_ FROM flag) = 1 " +
        "BEGIN SELECT RAISE(ABORT, 'refused'); END;",
    );
    expect(() => store.updated(3)).toThrow("refused");
    db.exec("UPDATE flag SET on_ = 0");
    expect(store.updated(3)).toHaveLength(3);
  });

  test("without BENCH_DB the app serves a private seeded database in memory", () => {
    const saved = process.env[DB_ENV];
    delete process.env[DB_ENV];
    try {
      const db = openWorldDb(undefined);
      expect(db.prepare("SELECT count(*) AS n FROM World").get()).toEqual({ n: WORLD_ROWS });
      expect(openWorldDb("").prepare("SELECT count(*) AS n FROM Fortune").get()).toEqual({
        n: FORTUNES.length,
      });
      const shared = worldStore();
      expect(worldStore()).toBe(shared);
      const row = shared.world() as World;
      expect(row.randomNumber).toBe(seededNumber(row.id));
    } finally {
      if (saved !== undefined) process.env[DB_ENV] = saved;
    }
  });

  test("BENCH_PG names PostgreSQL: its answers are promises; else SQLite answers at once", async () => {
    const path = freshFile();
    const sqlite = storeFor({ [DB_ENV]: path });
    const row = sqlite.world();
    expect(row).not.toBeInstanceOf(Promise);
    expect(storeFor({ [PG_ENV]: "", [DB_ENV]: path }).fortunes()).toHaveLength(FORTUNES.length);
    // Nothing listens on port 1: the promise rejects, which is the app's 500, never a crash.
    const postgres = storeFor({ [PG_ENV]: "postgres://bench@127.0.0.1:1/none", [DB_ENV]: path });
    const answer = postgres.world();
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow();
  });

  test("the contract's module is not a thenable: `await import()` gives its exports", async () => {
    const contract = await import("../src/index.ts");
    expect(contract.withValue).toBe(withValue);
    expect("then" in contract).toBe(false);
  });

  test("withValue(): a value at once, a promise's value when it resolves", async () => {
    expect(withValue(2, (n) => n * 3)).toBe(6);
    const later = withValue(Promise.resolve(2), (n) => n * 3);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(6);
    await expect(withValue(Promise.reject(new Error("down")), (n) => n)).rejects.toThrow("down");
  });
});

/** A rewrite of World through the SQLite handle, at once. */
function rewriteNow(db: SqlDatabase): (id: number) => number {
  const rewrite = drawRewrite();
  db.exec(rewrite.sql);
  return rewrite.numberOf;
}

/** A conforming app over `store`, in process; `overrides` replace its routes to break a rule. */
function standIn(store: WorldStore, overrides: Partial<Record<string, Fetcher>> = {}): Fetcher {
  const json = (value: unknown) => Response.json(value);
  const count = (request: Request) =>
    parseQueries(new URL(request.url).searchParams.get("queries"));
  const routes: Record<string, Fetcher> = {
    [DB_ROUTES.db]: async () => json(await store.world()),
    [DB_ROUTES.queries]: async (r) => json(await store.worlds(count(r))),
    [DB_ROUTES.fortunes]: async () =>
      new Response(fortunesHtml(await store.fortunes()), {
        headers: { "content-type": FORTUNES_CONTENT_TYPE },
      }),
    [DB_ROUTES.updates]: async (r) => json(await store.updated(count(r))),
    ...overrides,
  };
  return (request) => {
    const route = routes[new URL(request.url).pathname];
    return route ? route(request) : new Response("no", { status: 404 });
  };
}

describe("checkDatabase", () => {
  let path: string;
  let store: SyncWorldStore;
  let probe: SqlDatabase;
  beforeEach(() => {
    path = freshFile();
    store = storeOver(openWorldDb(path));
    probe?.close();
    probe = openSqlite(path);
  });
  const check = (fetcher: Fetcher) =>
    checkDatabase(fetcher, "http://localhost", sqliteProbe(probe));
  const checks = (violations: Violation[]) => [...new Set(violations.map((v) => v.check))];

  test("a conforming app passes, and the fortune the verifier added is gone after", async () => {
    expect(await check(standIn(store))).toEqual([]);
    expect(probe.prepare("SELECT count(*) AS n FROM Fortune").get()).toEqual({
      n: FORTUNES.length,
    });
  });

  test("rows cached at start fail every read", async () => {
    const cached = new Map<number, World>();
    const all = openSqlite(path).prepare("SELECT id, randomNumber FROM World").all() as World[];
    for (const w of all) cached.set(w.id, { ...w });
    const pick = () => cached.get(randomWorldId()) as World;
    const violations = await check(
      standIn(store, {
        [DB_ROUTES.db]: () => Response.json(pick()),
        [DB_ROUTES.queries]: (r) =>
          Response.json(
            Array.from({ length: parseQueries(new URL(r.url).searchParams.get("queries")) }, pick),
          ),
      }),
    );
    expect(checks(violations).slice(0, 4)).toEqual([
      "GET /db (pass 1)",
      `GET /queries?queries=${SCENARIO_QUERIES} (pass 1)`,
      "GET /db (pass 2)",
      `GET /queries?queries=${SCENARIO_QUERIES} (pass 2)`,
    ]);
    expect(
      checks(violations)
        .slice(4)
        .every((c) => c.startsWith("GET /queries with")),
    ).toBe(true);
    expect(violations[0]?.detail).toMatch(/^row \d+: randomNumber \d+, the table holds \d+$/);
  });

  test("a fixed row, wrong keys, a non-object and a number out of range are named", async () => {
    const fixed = await check(
      standIn(store, { [DB_ROUTES.db]: () => Response.json(fixedRow(probe)) }),
    );
    expect(fixed).toContainEqual({
      check: "GET /db",
      detail: "8 answers gave one row: not a random id",
    });
    expect(worldProblems({ randomNumber: 1, id: 1 })).toEqual([
      "keys [randomNumber,id], expected [id,randomNumber] in that order",
    ]);
    expect(worldProblems([1, 2])).toEqual(["[1,2] is not a World object"]);
    expect(worldProblems(null)).toEqual(["null is not a World object"]);
    expect(worldProblems(5)).toEqual(["5 is not a World object"]);
    expect(worldProblems({ id: 0, randomNumber: 1 })).toEqual(["id 0 is not an id of World"]);
    expect(worldProblems({ id: WORLD_ROWS + 1, randomNumber: 1 })).toHaveLength(1);
    expect(worldProblems({ id: 1.5, randomNumber: 1 })).toHaveLength(1);
    expect(worldProblems({ id: WORLD_ROWS, randomNumber: WORLD_ROWS })).toEqual([]);
    // The lower bounds are inclusive too (random rows reach them only now and then).
    expect(worldProblems({ id: 1, randomNumber: 1 })).toEqual([]);
    expect(worldProblems({ id: 1, randomNumber: 0 })).toEqual([
      "row 1: randomNumber 0 out of range",
    ]);
    expect(worldProblems({ id: 1, randomNumber: WORLD_ROWS + 1 })).toHaveLength(1);
    expect(worldProblems({ id: 1, randomNumber: "5" })).toHaveLength(1);
    expect(worldProblems({ id: 1, randomNumber: 5 }, () => 6)).toEqual([
      "row 1: randomNumber 5, the table holds 6",
    ]);
  });

  test("no clamping, and a wrong count, are named with the value sent", async () => {
    const unclamped = (r: Request) => {
      const raw = new URL(r.url).searchParams.get("queries");
      const n = Number(raw);
      return Response.json(store.worlds(Number.isInteger(n) && n > 0 ? Math.min(n, 600) : 1));
    };
    const violations = await check(standIn(store, { [DB_ROUTES.queries]: unclamped }));
    expect(violations).toContainEqual({
      check: `GET /queries with queries="${QUERIES_MAX + 1}"`,
      detail: `${QUERIES_MAX + 1} rows, expected ${QUERIES_MAX}`,
    });
    expect(violations).toContainEqual({
      check: 'GET /queries with queries="1000000000"',
      detail: `600 rows, expected ${QUERIES_MAX}`,
    });
    expect(checks(violations).every((c) => c.startsWith("GET /queries with"))).toBe(true);
    const object = await check(standIn(store, { [DB_ROUTES.updates]: () => Response.json({}) }));
    expect(object).toContainEqual({
      check: "GET /updates with queries=(none)",
      detail: '"{}" is not an array',
    });
  });

  test("updates not written, and updates that change nothing, fail", async () => {
    const unsaved = await check(
      standIn(store, {
        [DB_ROUTES.updates]: (r) =>
          Response.json(
            store
              .worlds(parseQueries(new URL(r.url).searchParams.get("queries")))
              .map((w) => ({ id: w.id, randomNumber: (w.randomNumber % WORLD_ROWS) + 1 })),
          ),
      }),
    );
    const updates = unsaved.filter((v) => v.check === `GET /updates?queries=${SCENARIO_QUERIES}`);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.detail).toMatch(
      /^(1[5-9]|20) rows not written: row \d+ answered \d+, the table holds \d+$/,
    );
    const unchanged = await check(
      standIn(store, {
        [DB_ROUTES.updates]: (r) =>
          Response.json(store.worlds(parseQueries(new URL(r.url).searchParams.get("queries")))),
      }),
    );
    expect(unchanged).toContainEqual({
      check: `GET /updates?queries=${SCENARIO_QUERIES}`,
      detail: `${SCENARIO_QUERIES} of ${SCENARIO_QUERIES} rows kept their number: none was updated`,
    });
  });

  test("a cached, unescaped, incomplete or mislabelled page fails, byte for byte", async () => {
    const page = fortunesHtml(store.fortunes());
    const fresh = () => fortunesHtml(store.fortunes());
    const html =
      (body: () => string, type = FORTUNES_CONTENT_TYPE) =>
      () =>
        new Response(body(), { headers: { "content-type": type } });
    const added = "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>";
    const cases: [Fetcher, RegExp][] = [
      [html(() => page), /^page differs from the contract's at character \d+/],
      [html(() => fresh().replace("&lt;script&gt;", "<script>")), /^page differs/],
      [html(() => fresh().replace(added, "")), /^page differs/],
      [() => new Response(fresh()), /^content-type "", expected HTML in UTF-8$/],
      [html(fresh, "text/html"), /^content-type "text\/html", expected HTML in UTF-8$/],
      [
        () =>
          new Response(fresh(), {
            status: 201,
            headers: { "content-type": "TEXT/HTML; Charset=UTF-8" },
          }),
        /^status 201, expected 200$/,
      ],
    ];
    for (const [route, detail] of cases) {
      const violations = await check(standIn(store, { [DB_ROUTES.fortunes]: route }));
      expect(violations).toHaveLength(1);
      expect(violations[0]?.check).toBe("GET /fortunes");
      expect(violations[0]?.detail).toMatch(detail);
    }
    const cut = html(() => `${fresh().slice(0, 30)}X`);
    const at = await check(standIn(store, { [DB_ROUTES.fortunes]: cut }));
    const page30 = fresh();
    expect(at[0]?.detail).toStartWith(
      `page differs from the contract's at character 30: ${JSON.stringify(`${page30.slice(10, 30)}X`)}, ` +
        `expected ${JSON.stringify(page30.slice(10, 110))}… (`,
    );
  });

  test("an error status, a body that is not JSON and a crash are violations, not exceptions", async () => {
    const violations = await check(
      standIn(store, {
        [DB_ROUTES.db]: () => new Response("oops", { status: 500 }),
        [DB_ROUTES.fortunes]: () => {
          throw new Error("boom");
        },
      }),
    );
    expect(violations).toContainEqual({
      check: "GET /db (pass 1)",
      detail: "status 500, expected 200",
    });
    expect(violations).toContainEqual({
      check: "GET /db (pass 1)",
      detail: 'content-type "", expected JSON',
    });
    expect(violations).toContainEqual({
      check: "GET /db (pass 1)",
      detail: 'body is not JSON: "oops"',
    });
    expect(violations).toContainEqual({ check: "database: checkFortunes", detail: "failed: boom" });
    expect(violations.filter((v) => v.detail.includes("World object"))).toEqual([]);
  });
});

describe("checkDatabase, request by request", () => {
  let store: SyncWorldStore;
  let probe: SqlDatabase;
  beforeEach(() => {
    const path = freshFile();
    store = storeOver(openWorldDb(path));
    probe = openSqlite(path);
  });
  const check = (fetcher: Fetcher) =>
    checkDatabase(fetcher, "http://localhost", sqliteProbe(probe));
  const count = (r: Request) => parseQueries(new URL(r.url).searchParams.get("queries"));
  test("what is sent: 16 single rows, every hostile value once, the updates' subset", async () => {
    const sent: string[] = [];
    const recording = standIn(store);
    expect(
      await check((r) => {
        sent.push(r.url.slice("http://localhost".length).slice(0, 40));
        return recording(r);
      }),
    ).toEqual([]);
    expect(sent.filter((u) => u === DB_ROUTES.db)).toHaveLength(16);
    const queries = sent.filter((u) => u.startsWith(DB_ROUTES.queries));
    expect(queries).toEqual([
      "/queries?queries=20",
      "/queries?queries=20",
      ...QUERIES_CASES.map(([raw]) =>
        (raw === undefined ? "/queries" : `/queries?queries=${raw}`).slice(0, 40),
      ),
    ]);
    const updates = sent.filter((u) => u.startsWith(DB_ROUTES.updates));
    expect(updates).toEqual([
      "/updates",
      "/updates?queries=",
      "/updates?queries=0",
      "/updates?queries=-5",
      "/updates?queries=abc",
      "/updates?queries=1.5",
      "/updates?queries=7",
      "/updates?queries=1000000000",
      `/updates?queries=${"x".repeat(23)}`,
      "/updates?queries=20",
    ]);
    expect(sent.filter((u) => u === DB_ROUTES.fortunes)).toHaveLength(1);
  });

  test("two rows taking turns are random enough; the answer's media type may have spaces", async () => {
    let turn = 0;
    const two = () => {
      const row = probe
        .prepare("SELECT id, randomNumber FROM World WHERE id = ?")
        .get(1 + (turn++ % 2));
      return new Response(JSON.stringify(row), {
        headers: { "content-type": " Application/JSON ; charset=utf-8" },
      });
    };
    expect(await check(standIn(store, { [DB_ROUTES.db]: two }))).toEqual([]);
  });

  test("a cache behind every count but the scenario's fails the hostile values", async () => {
    const all = probe.prepare("SELECT id, randomNumber FROM World").all() as World[];
    const stale = (r: Request) =>
      count(r) === SCENARIO_QUERIES ? store.worlds(SCENARIO_QUERIES) : all.slice(0, count(r));
    const violations = await check(
      standIn(store, { [DB_ROUTES.queries]: (r) => Response.json(stale(r)) }),
    );
    expect(violations.length).toBeGreaterThan(5);
    expect(violations.every((v) => v.check.startsWith("GET /queries with queries="))).toBe(true);
    // Three problems at most per answer: 500 stale rows are not 500 lines.
    const perCheck = new Map<string, number>();
    for (const v of violations) perCheck.set(v.check, (perCheck.get(v.check) ?? 0) + 1);
    expect(Math.max(...perCheck.values())).toBe(3);
  });

  test("an escape missed only on the verifier's own fortune is caught", async () => {
    const noAmp = () =>
      new Response(fortunesHtml(store.fortunes()).replace(/&amp;/g, "&"), {
        headers: { "content-type": FORTUNES_CONTENT_TYPE },
      });
    const violations = await check(standIn(store, { [DB_ROUTES.fortunes]: noAmp }));
    expect(violations.map((v) => v.check)).toEqual(["GET /fortunes"]);
  });

  test("the updates' answer: not an array, nulls, ids not in World, a row short, half renumbered", async () => {
    const scenario = `GET /updates?queries=${SCENARIO_QUERIES}`;
    const updates = (answer: (r: Request) => unknown) =>
      check(standIn(store, { [DB_ROUTES.updates]: (r) => Response.json(answer(r)) })).then((all) =>
        all.filter((v) => v.check === scenario || v.check.startsWith("database")),
      );
    expect(await updates(() => ({}))).toEqual([
      { check: scenario, detail: '"{}" is not an array' },
    ]);
    expect(await updates((r) => Array.from({ length: count(r) }, () => null))).toEqual([
      { check: scenario, detail: "null is not a World object" },
      { check: scenario, detail: "null is not a World object" },
      { check: scenario, detail: "null is not a World object" },
    ]);
    const zero = await updates((r) =>
      Array.from({ length: count(r) }, () => ({ id: 0, randomNumber: 1 })),
    );
    expect(zero).toContainEqual({ check: scenario, detail: "id 0 is not an id of World" });
    expect(zero).toContainEqual({
      check: scenario,
      detail: "1 rows not written: row 0 answered 1, the table holds undefined",
    });
    const short = await updates((r) => store.updated(count(r) - 1));
    expect(short).toEqual([
      { check: scenario, detail: `${SCENARIO_QUERIES - 1} rows, expected ${SCENARIO_QUERIES}` },
    ]);
    const half = (r: Request) => {
      const rows = store.worlds(count(r));
      const renumbered = rows.slice(0, Math.ceil(rows.length / 2));
      const write = probe.prepare("UPDATE World SET randomNumber = ? WHERE id = ?");
      const out = rows.map((w, i) =>
        i < renumbered.length ? { id: w.id, randomNumber: (w.randomNumber % WORLD_ROWS) + 1 } : w,
      );
      // In order, as the verifier reads them: a repeated id holds its last number.
      for (const w of out) write.run(w.randomNumber, w.id);
      return out;
    };
    expect(await updates(half)).toEqual([]);
  });
});

function fixedRow(db: SqlDatabase): World {
  return db.prepare("SELECT id, randomNumber FROM World WHERE id = 1").get() as World;
}

test("the fortunes stand-in's rows", () => {
  const rows: Fortune[] = FORTUNES.slice(0, 2);
  expect(fortunesToServe(rows).map((f) => f.id)).toEqual([2, 0, 1]);
});
