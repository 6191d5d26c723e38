// End to end: every app as a real process on its real port, started as users start it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import {
  APPS,
  getApp,
  H2_UNSUPPORTED,
  H2C_ENV,
  H2C_PORT_OFFSET,
  H2C_UNSUPPORTED,
  h2cPort,
  tlsPort,
} from "@bench/contract";
import {
  abandonBodies,
  descendantsOf,
  hostile,
  pidsListeningOn,
  verify,
} from "@bench/contract/check";
import { makeCertificate, type RunCertificate } from "../src/apps/certificate.ts";
import { portOpen } from "../src/apps/port-open.ts";
import { isRunning, LaunchError, portHolder, REPO_ROOT, startApp } from "../src/index.ts";
import { fakeRoot, WRONG_GREETING } from "./support/fake-root.ts";
import { SKIP_WITHOUT_OPENSSL } from "./support/openssl.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

/** A connection that has had one answer and stays open, idle (HTTP/1.1 keep-alive). */
function keptAlive(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.once("data", () => resolve(socket));
    socket.once("error", reject);
  });
}

describe("every app", () => {
  for (const app of APPS) {
    test(`${app.name} starts, conforms (its database too), survives 10,000 hostile requests and stops cleanly`, async () => {
      const running = await startApp(app, { database: true });
      const tree = [running.pid, ...descendantsOf(running.pid)];
      const url = `http://127.0.0.1:${app.port}`;
      const database = running.database as string;
      try {
        expect(existsSync(database)).toBe(true);
        expect(await verify(url, app.name, { database })).toEqual([]);
        // Not asked for h2c: no port of its own (and no node:http2 loaded for it).
        expect(await portHolder(app.port + H2C_PORT_OFFSET)).toBeUndefined();
        const report = await hostile(url, { count: 10_000 });
        expect(report.firstFailure).toBeUndefined();
        expect(report.serverErrors).toBe(0);
        expect(report.accepted).toBe(0);
        expect(report.failures).toBe(0);
        expect(report.aliveAfter).toBe(true);
        await abandonBodies("127.0.0.1", app.port);
        await Bun.sleep(200);
        expect(running.hasExited()).toBe(false);
        // Nothing above is the server's failure: its log holds no error and no stack trace.
        expect(running.output()).not.toMatch(/Error|Exception|^\s+at /m);
      } finally {
        // An idle keep-alive connection must not hold up the exit: TERM is obeyed within 900 ms
        // (stop() sends KILL after that). node-elysia took 1 s (srvx's graceful shutdown).
        const idle = await keptAlive(app.port);
        const stopped = await running.stop(900);
        idle.destroy();
        expect(stopped).toEqual({ signal: "SIGTERM", survivors: [] });
      }
      expect(tree.filter(isRunning)).toEqual([]);
      expect(await portHolder(app.port)).toBeUndefined();
      expect(existsSync(dirname(database))).toBe(false);
    }, 90_000);
  }
});

// Given the run's certificate, every app serves HTTPS on its port + 1000 too: the same cases,
// over TLS, trusting that certificate only, and over HTTP/2 where the app serves it (where it
// cannot, its port must offer no h2: the contract's reason still holds); asked for h2c
// (BENCH_H2C=1), over cleartext HTTP/2 on its h2c port too (or, where it cannot, no HTTP/2
// answer on either port); and every port is free once it stops.
describe("every app over HTTPS, HTTP/2 and h2c", () => {
  let certificate: RunCertificate;
  beforeAll(() => {
    if (!SKIP_WITHOUT_OPENSSL) certificate = makeCertificate();
  });
  afterAll(() => certificate?.remove());
  for (const app of APPS) {
    const h2 =
      H2_UNSUPPORTED[app.name] === undefined ? "and HTTP/2" : "(no h2, as the contract says)";
    const h2c = H2C_UNSUPPORTED[app.name] === undefined ? `h2c on port ${h2cPort(app)}` : "no h2c";
    const name = `${app.name} serves every case over HTTPS ${h2} on port ${tlsPort(app.port)}, ${h2c}`;
    test.skipIf(SKIP_WITHOUT_OPENSSL)(
      name,
      async () => {
        const env = { ...certificate.env, [H2C_ENV]: "1" };
        const running = await startApp(app, { env });
        const own = H2C_UNSUPPORTED[app.name] === undefined && h2cPort(app) !== app.port;
        try {
          expect(await portOpen("127.0.0.1", tlsPort(app.port), 10_000)).toBe(true);
          if (own) expect(await portOpen("127.0.0.1", h2cPort(app), 10_000)).toBe(true);
          const url = `http://127.0.0.1:${app.port}`;
          const options = { tlsCa: certificate.pem, http2: true, h2c: true };
          const violations = await verify(url, app.name, options);
          expect(violations).toEqual([]);
          expect(running.output()).toContain(`https://127.0.0.1:${tlsPort(app.port)}`);
          if (own) expect(running.output()).toContain(`http://127.0.0.1:${h2cPort(app)} (h2c)`);
        } finally {
          await running.stop(900);
        }
        expect(await portHolder(tlsPort(app.port))).toBeUndefined();
        expect(await portHolder(app.port + H2C_PORT_OFFSET)).toBeUndefined();
      },
      60_000,
    );
  }
});

