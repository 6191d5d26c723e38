// End to end: a plain start loads no WebSocket library it does not need at start (issue 48: the
// start-up and RSS figures of a plain run must not grow for protocols the run did not ask for).
// Each app is started as the harness starts it (`bun run --silent start` in its folder), traced
// by strace (every file each of its processes opens), until it answers GET /api/test; then the
// files opened are matched against the WebSocket libraries. The apps that must load one at
// start (docs/apps.md: Fastify registers @fastify/websocket before it listens; node-hono's
// adapter makes its ws server when the server is made) are named, so the day one stops, the test
// fails and the docs change. Then each app serving WebSocket is started again and sent one
// opening request: what loads on the first upgrade must be there, so the tracing can fail.
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APPS, type AppName, type AppSpec, ROUTES } from "@bench/contract";
import { WS_ROUTES, WS_UNSUPPORTED } from "@bench/contract/ws";
import { portOpen } from "../src/apps/port-open.ts";
import { portHolder, REPO_ROOT } from "../src/index.ts";

const HOST = "127.0.0.1";
const HAS_STRACE = spawnSync("strace", ["-V"]).status === 0;
const SKIP = !HAS_STRACE && process.env.CI !== "true";
if (SKIP) console.log("plain-start.e2e: skipped, strace is not installed (apt-get install strace)");

/**
 * The WebSocket libraries, by a part of the path of every file they are loaded from. Only code
 * counts: Deno reads ws's package.json at start to resolve the `import("ws")` of
 * @bench/contract/ws-node (the small module that loads ws on the first upgrade), and no more.
 */
const LIBRARIES = {
  ws: "/node_modules/ws/",
  "@fastify/websocket": "/node_modules/@fastify/websocket/",
} as const;
const CODE = /\.[cm]?[jt]s", /;
type Library = keyof typeof LIBRARIES;

/** What an app loads at a plain start, each for the reason docs/apps.md gives. */
const AT_START: Partial<Record<AppName, Library[]>> = {
  "node-hono": ["ws"],
  "node-fastify": ["ws", "@fastify/websocket"],
  "bun-fastify": ["@fastify/websocket"],
  "deno-fastify": ["ws", "@fastify/websocket"],
};

/**
 * What an app has loaded once it has upgraded one connection, where it adds some: ws on node:http
 * (on Bun, `import("ws")` is Bun's own, built in; Bun.serve and Deno.serve need no library).
 */
const AFTER_UPGRADE: Partial<Record<AppName, Library[]>> = {
  "node-bare": ["ws"],
  "node-express": ["ws"],
  "deno-express": ["ws"],
};

/** One opening request on the echo route: the status of its answer (0: none in 10 s). */
function upgradeOnce(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
    let head = "";
    const done = (status: number) => {
      socket.destroy();
      resolve(status);
    };
    socket.setTimeout(10_000, () => done(0));
    socket.on("error", () => done(0));
    socket.on("data", (data) => {
      head += data.toString("latin1");
      if (head.includes("\r\n")) done(Number(head.split(" ")[1]));
    });
    socket.write(
      `GET ${WS_ROUTES.echo} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
  });
}

/**
 * The WebSocket libraries `app` opened, started under strace until it answered (and, with
 * `upgrade`, upgraded one connection), then stopped with its whole process group.
 */
async function librariesOpened(app: AppSpec, upgrade: boolean): Promise<Library[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-trace-"));
  const log = join(dir, "opens");
  // -ff: a file per process, so that no call is split across lines by another process's.
  const trace = ["-ff", "-qq", "-e", "trace=open,openat", "-e", "signal=none", "-o", log];
  const child = spawn("strace", [...trace, process.execPath, "run", "--silent", "start"], {
    cwd: join(REPO_ROOT, "apps", app.name),
    detached: true, // its own process group, stopped whole
    stdio: "ignore",
  });
  try {
    expect(await portOpen(HOST, app.port, 30_000)).toBe(true);
    const answer = await fetch(`http://${HOST}:${app.port}${ROUTES.api}`);
    expect(answer.status).toBe(200);
    if (upgrade) expect(await upgradeOnce(app.port)).toBe(101);
  } finally {
    const exited = new Promise((done) => child.once("exit", done));
    process.kill(-(child.pid as number), "SIGTERM");
    await exited;
  }
  const opened = readdirSync(dir)
    .flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n"))
    .filter((line) => / = \d+$/.test(line) && CODE.test(line)); // code opened, not ENOENT
  rmSync(dir, { recursive: true, force: true });
  const found = Object.entries(LIBRARIES).filter(([, part]) =>
    opened.some((l) => l.includes(part)),
  );
  return found.map(([name]) => name as Library).sort();
}

describe("what a plain start loads", () => {
  for (const app of APPS) {
    const expected = [...(AT_START[app.name] ?? [])].sort();
    const what = expected.length ? `only ${expected.join(", ")}` : "no WebSocket library";
    test.skipIf(SKIP)(
      `${app.name} loads ${what} at a plain start`,
      async () => {
        expect(await librariesOpened(app, false)).toEqual(expected);
        expect(await portHolder(app.port)).toBeUndefined();
      },
      60_000,
    );
  }
});

describe("what the first upgrade loads", () => {
  for (const app of APPS.filter((a) => WS_UNSUPPORTED[a.name] === undefined)) {
    const expected = [
      ...new Set([...(AT_START[app.name] ?? []), ...(AFTER_UPGRADE[app.name] ?? [])]),
    ].sort();
    test.skipIf(SKIP)(
      `${app.name} has loaded ${expected.join(", ") || "none"} once upgraded`,
      async () => {
        expect(await librariesOpened(app, true)).toEqual(expected);
      },
      60_000,
    );
  }
});
