// --db postgres: the throwaway server (postgres-server.ts) from the machine's PostgreSQL, every
// app serving the database contract from its own copy, the verifier failing stand-ins that break
// a rule on this engine (a cache, unwritten updates, a cached page), and no server or folder
// left behind, also when the harness is killed with SIGKILL. Real processes on real ports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  APPS,
  connectPostgres,
  DB_ROUTES,
  FORTUNES_CONTENT_TYPE,
  fortunesHtml,
  PG_ENV,
  parseQueries,
  pgStoreOver,
  SCENARIO_QUERIES,
  type Sql,
  type World,
  type WorldStore,
} from "@bench/contract";
import { checkDatabase, descendantsOf, type Fetcher, pgProbe, verify } from "@bench/contract/check";
import { isRunning, startApp } from "../src/apps/launch.ts";
import {
  findPostgres,
  type PostgresServer,
  pgSettings,
  startPostgres,
} from "../src/apps/postgres-server.ts";

/** A conforming app over `store`, in process; `overrides` replace its routes to break a rule. */
function standIn(store: WorldStore, overrides: Partial<Record<string, Fetcher>> = {}): Fetcher {
  const count = (r: Request) => parseQueries(new URL(r.url).searchParams.get("queries"));
  const routes: Record<string, Fetcher> = {
    [DB_ROUTES.db]: async () => Response.json(await store.world()),
    [DB_ROUTES.queries]: async (r) => Response.json(await store.worlds(count(r))),
    [DB_ROUTES.fortunes]: async () =>
      new Response(fortunesHtml(await store.fortunes()), {
        headers: { "content-type": FORTUNES_CONTENT_TYPE },
      }),
    [DB_ROUTES.updates]: async (r) => Response.json(await store.updated(count(r))),
    ...overrides,
  };
  return (request) => {
    const route = routes[new URL(request.url).pathname];
    return route ? route(request) : new Response("no", { status: 404 });
  };
}

describe("the server's settings", () => {
  test("commits do not wait for the disk; connections enough for every process's pool", () => {
    expect(pgSettings()).toEqual({ synchronous_commit: "off", max_connections: "100" });
    expect(pgSettings(5).max_connections).toBe("100"); // 2 × 5 × 8 + 10 = 90
    expect(pgSettings(8).max_connections).toBe("138"); // 2 × 8 × 8 + 10
  });
});

// CI installs Debian's postgresql; elsewhere, without it, these tests skip (visibly).
const RUN = findPostgres() !== undefined || process.env.CI === "true";
if (!RUN)
  console.log(
    "postgres.e2e.test.ts: skipped: PostgreSQL is not installed (apt-get install postgresql)",
  );

