// A throwaway PostgreSQL for `--db postgres`, from the machine's installed PostgreSQL: initdb
// into a new folder, a server on 127.0.0.1 and a free port (no socket file), seeded from the
// contract as a template database, and a copy of it (CREATE DATABASE … TEMPLATE) for every app
// process, so no process inherits another's rows. The server runs under a small watchdog shell
// in a process group of its own: when the harness is gone, however it ended (a SIGKILL too), the
// watchdog stops the server and removes the folder. A folder left anyway is removed by the next
// database run's sweep (app-db.ts), and a server whose folder is gone shuts itself down: its
// postmaster checks its lock file every minute.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectPostgres, PG_ENV, PG_POOL, type Sql, seedSql } from "@bench/contract";
import type { AppDatabase } from "./app-db.ts";

export const PG_PREFIX = "bench-pg-";

/** What `apt-get install postgresql` would have given: how to get it, in one line. */
export const PG_INSTALL =
  "PostgreSQL is not installed: install it (Debian/Ubuntu: apt-get install postgresql) " +
  "or run without --db postgres (SQLite)";

/**
 * Settings given to the server on its command line (the rest are PostgreSQL's defaults), for
 * apps of `workers` processes each.
 */
export function pgSettings(workers = 1): Readonly<Record<string, string>> {
  return {
    // A commit returns before its WAL reaches the disk: durable across a crash of the server,
    // not of the machine, as SQLite's synchronous = NORMAL in WAL mode (world-store.ts).
    synchronous_commit: "off",
    // PostgreSQL's default, or more: every process's pool, the harness's and the verifier's
    // connections, and room for the pools of a process that is still stopping.
    max_connections: String(Math.max(100, 2 * workers * PG_POOL + 10)),
  };
}

export interface PostgresRecord {
  readonly engine: "postgresql";
  readonly version: string;
  /** The CPUs the server (every backend) was pinned to; absent: not pinned. */
  readonly cpus?: string;
  readonly settings: Readonly<Record<string, string>>;
}

export interface PostgresServer {
  readonly port: number;
  /** The postmaster's pid: every backend is its child. */
  readonly pid: number;
  /** The folder of the data directory and the log, removed by stop(). */
  readonly dir: string;
  readonly record: PostgresRecord;
  /** A fresh copy of the seeded database for one app process (BENCH_PG). */
  appDatabase(): Promise<AppDatabase>;
  /** Stops the server and removes its folder; safe to call more than once. */
  stop(): Promise<void>;
}

/** The folder holding initdb and postgres: the newest /usr/lib/postgresql/N/bin, else PATH's. */
export function findPostgres(
  lib = "/usr/lib/postgresql",
  path = process.env.PATH ?? "",
): string | undefined {
  const both = (dir: string) =>
    existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));
  const versions = existsSync(lib)
    ? readdirSync(lib)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const installed = versions.map((v) => join(lib, v, "bin")).find(both);
  return installed ?? path.split(":").find((dir) => dir !== "" && both(dir));
}

/**
 * How to run PostgreSQL's programs: as this user, or, for root (which initdb refuses), as the
 * `postgres` user the OS package creates. The ids own the folder.
 */
function runAs(): { prefix: string[]; ids?: [number, number] } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string) => {
    try {
      return Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    } catch {
      throw new Error("running as root, PostgreSQL needs the `postgres` user, and there is none");
    }
  };
  const ids: [number, number] = [id("-u"), id("-g")];
  return { prefix: ["setpriv", `--reuid=${ids[0]}`, `--regid=${ids[1]}`, "--clear-groups"], ids };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * Stops the server (a fast shutdown) when the harness's pid is gone, when it is told to (TERM),
 * or when the server ends by itself; then removes the folder, unless the server ended by itself
 * while the harness lives (which reads the log, then removes it). Looks once a second; `wait`
 * lets a TERM in at once. $1: the harness's pid, $2: the folder, the rest: the server's command.
 */
const WATCHDOG = `
harness=$1 dir=$2 told=0; shift 2
"$@" 2>>"$dir/postgres.log" & pg=$!
trap 'told=1; kill -INT "$pg" 2>/dev/null' TERM INT
while kill -0 "$harness" 2>/dev/null && kill -0 "$pg" 2>/dev/null; do sleep 1 & wait $!; done
kill -INT "$pg" 2>/dev/null; wait "$pg"
if [ "$told" = 1 ] || ! kill -0 "$harness" 2>/dev/null; then rm -rf "$dir"; fi
`;

