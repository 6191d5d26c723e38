// The h2 and h2c scenarios' side of the contract: which apps cannot serve HTTP/2 (over TLS, in the
// clear) and why, how its load splits into connections and streams, the HTTP/2 fetcher, and
// checkOverH2 and checkOverH2c against live stand-ins on ports no app uses: Fastify over
// node:http2 (h2 by ALPN; h2c with prior knowledge) and Bun.serve (neither).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import {
  createServer as createH2cServer,
  createSecureServer,
  type Http2SecureServer,
} from "node:http2";
import { createServer, type Server } from "node:net";
import {
  APPS,
  findScenario,
  getApp,
  H2_STREAMS,
  H2_UNSUPPORTED,
  H2C_ON_PLAIN_PORT,
  H2C_PORT_OFFSET,
  H2C_UNSUPPORTED,
  h2cPort,
  h2Split,
  headAnswer,
  isH2c,
  isStage,
  notSupported,
  tlsPort,
} from "@bench/contract";
import {
  alpnChoice,
  checkH2cRefused,
  checkH2Refused,
  checkOverH2,
  checkOverH2c,
  h2cStatus,
  h2Fetcher,
  openH2,
  openH2c,
} from "@bench/contract/check";
import { serveOptions } from "../../../apps/bun-bare/src/app.ts";
// From the repository root: the same path from the package and from a mutation sandbox.
import {
  createApp as fastifyApp,
  createH2cApp as fastifyH2cApp,
} from "../../../packages/fastify-app/src/index.ts";
import { pemOf, SKIP_WITHOUT_OPENSSL, testCertificate } from "./support/certificate.ts";
import { listening, portBase } from "./support/ports.ts";

const SKIP = SKIP_WITHOUT_OPENSSL;
const HOST = "127.0.0.1";
// Ports no app of the contract uses (checks add 1000 for the TLS port, 2000 for h2c's), from this
// process's own base, so two runs at once do not collide.
const BASE = portBase();
const [H2_PORT, H1_PORT, RAW_PORT, H2C_PORT] = [BASE, BASE + 1, BASE + 2, BASE + 3];
/** What Bun.serve's TLS picks when offered h2 and http/1.1: nothing (it negotiates no ALPN). */
const BUN_SERVE_ALPN = "";

