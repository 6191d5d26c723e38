// The bad clients judged (check/abuse-checks.ts), as verify() runs them in a tls, h2 or h2c run,
// against stand-ins that serve on, or fail in one way: an HTTPS server that answers beside
// stalled handshakes, answers 503, or drops new connections; an HTTP/2 server that answers after
// a reset storm, answers 503 or nothing, or ends the stormy session (a clean refusal). Then that
// checkOverTls, checkOverH2 and checkOverH2c run them, after their cases. Each stand-in
// listens on a port the system gives, so two runs at once never collide.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import {
  createServer as createH2c,
  createSecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import { createServer as createHttps } from "node:https";
import { type AddressInfo, connect, createServer as createTcp, type Server } from "node:net";
import { getApp, H2C_PORT_OFFSET, TLS_PORT_OFFSET } from "@bench/contract";
import {
  checkAfterResetStorm,
  checkBesideStalledTls,
  checkOverH2,
  checkOverH2c,
  checkOverTls,
  openH2c,
  VERIFY_RESETS,
  VERIFY_STALLS,
} from "@bench/contract/check";
import { pemOf, SKIP_WITHOUT_OPENSSL, testCertificate } from "./support/certificate.ts";
import { closedPort } from "./support/ports.ts";

const SKIP = SKIP_WITHOUT_OPENSSL;
const HOST = "127.0.0.1";
/** Long enough for a stand-in's answer on a busy machine; a silent one costs this much. */
const TIMEOUT_MS = 1000;