function initdb(bin: string, dir: string, prefix: string[]): string {
  const as =
    prefix.length > 0
      ? " (run by root, PostgreSQL runs as the postgres user, who must be able to reach " +
        "the temporary folder, TMPDIR)"
      : "";
  const data = join(dir, "data");
  const args = ["-D", data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--locale=C"];
  // --no-sync: a throwaway cluster need not reach the disk before it starts.
  const command = [...prefix, join(bin, "initdb"), ...args, "--no-sync"];
  try {
    // In a folder the postgres user can enter: PostgreSQL 15 changes directory and back while
    // it looks for its own programs.
    execFileSync(command[0] as string, command.slice(1), { stdio: "pipe", cwd: dir });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed: ${stderr || (error as Error).message}${as}`);
  }
  return data;
}

function serverCommand(
  bin: string,
  data: string,
  port: number,
  given: Readonly<Record<string, string>>,
  cpus?: string,
): string[] {
  const settings = { ...given, listen_addresses: "127.0.0.1", unix_socket_directories: "" };
  return [
    ...(cpus !== undefined ? ["taskset", "-c", cpus] : []),
    join(bin, "postgres"),
    "-D",
    data,
    "-p",
    String(port),
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
}

function logTail(dir: string): string {
  const log = join(dir, "postgres.log");
  return existsSync(log) ? readFileSync(log, "utf8").slice(-2000).trim() : "(no log)";
}

/** The first connection that answers, within 15 s; the log's tail when the server died. */
async function connectWhenReady(url: string, watchdog: ChildProcess, dir: string): Promise<Sql> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const sql = connectPostgres(url, 1);
    try {
      await sql`SELECT 1`;
      return sql;
    } catch (error) {
      await sql.end().catch(() => {});
      if (watchdog.exitCode !== null || watchdog.signalCode !== null) {
        throw new Error(`postgres did not start: ${logTail(dir)}`);
      }
      if (Date.now() > deadline) throw new Error(`postgres did not answer in 15 s: ${error}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Starts a server (pinned to `cpus` when given, for apps of `workers` processes) with the seeded
 * template database "world".
 */
export async function startPostgres(
  options: { cpus?: string; parent?: string; workers?: number } = {},
): Promise<PostgresServer> {
  const bin = findPostgres();
  if (bin === undefined) throw new Error(PG_INSTALL);
  const { prefix, ids } = runAs();
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), `${PG_PREFIX}${process.pid}-`));
  let watchdog: ChildProcess | undefined;
  let admin: Sql | undefined;
  try {
    if (ids) chownSync(dir, ids[0], ids[1]);
    const data = initdb(bin, dir, prefix);
    const port = await freePort();
    const settings = pgSettings(options.workers);
    const command = [...prefix, ...serverCommand(bin, data, port, settings, options.cpus)];
    watchdog = spawn("bash", ["-c", WATCHDOG, "watchdog", String(process.pid), dir, ...command], {
      cwd: dir,
      detached: true,
      stdio: "ignore",
    });
    admin = await connectWhenReady(urlOf(port, "postgres"), watchdog, dir);
    await seedTemplate(admin, port);
    return await serving(admin, { port, dir, watchdog, settings, cpus: options.cpus });
  } catch (error) {
    await admin?.end().catch(() => {});
    if (watchdog) await stopWatchdog(watchdog);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const urlOf = (port: number, database: string) => `postgres://bench@127.0.0.1:${port}/${database}`;

async function seedTemplate(admin: Sql, port: number): Promise<void> {
  await admin.unsafe("CREATE DATABASE world");
  const world = connectPostgres(urlOf(port, "world"), 1);
  try {
    await world.unsafe(seedSql());
    await world.unsafe("ANALYZE");
  } finally {
    await world.end();
  }
}

async function stopWatchdog(watchdog: ChildProcess): Promise<void> {
  if (watchdog.exitCode !== null || watchdog.signalCode !== null) return;
  const exited = new Promise((resolve) => watchdog.once("exit", resolve));
  watchdog.kill("SIGTERM");
  const late = setTimeout(() => watchdog.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(late);
}

interface Started {
  readonly port: number;
  readonly dir: string;
  readonly watchdog: ChildProcess;
  readonly settings: Readonly<Record<string, string>>;
  readonly cpus: string | undefined;
}

async function serving(admin: Sql, started: Started): Promise<PostgresServer> {
  const { port, dir, watchdog, settings, cpus } = started;
  const [row] = await admin<{ server_version: string }>`SHOW server_version`;
  let made = 0;
  let stopped: Promise<void> | undefined;
  const pid = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  return {
    port,
    pid,
    dir,
    record: {
      engine: "postgresql",
      version: row?.server_version ?? "unknown",
      ...(cpus !== undefined ? { cpus } : {}),
      settings: { ...settings, pool: String(PG_POOL) },
    },
    async appDatabase() {
      const name = `app_${++made}`;
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE world`);
      const url = urlOf(port, name);
      const drop = () => admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return { path: url, env: { [PG_ENV]: url }, remove: () => void drop().catch(() => {}) };
    },
    stop() {
      stopped ??= (async () => {
        await admin.end().catch(() => {});
        await stopWatchdog(watchdog);
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