// A runtime standing in for another is caught twice: by what the app reports at /api/test (Bun
// and Deno both claim a process.versions.node) and by the executable holding the port.
const DENO = join(REPO_ROOT, "apps", "deno-bare", "node_modules", "deno", "deno");
const STAND_INS = [
  { app: "node-hono", runtime: "bun", command: [process.execPath, "src/index.ts"] },
  { app: "node-bare", runtime: "deno", command: [DENO, "run", "-A", "src/index.ts"] },
] as const;

describe("runtime identity", () => {
  for (const { app: name, runtime, command } of STAND_INS) {
    test(`${name} run by ${runtime} is caught by its own report and by the executable check`, async () => {
      const app = getApp(name);
      const [executable, ...args] = command;
      const child = spawn(executable, args, {
        cwd: join(REPO_ROOT, "apps", app.name),
        stdio: "ignore",
      });
      try {
        const deadline = Date.now() + 10_000;
        while (pidsListeningOn(app.port).length === 0 && Date.now() < deadline) {
          await Bun.sleep(50);
        }
        const details = (await verify(`http://127.0.0.1:${app.port}`, app.name)).map(
          (v) => v.detail,
        );
        expect(details.join("\n")).toContain(
          `must be served by node, but the process reports "${runtime}"`,
        );
        expect(details.join("\n")).toMatch(
          new RegExp(`must run on node, but pid \\d+ on port ${app.port} runs .*${runtime}`),
        );
      } finally {
        child.kill("SIGKILL");
        await new Promise((done) => child.once("exit", done));
      }
    }, 30_000);
  }
});

describe("launcher", () => {
  test("a deliberately broken app, run as a real process, is reported by verify", async () => {
    const running = await startApp(getApp("bun-bare"), {
      root: fakeRoot({ "bun-bare": WRONG_GREETING }, temp),
    });
    try {
      const violations = await verify("http://127.0.0.1:3004", "bun-bare", { timeoutMs: 2000 });
      expect(violations.find((v) => v.check.startsWith("GET / answers"))?.detail).toContain(
        'body "Goodbye"',
      );
    } finally {
      expect((await running.stop()).survivors).toEqual([]);
    }
  }, 30_000);

  test("a taken port is refused before anything starts, naming who holds it", async () => {
    const squatter = Bun.serve({ port: 3000, hostname: "127.0.0.1", fetch: () => new Response() });
    try {
      const attempt = startApp(getApp("bun-hono"));
      expect(attempt).rejects.toThrow(LaunchError);
      expect(attempt).rejects.toThrow(
        new RegExp(`port 3000 is already in use by pid ${process.pid}`),
      );
    } finally {
      squatter.stop(true);
    }
  });

  test("an app that ignores SIGTERM is killed, and nothing of it survives", async () => {
    const stubborn = `process.on("SIGTERM", () => console.log("ignoring TERM"));\n${WRONG_GREETING}`;
    const running = await startApp(getApp("bun-bare"), {
      root: fakeRoot({ "bun-bare": stubborn }, temp),
    });
    const tree = [running.pid, ...descendantsOf(running.pid)];
    const stopped = await running.stop(500);
    expect(stopped.signal).toBe("SIGKILL");
    expect(stopped.survivors).toEqual([]);
    expect(tree.filter(isRunning)).toEqual([]);
  }, 30_000);

  test("an app that exits before serving is reported with its output", async () => {
    const root = fakeRoot(
      { "bun-bare": 'console.error("boom: no config"); process.exit(3);' },
      temp,
    );
    expect(startApp(getApp("bun-bare"), { root })).rejects.toThrow(
      /exited \(3\).*\n.*boom: no config/s,
    );
  });
});