describe.skipIf(!RUN)("--db postgres", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  describe("the server", () => {
    test("runs on 127.0.0.1 from a folder of its own, its settings recorded", async () => {
      expect(server.record.engine).toBe("postgresql");
      expect(server.record.version).toMatch(/^\d+\.\d+/);
      expect(server.record.settings).toEqual({
        synchronous_commit: "off",
        max_connections: "100",
        pool: "8",
      });
      expect(server.dir).toMatch(new RegExp(`/bench-pg-${process.pid}-`));
      const db = await server.appDatabase();
      expect(db.env).toEqual({ [PG_ENV]: db.path });
      const sql = connectPostgres(db.path, 1);
      try {
        const [row] = await sql<{ worlds: number; fortunes: number; commit: string; host: string }>`
          SELECT (SELECT count(*)::int FROM world) AS worlds,
                 (SELECT count(*)::int FROM fortune) AS fortunes,
                 current_setting('synchronous_commit') AS commit,
                 inet_server_addr()::text AS host`;
        expect(row).toEqual({ worlds: 10_000, fortunes: 12, commit: "off", host: "127.0.0.1/32" });
      } finally {
        await sql.end();
      }
    });

    test("each app database is a copy: one's writes are not another's", async () => {
      const [a, b] = [await server.appDatabase(), await server.appDatabase()];
      expect(a.path).not.toBe(b.path);
      const [sa, sb] = [connectPostgres(a.path, 1), connectPostgres(b.path, 1)];
      try {
        await sa`UPDATE world SET randomnumber = 1`;
        const [row] = await sb<{
          n: number;
        }>`SELECT count(*)::int AS n FROM world WHERE randomnumber = 1`;
        expect(row?.n).toBeLessThan(10);
      } finally {
        await Promise.all([sa.end(), sb.end()]);
      }
    });

    test("findPostgres takes the newest installed version, else PATH's", () => {
      const root = mkdtempSync(join(tmpdir(), "find-pg-"));
      try {
        const bin = (dir: string) => {
          mkdirSync(dir, { recursive: true });
          for (const f of ["initdb", "postgres"]) writeFileSync(join(dir, f), "");
          return dir;
        };
        bin(join(root, "lib", "9", "bin"));
        const newest = bin(join(root, "lib", "16", "bin"));
        mkdirSync(join(root, "lib", "17", "bin"), { recursive: true });
        const onPath = bin(join(root, "path"));
        expect(findPostgres(join(root, "lib"), `/nowhere:${onPath}`)).toBe(newest);
        expect(findPostgres(join(root, "none"), `/nowhere::${onPath}`)).toBe(onPath);
        expect(findPostgres(join(root, "none"), "/nowhere")).toBeUndefined();
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });

  describe("the verifier on PostgreSQL", () => {
    let app: Sql;
    let probe: Sql;
    let store: WorldStore;
    beforeAll(async () => {
      const db = await server.appDatabase();
      app = connectPostgres(db.path);
      probe = connectPostgres(db.path, 1);
      store = pgStoreOver(app);
    });
    afterAll(() => Promise.all([app?.end(), probe?.end()]));
    const check = (fetcher: Fetcher) => checkDatabase(fetcher, "http://localhost", pgProbe(probe));
    const checks = async (fetcher: Fetcher) => [
      ...new Set((await check(fetcher)).map((v) => v.check)),
    ];

    test("a conforming app passes, and the fortune the verifier added is gone after", async () => {
      expect(await check(standIn(store))).toEqual([]);
      expect(await probe`SELECT count(*)::int AS n FROM fortune`).toEqual([{ n: 12 }]);
    });

    test("rows cached at the start fail every read", async () => {
      const rows = await probe<World>`SELECT id, randomnumber AS "randomNumber" FROM world`;
      const cached = new Map(rows.map((w) => [w.id, { id: w.id, randomNumber: w.randomNumber }]));
      const pick = () => cached.get(1 + Math.floor(Math.random() * cached.size)) as World;
      const found = await checks(standIn(store, { [DB_ROUTES.db]: () => Response.json(pick()) }));
      expect(found).toEqual(["GET /db (pass 1)", "GET /db (pass 2)"]);
    });

    test("updates answered but not written fail, read back from the server", async () => {
      const unsaved = async (r: Request) => {
        const rows = await store.worlds(parseQueries(new URL(r.url).searchParams.get("queries")));
        return Response.json(
          rows.map((w) => ({ id: w.id, randomNumber: (w.randomNumber % 10_000) + 1 })),
        );
      };
      const violations = await check(standIn(store, { [DB_ROUTES.updates]: unsaved }));
      expect(violations.map((v) => v.check)).toEqual([`GET /updates?queries=${SCENARIO_QUERIES}`]);
      expect(violations[0]?.detail).toMatch(
        /^(1[5-9]|20) rows not written: row \d+ answered \d+, the table holds \d+$/,
      );
    });

    test("a page from before the verifier's fortune fails", async () => {
      const page = fortunesHtml(await store.fortunes());
      const cached = () =>
        new Response(page, { headers: { "content-type": FORTUNES_CONTENT_TYPE } });
      expect(await checks(standIn(store, { [DB_ROUTES.fortunes]: cached }))).toEqual([
        "GET /fortunes",
      ]);
    });

    test("concurrent updates of the same rows neither deadlock nor lose a request", async () => {
      const all = await Promise.all(Array.from({ length: 40 }, () => store.updated(50)));
      expect(all.flat()).toHaveLength(2000);
    });
  });

  describe("every app on PostgreSQL", () => {
    for (const app of APPS) {
      test(`${app.name} serves the database contract from its own database`, async () => {
        const running = await startApp(app, { database: () => server.appDatabase() });
        const tree = [running.pid, ...descendantsOf(running.pid)];
        try {
          expect(running.database).toStartWith("postgres://bench@127.0.0.1:");
          const url = `http://127.0.0.1:${app.port}`;
          expect(await verify(url, app.name, { database: running.database })).toEqual([]);
          expect(running.output()).not.toMatch(/Error|Exception|^\s+at /m);
        } finally {
          expect((await running.stop(900)).survivors).toEqual([]);
        }
        expect(tree.filter(isRunning)).toEqual([]);
      }, 60_000);
    }
  });

  describe("however the harness ends", () => {
    test("SIGKILL: the watchdog stops the server and removes its folder", async () => {
      const script = join(import.meta.dir, "support", "postgres-holder.ts");
      const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const deadline = Date.now() + 30_000;
      while (!out.includes("\n") && Date.now() < deadline) await Bun.sleep(50);
      const dir = out.trim();
      expect(existsSync(join(dir, "data", "postmaster.pid"))).toBe(true);
      const postmaster = Number(
        readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0],
      );
      expect(isRunning(postmaster)).toBe(true);
      child.kill("SIGKILL");
      const gone = Date.now() + 10_000;
      while ((isRunning(postmaster) || existsSync(dir)) && Date.now() < gone) await Bun.sleep(100);
      expect(isRunning(postmaster)).toBe(false);
      expect(existsSync(dir)).toBe(false);
    }, 60_000);
  });
});