let dir = "";
let pem = { cert: "", key: "" };
const stops: (() => void)[] = [];
beforeAll(async () => {
  if (SKIP) return;
  const made = testCertificate("contract-h2-");
  dir = made.dir;
  pem = pemOf(made);
  // bun-fastify's app: Fastify's http2 option, HTTP/1.1 and HTTP/2 by ALPN on one port.
  const h2 = fastifyApp(pem);
  await h2.listen({ port: tlsPort(H2_PORT), host: HOST });
  stops.push(() => void h2.close());
  const h1 = Bun.serve({ ...serveOptions, port: tlsPort(H1_PORT), hostname: HOST, tls: pem });
  stops.push(() => h1.stop(true));
  // h2c: bun-fastify's cleartext instance on H2C_PORT + 2000, and Bun.serve in the clear on
  // H1_PORT (bun-bare's own options: what the Bun.serve apps' h2c reason is about).
  const h2c = fastifyH2cApp();
  await h2c.listen({ port: H2C_PORT + H2C_PORT_OFFSET, host: HOST });
  stops.push(() => void h2c.close());
  const plain = Bun.serve({ ...serveOptions, port: H1_PORT, hostname: HOST });
  stops.push(() => plain.stop(true));
});
afterAll(() => {
  for (const stop of stops) stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("which apps serve HTTP/2", () => {
  const h2 = findScenario("h2");

  test("the h2 scenario: the api route over TLS and HTTP/2, on request", () => {
    expect(h2).toMatchObject({ path: "/api/test", tls: true, http2: true, onRequest: true });
  });

  test("Bun.serve's apps, the Express apps and Fastify on Deno cannot, each with its reason; the rest can", () => {
    if (!h2) throw new Error("no h2 scenario");
    const cannot: string[] = APPS.filter((app) => notSupported(app, h2) !== undefined).map(
      (a) => a.name,
    );
    expect(cannot.sort()).toEqual(
      [
        "bun-bare",
        "bun-elysia",
        "bun-express",
        "bun-hono",
        "deno-express",
        "deno-fastify",
        "node-express",
      ].sort(),
    );
    expect(notSupported(getApp("bun-hono"), h2)).toStartWith("Bun.serve speaks HTTP/1.1 only");
    expect(notSupported(getApp("deno-express"), h2)).toStartWith("Express cannot serve");
    expect(notSupported(getApp("deno-fastify"), h2)).toStartWith("Deno's node:http2 server ends");
    expect(Object.keys(H2_UNSUPPORTED).sort()).toEqual(cannot.sort());
  });

  test("every app serves the HTTP/1.1 scenarios, tls among them", () => {
    for (const name of ["api", "tls", "sse"]) {
      const scenario = findScenario(name);
      if (!scenario) throw new Error(`no ${name} scenario`);
      for (const app of APPS) expect(notSupported(app, scenario)).toBeUndefined();
    }
  });
});

describe("which apps serve cleartext HTTP/2 (h2c), and where", () => {
  const h2c = findScenario("h2c");

  test("the h2c scenario: the api route over HTTP/2 without TLS, on request, a stage against api", () => {
    expect(h2c).toMatchObject({ path: "/api/test", http2: true, onRequest: true });
    if (!h2c) throw new Error("no h2c scenario");
    expect("tls" in h2c).toBe(false);
    expect([isH2c(h2c), isStage(h2c)]).toEqual([true, true]);
    const h2 = findScenario("h2");
    const api = findScenario("api");
    if (!h2 || !api) throw new Error("no h2 or api scenario");
    expect([isH2c(h2), isH2c(api), isStage(api)]).toEqual([false, false, false]);
  });

  test("Bun.serve's apps, node-elysia, the Express apps and Fastify on Deno cannot, each with its reason", () => {
    if (!h2c) throw new Error("no h2c scenario");
    const cannot: string[] = APPS.filter((app) => notSupported(app, h2c) !== undefined).map(
      (a) => a.name,
    );
    expect(cannot.sort()).toEqual(
      [
        "bun-bare",
        "bun-elysia",
        "bun-express",
        "bun-hono",
        "deno-express",
        "deno-fastify",
        "node-elysia",
        "node-express",
      ].sort(),
    );
    expect(Object.keys(H2C_UNSUPPORTED).sort()).toEqual(cannot.sort());
    expect(notSupported(getApp("bun-elysia"), h2c)).toStartWith("Bun.serve speaks HTTP/1.1 only");
    expect(notSupported(getApp("node-elysia"), h2c)).toStartWith("srvx, which @elysiajs/node");
    expect(notSupported(getApp("bun-express"), h2c)).toStartWith("Express cannot serve");
    expect(notSupported(getApp("deno-fastify"), h2c)).toStartWith("Deno's node:http2 cleartext");
    // Not the h2 reasons: node-elysia serves h2, and each h2c reason is its own.
    expect(notSupported(getApp("node-elysia"), findScenario("h2") as typeof h2c)).toBeUndefined();
  });

  test("Deno.serve's apps on their plain port; the others that serve it on port + 2000", () => {
    expect([...H2C_ON_PLAIN_PORT].sort()).toEqual(["deno-bare", "deno-elysia", "deno-hono"]);
    expect(h2cPort(getApp("deno-hono"))).toBe(3006);
    expect(h2cPort(getApp("node-hono"))).toBe(5002);
    expect(h2cPort(getApp("bun-fastify"))).toBe(5012);
    expect(h2cPort({ name: "node-bare", port: 7 })).toBe(2007);
    for (const name of H2C_ON_PLAIN_PORT) expect(H2C_UNSUPPORTED[name]).toBeUndefined();
  });
});

describe("checkOverH2c against live stand-ins", () => {
  test.skipIf(SKIP)(
    "an app served over h2c on port + 2000: every case answered right, no violation",
    async () => {
      const violations = await checkOverH2c(HOST, H2C_PORT, getApp("bun-fastify"), 5000);
      expect(violations).toEqual([]);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an app said to serve h2c whose port speaks HTTP/1.1 only: one violation, no session",
    async () => {
      // deno-bare serves h2c on its plain port: here, Bun.serve's (HTTP/1.1 only).
      const violations = await checkOverH2c(HOST, H1_PORT, getApp("deno-bare"), 3000);
      expect(violations).toHaveLength(1);
      expect(violations[0]?.check).toBe(`over h2c: an HTTP/2 session on port ${H1_PORT}`);
      // An app said to serve it on port + 2000 where nothing listens: one violation too.
      const closed = await checkOverH2c(HOST, H1_PORT, getApp("node-bare"), 3000);
      expect(closed).toHaveLength(1);
      expect(closed[0]?.check).toBe(
        `over h2c: an HTTP/2 session on port ${H1_PORT + H2C_PORT_OFFSET}`,
      );
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "Bun.serve gives no HTTP/2 answer to prior knowledge (the Bun.serve apps' reason holds)",
    async () => {
      expect(await h2cStatus(HOST, H1_PORT, 3000)).toBeUndefined();
      expect(await h2cStatus(HOST, H2C_PORT + H2C_PORT_OFFSET, 3000)).toBe(200);
      expect(await checkH2cRefused(HOST, H1_PORT, getApp("bun-bare"), 3000)).toEqual([]);
      await expect(openH2c(HOST, H1_PORT, 3000)).rejects.toThrow();
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an app said not to serve h2c that answers it, on port + 2000 or its plain port: its reason is out of date",
    async () => {
      const at2000 = await checkH2cRefused(HOST, H2C_PORT, getApp("bun-hono"), 3000);
      expect(at2000).toHaveLength(1);
      expect(at2000[0]?.check).toBe("over h2c: an app that cannot serve it gives no HTTP/2 answer");
      expect(at2000[0]?.detail).toContain(
        `bun-hono answered HTTP/2 with prior knowledge on port ${H2C_PORT + H2C_PORT_OFFSET} (status 200)`,
      );
      expect(at2000[0]?.detail).toContain(H2C_UNSUPPORTED["bun-hono"] as string);
      const plain = H2C_PORT + H2C_PORT_OFFSET;
      const atPlain = await checkH2cRefused(HOST, plain, getApp("node-elysia"), 3000);
      expect(atPlain.map((v) => v.detail)).toEqual([
        `node-elysia answered HTTP/2 with prior knowledge on port ${plain} (status 200), though its entry in H2C_UNSUPPORTED says "${H2C_UNSUPPORTED["node-elysia"]}": measure it and drop the entry`,
      ]);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "every violation says over h2c; answers are read by the network's rules",
    async () => {
      // Every request answered 200 with an empty body and no headers, on a port the system gives:
      // checkOverH2c is told the plain port 2000 below it.
      const server = createH2cServer((_req, res) => res.end());
      const port = await listening(server as unknown as Server);
      stops.push(() => server.close());
      const app = getApp("node-bare");
      const violations = await checkOverH2c(HOST, port - H2C_PORT_OFFSET, app, 5000);
      expect(violations.length).toBeGreaterThan(20);
      for (const v of violations) expect(v.check).toStartWith("over h2c: ");
      expect(violations.map((v) => `${v.check}: ${v.detail}`)).toContain(
        'over h2c: GET / answers the greeting as text/plain: content-type "", expected "text/plain"',
      );
    },
    30_000,
  );
});

describe("h2Split: the in-flight requests as connections × streams", () => {
  test("the most streams up to H2_STREAMS that divide the count", () => {
    expect(H2_STREAMS).toBe(10);
    expect(h2Split(100)).toEqual({ connections: 10, streams: 10 });
    expect(h2Split(64)).toEqual({ connections: 8, streams: 8 });
    expect(h2Split(50)).toEqual({ connections: 5, streams: 10 });
    expect(h2Split(7)).toEqual({ connections: 1, streams: 7 });
    expect(h2Split(22)).toEqual({ connections: 11, streams: 2 });
  });

  test("a count no stream count divides: one stream per connection", () => {
    expect(h2Split(1)).toEqual({ connections: 1, streams: 1 });
    expect(h2Split(13)).toEqual({ connections: 13, streams: 1 });
  });
});

describe("checkOverH2 against live stand-ins", () => {
  test.skipIf(SKIP)(
    "an app served over HTTP/2: every case answered right, no violation",
    async () => {
      const violations = await checkOverH2(HOST, H2_PORT, getApp("bun-fastify"), pem.cert, 5000);
      expect(violations).toEqual([]);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an app said to serve HTTP/2 whose port offers HTTP/1.1 only: one violation, no session",
    async () => {
      const violations = await checkOverH2(HOST, H1_PORT, getApp("deno-bare"), pem.cert, 5000);
      expect(violations).toHaveLength(1);
      expect(violations[0]?.check).toBe("over HTTP/2: an h2 session by ALPN");
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an app said not to serve HTTP/2 whose port picks h2: its reason is out of date",
    async () => {
      const violations = await checkOverH2(HOST, H2_PORT, getApp("bun-bare"), pem.cert, 5000);
      expect(violations).toHaveLength(1);
      expect(violations[0]?.detail).toContain("bun-bare picked h2 by ALPN");
      expect(violations[0]?.detail).toContain(H2_UNSUPPORTED["bun-bare"] as string);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an app said not to serve HTTP/2 that offers none: no violation; a port that is closed: one",
    async () => {
      expect(await alpnChoice(HOST, H1_PORT, pem.cert, 5000)).toBe(BUN_SERVE_ALPN);
      expect(await checkH2Refused(HOST, H1_PORT, getApp("bun-hono"), pem.cert, 5000)).toEqual([]);
      const closed = await checkH2Refused(HOST, BASE + 8, getApp("bun-hono"), pem.cert, 5000);
      expect(closed[0]?.check).toBe("over HTTP/2: an app that cannot serve it offers no h2");
      expect(closed[0]?.detail).toStartWith("TLS connection failed: ");
    },
    30_000,
  );
});

describe("checkOverH2 reads answers by the network's rules", () => {
  test.skipIf(SKIP)(
    "an answer without Content-Type is not taken for text/plain; every violation says over HTTP/2",
    async () => {
      // Every request answered 200 with an empty body and no headers, on a port the system
      // gives: checkOverH2 is told the plain port 1000 below it.
      const server = createSecureServer(pem, (_req, res) => res.end());
      const port = await listening(server as unknown as Server);
      stops.push(() => server.close());
      const violations = await checkOverH2(HOST, port - 1000, getApp("node-bare"), pem.cert, 5000);
      expect(violations.length).toBeGreaterThan(20);
      for (const v of violations) {
        expect(v.check).toStartWith("over HTTP/2: ");
        expect(typeof v.detail).toBe("string");
      }
      expect(violations.map((v) => `${v.check}: ${v.detail}`)).toContain(
        'over HTTP/2: GET / answers the greeting as text/plain: content-type "", expected "text/plain"',
      );
    },
    30_000,
  );
});

describe("h2Fetcher", () => {
  let raw: Http2SecureServer;
  /** How many streams of /silent the server saw closed. */
  let silentClosed = 0;
  beforeAll(async () => {
    if (SKIP) return;
    raw = createSecureServer(pem, (req, res) => {
      const seen = { method: req.method, authority: req.headers[":authority"], te: req.headers.te };
      if (req.url === "/reset") {
        res.writeHead(413, { "content-type": "application/json" });
        res.write('{"partial"');
        setTimeout(() => res.stream.close(8), 20); // NGHTTP2_CANCEL after the head and a part
        return;
      }
      if (req.url === "/silent") {
        req.stream.on("close", () => silentClosed++);
        return; // never answers
      }
      if (req.url === "/cancel") return void req.stream.close(8); // NGHTTP2_CANCEL, no head
      if (req.url === "/fail") return void req.stream.close(2); // NGHTTP2_INTERNAL_ERROR
      if (req.url === "/none") {
        res.writeHead(204, { "x-n": ["1", "2"] });
        res.end();
        return;
      }
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...seen, body }));
      });
    });
    await new Promise<void>((resolve) => raw.listen(tlsPort(RAW_PORT), HOST, resolve));
    stops.push(() => raw.close());
  });

  async function fetcher() {
    const session = await openH2(HOST, RAW_PORT, pem.cert, 5000);
    stops.push(() => session.close());
    return h2Fetcher(session, 2000);
  }

  test.skipIf(SKIP)(
    "a request's method, body and Host go over as :method, DATA and :authority; connection headers stay off",
    async () => {
      const fetch = await fetcher();
      const request = new Request(`https://${HOST}:${tlsPort(RAW_PORT)}/echo?x=1`, {
        method: "POST",
        body: "hello",
        headers: { host: "api", connection: "close", "content-type": "text/plain" },
      });
      const answer = await fetch(request);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json");
      expect(await answer.json()).toEqual({ method: "POST", authority: "api", body: "hello" });
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an answer whose stream is reset after its head: the status and what came of the body",
    async () => {
      const fetch = await fetcher();
      const answer = await fetch(new Request(`https://${HOST}/reset`));
      expect(answer.status).toBe(413);
      expect(await answer.text()).toBe('{"partial"');
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a 204: no body, every value of a repeated header",
    async () => {
      const fetch = await fetcher();
      const answer = await fetch(new Request(`https://${HOST}/none`));
      expect(answer.status).toBe(204);
      expect(answer.headers.get("x-n")).toBe("1, 2");
      expect(answer.body).toBeNull();
      expect(await answer.text()).toBe("");
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "the connection headers of HTTP/1.1 stay off (node:http2 refuses to send them)",
    async () => {
      const fetch = await fetcher();
      const headers = {
        "keep-alive": "timeout=5",
        "proxy-connection": "keep-alive",
        "transfer-encoding": "chunked",
        upgrade: "websocket",
      };
      const answer = await fetch(new Request(`https://${HOST}/echo`, { headers }));
      expect(answer.status).toBe(200);
      // No pseudo-header of the answer becomes a header of the Response.
      expect([...answer.headers.keys()].filter((name) => name.startsWith(":"))).toEqual([]);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a GET ends its stream at once: a server that answers at the request's end answers it",
    async () => {
      const fetch = await fetcher();
      const answer = await fetch(new Request(`https://${HOST}/echo`));
      expect(await answer.json()).toMatchObject({ method: "GET", body: "" });
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a stream never answered: an error after the fetcher's timeout",
    async () => {
      const session = await openH2(HOST, RAW_PORT, pem.cert, 5000);
      stops.push(() => session.close());
      await expect(h2Fetcher(session, 300)(new Request(`https://${HOST}/silent`))).rejects.toThrow(
        "no answer within 300 ms",
      );
      // The fetcher gives the stream up: the server sees it closed.
      await Bun.sleep(200);
      expect(silentClosed).toBe(1);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a DELETE without a body ends its stream at once too",
    async () => {
      const fetch = await fetcher();
      const answer = await fetch(new Request(`https://${HOST}/echo`, { method: "DELETE" }));
      expect(await answer.json()).toMatchObject({ method: "DELETE", body: "" });
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a stream the server resets before any answer: an error, not a hang",
    async () => {
      const fetch = await fetcher();
      await expect(fetch(new Request(`https://${HOST}/cancel`))).rejects.toThrow(
        "the stream closed before any answer",
      );
      // A reset with an error code: the stream's error is the fetcher's, not an uncaught one.
      await expect(fetch(new Request(`https://${HOST}/fail`))).rejects.toThrow();
      await Bun.sleep(50);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "alpnChoice offers http/1.1 too: a server of HTTP/1.1 alone picks it",
    async () => {
      const { createServer: createTls } = await import("node:tls");
      const tls = createTls({ ...pem, ALPNProtocols: ["http/1.1"] }, (socket) => socket.end());
      await new Promise<void>((resolve) => tls.listen(tlsPort(BASE + 9), HOST, resolve));
      stops.push(() => tls.close());
      expect(await alpnChoice(HOST, BASE + 9, pem.cert, 2000)).toBe("http/1.1");
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "alpnChoice ends its TLS connection once it knows the answer",
    async () => {
      const { createServer: createTls } = await import("node:tls");
      let ended = 0;
      const tls = createTls(pem, (socket) => {
        socket.on("error", () => {});
        socket.on("end", () => {
          ended++;
          socket.end();
        });
      });
      await new Promise<void>((resolve) => tls.listen(tlsPort(BASE + 5), HOST, resolve));
      stops.push(() => tls.close());
      await alpnChoice(HOST, BASE + 5, pem.cert, 2000);
      await Bun.sleep(200);
      expect(ended).toBe(1);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a session outlives openH2's own timeout",
    async () => {
      const session = await openH2(HOST, RAW_PORT, pem.cert, 200);
      stops.push(() => session.close());
      await Bun.sleep(400);
      expect(session.destroyed).toBe(false);
      const answer = await h2Fetcher(session, 2000)(new Request(`https://${HOST}/none`));
      expect(answer.status).toBe(204);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "no h2 session on a closed port: the error, not a hang",
    async () => {
      await expect(openH2(HOST, BASE + 7, pem.cert, 2000)).rejects.toThrow();
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a port that accepts and never shakes hands: an error after the timeout, for both checks",
    async () => {
      const mute = createServer(() => {});
      await new Promise<void>((resolve) => mute.listen(tlsPort(BASE + 6), HOST, resolve));
      stops.push(() => mute.close());
      await expect(openH2(HOST, BASE + 6, pem.cert, 300)).rejects.toThrow(
        "no h2 session within 300 ms",
      );
      const [refused] = await checkH2Refused(HOST, BASE + 6, getApp("bun-hono"), pem.cert, 300);
      expect(refused?.detail).toBe("TLS connection failed: no TLS session within 300 ms");
      // In the clear: no SETTINGS from the server, no session; and no HTTP/2 answer.
      const silent = createServer(() => {});
      const port = await listening(silent);
      stops.push(() => silent.close());
      await expect(openH2c(HOST, port, 300)).rejects.toThrow("no HTTP/2 session within 300 ms");
      expect(await h2cStatus(HOST, port, 300)).toBeUndefined();
    },
    30_000,
  );
});

describe("headAnswer: HEAD from GET's answer, with no body (Deno.serve over HTTP/2)", () => {
  test("GET's status and headers, its body's length counted, no body", async () => {
    const get = new Response("twelve bytes", { status: 201, headers: { "x-a": "1" } });
    const head = await headAnswer(get);
    expect(head.status).toBe(201);
    expect(head.headers.get("x-a")).toBe("1");
    expect(head.headers.get("content-length")).toBe("12");
    expect(head.body).toBeNull();
  });

  test("a length GET's answer names is kept, the body left unread", async () => {
    // A body that never ends: read, it would never resolve.
    const endless = new ReadableStream({ pull: () => new Promise(() => {}) });
    const get = new Response(endless, { headers: { "content-length": "5" } });
    const head = await headAnswer(get);
    expect(head.headers.get("content-length")).toBe("5");
    expect(head.body).toBeNull();
  });

  test("an answer with no body is GET's own", async () => {
    const get = new Response(null, { status: 304 });
    expect(await headAnswer(get)).toBe(get);
  });
});