const dirs: string[] = [];
/** A certificate for 127.0.0.1 (its folder removed when the file is done). */
function certificate() {
  const made = testCertificate("contract-abuse-");
  dirs.push(made.dir);
  return pemOf(made);
}
let pem = { cert: "", key: "" };
beforeAll(() => {
  if (!SKIP) pem = certificate();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** Listens on a port the system gives, closed after the test, and says which. */
async function listen(server: Server | Http2Server): Promise<number> {
  await new Promise<void>((listening) => server.listen(0, HOST, listening));
  closers.push(() => server.close());
  return ((server as Server).address() as AddressInfo).port;
}

/**
 * A TCP relay to `port`, on a port the system gives: counts the connections it holds, and ends
 * any beyond `limit` at once.
 */
async function relay(port: number, limit = Number.POSITIVE_INFINITY) {
  let open = 0;
  let seen = 0;
  const server = createTcp((client) => {
    seen++;
    client.on("error", () => {});
    if (open >= limit) return void client.destroy();
    open++;
    client.on("close", () => open--);
    const upstream = connect(port, HOST);
    client.pipe(upstream).pipe(client);
    upstream.on("error", () => {});
    upstream.on("close", () => client.end());
    client.on("close", () => upstream.destroy());
  });
  return { port: await listen(server), open: () => open, seen: () => seen };
}

/** An HTTPS server answering `status`, behind a relay (at most `limit` connections). */
async function https(status: number, limit?: number) {
  const server = createHttps(pem, (_, answer) => answer.writeHead(status).end("{}"));
  const front = await relay(await listen(server), limit);
  // checkBesideStalledTls asks the TLS port of the port it is given: 1000 below the relay's.
  return { ...front, port: front.port - TLS_PORT_OFFSET };
}

describe("checkBesideStalledTls", () => {
  test.skipIf(SKIP)(
    "answered while the stalls are held: no violation, and all are released",
    async () => {
      const server = await https(200);
      let heldThen = 0;
      const whileHeld = () => {
        heldThen = server.open();
        return [{ check: "memory", detail: "the caller's own" }];
      };
      expect(
        await checkBesideStalledTls(HOST, server.port, pem.cert, TIMEOUT_MS, 20, whileHeld),
      ).toEqual([{ check: "memory", detail: "the caller's own" }]);
      expect(heldThen).toBeGreaterThanOrEqual(20);
      await Bun.sleep(100);
      expect(server.open()).toBeLessThanOrEqual(1);
    },
  );

  test.skipIf(SKIP)("another status, or no answer while they are held, is named", async () => {
    const check = "over HTTPS: answered beside 20 stalled handshakes";
    const unavailable = await https(503);
    expect(await checkBesideStalledTls(HOST, unavailable.port, pem.cert, TIMEOUT_MS, 20)).toEqual([
      { check, detail: "status 503" },
    ]);
    const full = await https(200, 20);
    const found = await checkBesideStalledTls(HOST, full.port, pem.cert, TIMEOUT_MS, 20);
    expect(found.map((v) => v.check)).toEqual([check]);
    expect(found[0]?.detail).not.toStartWith("status");
    // The same server with room for one more answers.
    const roomy = await https(200, 21);
    expect(await checkBesideStalledTls(HOST, roomy.port, pem.cert, TIMEOUT_MS, 20)).toEqual([]);
  });

  test.skipIf(SKIP)("a certificate it was not given is no answer", async () => {
    const server = await https(200);
    const other = certificate();
    const found = await checkBesideStalledTls(HOST, server.port, other.cert, TIMEOUT_MS, 5);
    expect(found.map((v) => v.check)).toEqual(["over HTTPS: answered beside 5 stalled handshakes"]);
    expect(found[0]?.detail).toStartWith("request failed: ");
  });

  test("nothing listening: the stalls themselves fail, said so", async () => {
    const port = (await closedPort()) - TLS_PORT_OFFSET;
    const found = await checkBesideStalledTls(HOST, port, "no certificate", TIMEOUT_MS);
    expect(found.map((v) => v.check)).toEqual([
      `over HTTPS: answered beside ${VERIFY_STALLS} stalled handshakes`,
    ]);
    expect(found[0]?.detail).toStartWith("stalling them: ");
  });
});

type Answer = (request: Http2ServerRequest, answer: Http2ServerResponse) => void;
const ok: Answer = (_, answer) => answer.writeHead(200).end("{}");

/**
 * An HTTP/2 server (h2c, or h2 given `tls`) answering `before` until a session has brought
 * `storm` streams, then `after` on every session that opens later ("silent": no answer).
 */
async function h2(
  after: Answer | "silent",
  options: { tls?: boolean; before?: Answer; storm?: number } = {},
) {
  const { tls = false, before = ok, storm = 250 } = options;
  let stormed = false;
  let most = 0;
  const server = tls ? createSecureServer({ ...pem, allowHTTP1: false }) : createH2c();
  server.on("session", (session) => {
    const late = stormed;
    let streams = 0;
    session.on("stream", (stream) => {
      stream.on("error", () => {});
      most = Math.max(most, ++streams);
      if (streams >= storm) stormed = true;
    });
    (session as unknown as { late: boolean }).late = late;
  });
  server.on("request", (request, response) => {
    const late = (request.stream.session as unknown as { late: boolean }).late;
    if (!late) before(request, response);
    else if (after !== "silent") after(request, response);
  });
  const port = await listen(server);
  return { port, most: () => most };
}

describe("checkAfterResetStorm", () => {
  const storm = (port: number, streams?: number, timeoutMs = TIMEOUT_MS) =>
    checkAfterResetStorm(
      () => openH2c(HOST, port, timeoutMs),
      `http://${HOST}:${port}`,
      "h2c",
      timeoutMs,
      streams,
    );
  const check = "over h2c: answered after a reset storm";

  test("answered on a new session after the storm: no violation; the storm's streams came", async () => {
    const server = await h2(ok);
    expect(await storm(server.port)).toEqual([]);
    expect(server.most()).toBe(VERIFY_RESETS);
  });

  test("another status, or silence, after the storm is named with the streams reset", async () => {
    const unavailable = await h2((_, answer) => answer.writeHead(503).end());
    expect(await storm(unavailable.port, 300)).toEqual([
      { check, detail: "after 300 reset streams, a new session got 503" },
    ]);
    const silent = await h2("silent");
    const found = await storm(silent.port, 300, 300);
    expect(found.map((v) => v.check)).toEqual([check]);
    expect(found[0]?.detail).toStartWith("after 300 reset streams: ");
  });

  test("a server that ends the stormy session has refused it cleanly: it need only serve on", async () => {
    const server = createH2c();
    let streams = 0;
    server.on("stream", (stream) => {
      stream.on("error", () => {});
      if (++streams === 50) stream.session?.goaway();
      else stream.respond({ ":status": 200 }, { endStream: true });
    });
    const port = await listen(server);
    expect(await storm(port, 100_000)).toEqual([]);
    expect(streams).toBeLessThan(100_000);
  });

  test("no session at all: said so, no stream reset", async () => {
    const found = await storm(await closedPort());
    expect(found.map((v) => v.check)).toEqual([check]);
    expect(found[0]?.detail).toStartWith("after 0 reset streams: ");
  });
});

describe("verify()'s protocol steps run them", () => {
  const notFound: Answer = (_, answer) => answer.writeHead(404).end();
  const unavailable: Answer = (_, answer) => answer.writeHead(503).end();

  test("checkOverH2c: its storm, after the cases, on the h2c port", async () => {
    const failing = await h2(unavailable, { before: notFound, storm: 600 });
    const app = getApp("node-bare"); // its h2c port is its port + 2000
    const found = await checkOverH2c(HOST, failing.port - H2C_PORT_OFFSET, app, TIMEOUT_MS);
    expect(found.length).toBeGreaterThan(1);
    expect(found.every((v) => v.check.startsWith("over h2c: "))).toBe(true);
    expect(found.at(-1)).toEqual({
      check: "over h2c: answered after a reset storm",
      detail: `after ${VERIFY_RESETS} reset streams, a new session got 503`,
    });
    expect(failing.most()).toBe(VERIFY_RESETS);
  }, 30_000);

  test.skipIf(SKIP)(
    "checkOverH2: its storm, after the cases, over TLS",
    async () => {
      const failing = await h2(unavailable, { tls: true, before: notFound, storm: 600 });
      const app = getApp("node-bare");
      const port = failing.port - TLS_PORT_OFFSET;
      const found = await checkOverH2(HOST, port, app, pem.cert, TIMEOUT_MS);
      expect(found.length).toBeGreaterThan(1);
      expect(found.every((v) => v.check.startsWith("over HTTP/2: "))).toBe(true);
      expect(found.at(-1)).toEqual({
        check: "over HTTP/2: answered after a reset storm",
        detail: `after ${VERIFY_RESETS} reset streams, a new session got 503`,
      });
      expect(failing.most()).toBe(VERIFY_RESETS);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "checkOverTls: the stalls, after the cases",
    async () => {
      const failing = await https(503);
      const app = getApp("bun-bare");
      const found = await checkOverTls(HOST, failing.port, app, pem.cert, TIMEOUT_MS);
      expect(found.length).toBeGreaterThan(1);
      expect(found.every((v) => v.check.startsWith("over HTTPS: "))).toBe(true);
      expect(found.at(-1)).toEqual({
        check: `over HTTPS: answered beside ${VERIFY_STALLS} stalled handshakes`,
        detail: "status 503",
      });
      expect(failing.seen()).toBeGreaterThan(VERIFY_STALLS);
    },
    30_000,
  );
});
