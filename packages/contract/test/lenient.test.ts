// A verifier that grows lenient passes every conforming app: these stand-ins (127.0.0.1, port 0)
// are each wrong in one way, and verify() / checkCases() / checkStreamingLimit() / hostile() must
// say so, in the words they are expected to use. Run against every mutant of the contract's
// verification modules (packages/harness/mutation/groups.ts, group "contract"), so it stays fast:
// no stand-in waits for a timeout longer than 150 ms, and no load generator runs.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { serveOptions } from "../../../apps/bun-bare/src/app.ts";
import {
  abandonBodies,
  CASES,
  checkCases,
  checkServingExecutable,
  checkStreamingLimit,
  EXTRA_ATTACKS,
  type Fetcher,
  hostile,
  onRegistryPort,
  pidsListeningOn,
  servesAddress,
  survived,
  type Violation,
  verify,
} from "../src/check.ts";
import {
  apiPayload,
  createWorldDb,
  ERRORS,
  errorBody,
  GREETING,
  getApp,
  STREAM_ROUTES,
} from "../src/index.ts";
import { WS_ROUTES } from "../src/spec/websocket.ts";
import { type Handler, type Overrides, referenceServe } from "./support/reference-server.ts";

const bare = serveOptions.routes as unknown as Overrides;
const APP = getApp("bun-bare");

/** Stops every stand-in a test started. */
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

/** bun-bare's routes on a free port, `overrides` replacing some of them. */
function serve(overrides: Overrides = {}): string {
  const server = referenceServe("bare", 0, overrides);
  cleanups.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}`;
}

/** A raw TCP stand-in: `onConnection` gets each socket; resolves to its port. */
async function standIn(
  onConnection: (socket: Socket) => void,
  allowHalfOpen = false,
): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    onConnection(socket);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

const lines = (violations: readonly Violation[]) =>
  violations.map((v) => `${v.check}: ${v.detail}`);

/** The contract cases against `origin` over the network (inProcess false), through `fetcher`. */
const casesOver = (origin: string, fetcher: Fetcher = (request) => fetch(request)) =>
  checkCases(fetcher, APP, origin, false);

const GET_ROOT = "GET / answers the greeting as text/plain";
const HEAD_ROOT = "HEAD / answers as GET does, without a body";
const API = "GET /api/test answers the runtime identity as JSON";
const STAMP = "GET /api/test timestamp changes between requests";

describe("checkCases: every rule of an answer", () => {
  test("the reference server breaks none of them", async () => {
    expect(await casesOver(serve())).toEqual([]);
  });

  test("a wrong status of the same class (201 for 200) is reported", async () => {
    const origin = serve({ "/": { GET: () => new Response(GREETING, { status: 201 }) } });
    // Bun answers HEAD from the GET route, so HEAD / is 201 as well.
    expect(lines(await casesOver(origin))).toEqual([
      `${GET_ROOT}: status 201, expected 200`,
      `${HEAD_ROOT}: status 201, expected 200`,
    ]);
  });

  test("any 4xx where the contract says 413 is reported", async () => {
    const echo = bare["/api/echo"]?.POST as Handler;
    const origin = serve({
      "/api/echo": {
        POST: (request, server) =>
          Number(request.headers.get("content-length")) > 1_048_576 // the limit: 1 MiB
            ? Response.json(errorBody(ERRORS.tooLarge), { status: 400 })
            : echo(request, server),
      },
    });
    expect(lines(await casesOver(origin))).toEqual([
      "a body one byte over the limit is 413: status 400, expected 413",
    ]);
  });

  test("a missing Content-Type is reported where GET sends it, allowed on HEAD", async () => {
    // Bun.serve always sends one, so the answer loses it on its way in.
    const origin = serve();
    const untyped: Fetcher = async (request) => {
      const answer = await fetch(request);
      if (new URL(request.url).pathname !== "/" || request.method === "POST") return answer;
      const headers = new Headers(answer.headers);
      headers.delete("content-type");
      return new Response(answer.body, { status: answer.status, headers });
    };
    expect(lines(await casesOver(origin, untyped))).toEqual([
      `${GET_ROOT}: content-type "", expected "text/plain"`,
    ]);
  });

  test("a media type is compared without its parameters, case or spaces", async () => {
    const greeting = () =>
      new Response(GREETING, { headers: { "content-type": " Text/Plain ; Charset=UTF-8" } });
    expect(await casesOver(serve({ "/": { GET: greeting } }))).toEqual([]);
  });

  test("another media type is reported, on HEAD too", async () => {
    const html = () => new Response(GREETING, { headers: { "content-type": "text/html" } });
    expect(lines(await casesOver(serve({ "/": { GET: html } })))).toEqual([
      `${GET_ROOT}: content-type "text/html", expected "text/plain"`,
      `${HEAD_ROOT}: content-type "text/html", expected "text/plain"`,
    ]);
  });

  test("a wrong greeting is reported with both bodies", async () => {
    const origin = serve({ "/": { GET: () => new Response("Hello!") } });
    expect(lines(await casesOver(origin))).toEqual([
      `${GET_ROOT}: body "Hello!", expected "Hello, World!"`,
    ]);
  });

  test("a 3xx to bad input is reported as it is, not followed", async () => {
    const echo = bare["/api/echo"]?.POST as Handler;
    // GET /api/echo is a wrong method (404); this server sends it to the greeting instead.
    const origin = serve({
      "/api/echo": { POST: echo, GET: () => Response.redirect("/", 302) },
    });
    const violations = await casesOver(origin);
    expect(lines(violations)).toEqual([
      "a known path with the wrong method is 404 (GET /api/echo): status 302, expected 404",
      'a known path with the wrong method is 404 (GET /api/echo): content-type "", expected "application/json"',
      'a known path with the wrong method is 404 (GET /api/echo): body "", expected "{\\"error\\":\\"Not Found\\"}"',
    ]);
  });

  test("the runtime identity is checked on a 200, not on an error answer", async () => {
    const hono = serve({ "/api/test": { GET: () => Response.json(apiPayload("hono")) } });
    expect(lines(await casesOver(hono))).toEqual([`${API}: framework "hono", expected "bare"`]);
    // A 500 whose body is no payload at all: only the status is the case's violation.
    const failing = serve({
      "/api/test": { GET: () => Response.json(errorBody(ERRORS.internal), { status: 500 }) },
    });
    expect(lines(await casesOver(failing))).toEqual([
      `${API}: status 500, expected 200`,
      "HEAD /api/test answers as GET does, without a body: status 500, expected 200",
      `${STAMP}: timestamps undefined then undefined (5 ms apart)`,
    ]);
  });

  test("a user update answered 200 with a stale lastUpdate is reported, per update", async () => {
    const users = bare["/api/users/:id"] as Record<string, Handler>;
    const post = users.POST as Handler;
    const stale = async (request: Request, server: Parameters<Handler>[1]) => {
      const answer = await post(request, server);
      if (answer.status !== 200) return answer;
      return Response.json({ ...(await answer.json()), lastUpdate: "2020-01-01T00:00:00.000Z" });
    };
    const origin = serve({ "/api/users/:id": { ...users, POST: stale } });
    const detail = 'lastUpdate "2020-01-01T00:00:00.000Z" is not now as an ISO date-time (UTC)';
    expect(lines(await casesOver(origin))).toEqual([
      `POST /api/users/42 validates and returns the user, lastUpdate now: ${detail}`,
      `unknown properties of a user update are dropped: ${detail}`,
    ]);
  });

  test("a user update answered with the wrong status is not also judged as an update", async () => {
    const users = bare["/api/users/:id"] as Record<string, Handler>;
    const refuse = () => Response.json(errorBody(ERRORS.malformedJson), { status: 400 });
    const origin = serve({ "/api/users/:id": { ...users, POST: refuse } });
    const violations = await casesOver(origin);
    const update = violations.filter((v) => v.check.startsWith("POST /api/users/42 validates"));
    expect(update.map((v) => v.detail)).toEqual([
      "status 400, expected 200",
      // the update's own checks would add "keys [error], expected ..." here
    ]);
  });

  test("a request that fails is a violation, not an exception", async () => {
    const origin = serve();
    const failing: Fetcher = (request) =>
      new URL(request.url).pathname === "/" && request.method === "GET"
        ? Promise.reject(new Error("connection reset"))
        : fetch(request);
    expect(lines(await casesOver(origin, failing))).toEqual([
      `${GET_ROOT}: request failed: connection reset`,
    ]);
  });
});

describe("checkCases in-process: what only the server layer adds", () => {
  /** The reference server's answer, rebuilt as a handler would give it before Bun.serve. */
  const asHandler =
    (edit: (request: Request, headers: Headers) => string | null): Fetcher =>
    async (request) => {
      const answer = await fetch(request, { redirect: "manual" });
      const headers = new Headers(answer.headers);
      const text = await answer.text();
      const body = edit(request, headers) ?? text;
      headers.delete("content-length");
      return new Response(request.method === "HEAD" ? body : text, {
        status: answer.status,
        headers,
      });
    };

  test("a handler's HEAD body is left to the server in-process, reported on the wire", async () => {
    const origin = serve();
    const withBody = asHandler((request) => (request.method === "HEAD" ? "junk" : null));
    expect(await checkCases(withBody, APP, origin, true)).toEqual([]);
    const onTheWire = await checkCases(withBody, APP, origin, false);
    expect(onTheWire.filter((v) => v.check === HEAD_ROOT).map((v) => v.detail)).toEqual([
      'body "junk", expected ""',
    ]);
  });

  test("no Content-Type in-process is the text/plain Bun.serve would send", async () => {
    const origin = serve();
    const untyped = asHandler((request, headers) => {
      const root = new URL(request.url).pathname === "/" && request.method !== "POST";
      if (root) headers.delete("content-type");
      return null;
    });
    expect(await checkCases(untyped, APP, origin, true)).toEqual([]);
    // ...which is no excuse for a JSON route.
    const api = asHandler((request, headers) => {
      const api = new URL(request.url).pathname === "/api/test" && request.method !== "DELETE";
      if (api) headers.delete("content-type");
      return null;
    });
    expect(lines(await checkCases(api, APP, origin, true))).toEqual([
      `${API}: content-type "text/plain", expected "application/json"`,
      'HEAD /api/test answers as GET does, without a body: content-type "text/plain", expected "application/json"',
    ]);
  });
});

describe("checkCases' defaults: in-process, at http://localhost", () => {
  test("an app's handler gets localhost URLs and may leave HEAD bodies to the server", async () => {
    const origin = serve();
    const handler: Fetcher = async (request) => {
      const url = new URL(request.url);
      if (url.origin !== "http://localhost") return new Response("wrong origin", { status: 421 });
      const answer = await fetch(`${origin}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: "manual",
      });
      // A handler's HEAD answer still carries its body: only the server layer drops it.
      if (request.method !== "HEAD") return answer;
      return new Response("the body of GET", { status: answer.status, headers: answer.headers });
    };
    expect(await checkCases(handler, APP)).toEqual([]);
  });
});

describe("the timestamp check", () => {
  /**
   * The reference server, but the n-th GET /api/test (n counted from 1) answers
   * `stamp(n, now)`. The cases send one GET /api/test (cases.ts), so the check's two requests
   * are the 2nd and the 3rd.
   */
  const stamped = (stamp: (n: number, now: number) => unknown): [string, Fetcher] => {
    let n = 0;
    const origin = serve();
    return [
      origin,
      (request) => {
        const url = new URL(request.url);
        if (url.pathname !== "/api/test" || request.method !== "GET") return fetch(request);
        n++;
        const now = Date.now();
        return Response.json({ ...apiPayload("bare"), timestamp: stamp(n, now) });
      },
    ];
  };
  const stampLines = async ([origin, fetcher]: [string, Fetcher]) =>
    lines(await casesOver(origin, fetcher)).filter((line) => line.startsWith(STAMP));

  test("a timestamp that stands still is reported", async () => {
    const still = Date.now();
    expect(await stampLines(stamped(() => still))).toEqual([
      `${STAMP}: timestamps ${still} then ${still} (5 ms apart)`,
    ]);
  });

  test("a timestamp that goes back is reported", async () => {
    const start = Date.now();
    expect(await stampLines(stamped((n) => start - n))).toEqual([
      `${STAMP}: timestamps ${start - 2} then ${start - 3} (5 ms apart)`,
    ]);
  });

  test("a timestamp that is a numeric string, first or second, is reported", async () => {
    const start = Date.now();
    // Increasing either way: only the type is wrong.
    const firstText = await stampLines(stamped((n) => (n === 2 ? String(start) : start + 10)));
    expect(firstText).toEqual([`${STAMP}: timestamps ${start} then ${start + 10} (5 ms apart)`]);
    const secondText = await stampLines(stamped((n) => (n === 3 ? String(start + 10) : start)));
    expect(secondText).toEqual([`${STAMP}: timestamps ${start} then ${start + 10} (5 ms apart)`]);
  });

  test("a body that is no JSON is a failed request", async () => {
    const origin = serve();
    let n = 0;
    const garbled: Fetcher = (request) => {
      if (new URL(request.url).pathname !== "/api/test" || request.method !== "GET") {
        return fetch(request);
      }
      n++;
      return n === 1 ? fetch(request) : new Response("not json");
    };
    const found = lines(await casesOver(origin, garbled));
    expect(found).toHaveLength(1);
    expect(found[0]).toStartWith(`${STAMP}: request failed: `);
  });
});

describe("checkStreamingLimit", () => {
  const CHECK = "a chunked body over the limit is 413 before it ends";
  /** 1 MiB, the contract's limit, plus the one byte that makes it too large. */
  const OVER = 1_048_576 + 1;

  /** Reads a chunked request and calls `answer` once OVER body bytes have arrived. */
  function chunkedReader(socket: Socket, answer: () => void) {
    let raw = "";
    let answered = false;
    const seen = { head: "", sizes: [] as number[], raw: () => raw };
    socket.on("data", (data) => {
      raw += data.toString("latin1");
      const end = raw.indexOf("\r\n\r\n");
      if (end === -1) return;
      seen.head = raw.slice(0, end);
      seen.sizes = [];
      let at = end + 4;
      for (;;) {
        const lineEnd = raw.indexOf("\r\n", at);
        if (lineEnd === -1) break;
        const size = Number.parseInt(raw.slice(at, lineEnd), 16);
        if (raw.length < lineEnd + 2 + size + 2) break;
        seen.sizes.push(size);
        at = lineEnd + 2 + size + 2;
      }
      if (!answered && seen.sizes.reduce((a, b) => a + b, 0) >= OVER) {
        answered = true;
        answer();
      }
    });
    return seen;
  }

  test("a server that answers 413 once the limit is passed conforms; the body never ends", async () => {
    let seen: ReturnType<typeof chunkedReader> | undefined;
    let closed: () => void = () => {};
    const gone = new Promise<void>((done) => {
      closed = done;
    });
    const port = await standIn((socket) => {
      seen = chunkedReader(socket, () =>
        socket.write("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n"),
      );
      socket.on("close", closed);
    });
    expect(await checkStreamingLimit("127.0.0.1", port, 2000)).toEqual([]);
    await gone;
    const head = seen?.head.split("\r\n");
    expect(head?.[0]).toBe("POST /api/echo HTTP/1.1");
    expect(head).toContain(`Host: 127.0.0.1:${port}`);
    expect(head).toContain("Transfer-Encoding: chunked");
    expect(head).toContain("Content-Type: application/json");
    // 1 MiB in 64 KiB chunks is 16 of them; then the one byte over. No final zero-size chunk.
    expect(seen?.sizes).toEqual([...Array.from({ length: 16 }, () => 65_536), 1]);
    expect(seen?.raw().endsWith("1\r\nx\r\n")).toBe(true);
  });

  test("any other status is reported, with the 413 the contract wants", async () => {
    const port = await standIn((socket) =>
      socket.once("data", () =>
        socket.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
      ),
    );
    expect(await checkStreamingLimit("127.0.0.1", port, 2000)).toEqual([
      { check: CHECK, detail: `status 400, expected 413 (${ERRORS.tooLarge})` },
    ]);
  });

  test("an answer is read once its head is complete, even when it comes in pieces", async () => {
    const port = await standIn((socket) =>
      socket.once("data", () => {
        socket.write("HTTP/1.1");
        setTimeout(() => socket.write(" 413 Payload Too Large\r\n\r\n"), 20);
      }),
    );
    expect(await checkStreamingLimit("127.0.0.1", port, 2000)).toEqual([]);
  });

  test("a server that buffers the body and never answers is reported", async () => {
    const port = await standIn((socket) => socket.resume());
    expect(await checkStreamingLimit("127.0.0.1", port, 100)).toEqual([
      { check: CHECK, detail: "no answer within 100 ms: the body is buffered?" },
    ]);
  });

  test("a server that reads the body and hangs up without answering is reported", async () => {
    const port = await standIn((socket) => {
      chunkedReader(socket, () => socket.end());
    });
    expect(await checkStreamingLimit("127.0.0.1", port, 2000)).toEqual([
      { check: CHECK, detail: "connection closed without an answer" },
    ]);
  });

  test("no server at all is a failed connection", async () => {
    const violations = await checkStreamingLimit("127.0.0.1", await closedPort(), 2000);
    expect(violations).toHaveLength(1);
    expect(violations[0]?.check).toBe(CHECK);
    expect(violations[0]?.detail).toStartWith("connection failed: ");
  });
});

describe("checkServingExecutable and the registry port", () => {
  /** Every port asked about, and a /proc stand-in where `exes` listen on any port. */
  const asked: number[] = [];
  const probe = (exes: Record<number, string | undefined>) => ({
    pidsListeningOn: (port: number) => {
      asked.push(port);
      return Object.keys(exes).map(Number);
    },
    executableOf: (pid: number) => exes[pid],
  });
  const CHECK = "runtime identity: the process on the port runs the right executable";

  test("the right executable, or none visible, is no violation", () => {
    asked.length = 0;
    expect(checkServingExecutable(APP, probe({}))).toEqual([]);
    expect(asked).toEqual([3004]); // bun-bare's port, from the README's table
    expect(checkServingExecutable(APP, probe({ 7: "/usr/local/bin/bun" }))).toEqual([]);
    // Judged by the start of the file name, as versioned installs name it.
    expect(checkServingExecutable(getApp("node-bare"), probe({ 7: "/opt/node24" }))).toEqual([]);
    expect(checkServingExecutable(APP, probe({ 7: undefined }))).toEqual([]);
  });

  test("another runtime's executable is reported, for each process that runs one", () => {
    const found = checkServingExecutable(
      APP,
      probe({ 7: undefined, 8: "/usr/bin/node", 9: "/usr/local/bin/bun", 10: "/bun/deno" }),
    );
    expect(found).toEqual([
      {
        check: CHECK,
        detail: "bun-bare must run on bun, but pid 8 on port 3004 runs /usr/bin/node",
      },
      { check: CHECK, detail: "bun-bare must run on bun, but pid 10 on port 3004 runs /bun/deno" },
    ]);
  });

  test("by default it reads /proc: this test, listening on a port, runs bun, not node", async () => {
    const port = await standIn(() => {});
    const found = checkServingExecutable({ ...getApp("node-bare"), port });
    expect(found).toHaveLength(1);
    const prefix = `node-bare must run on node, but pid ${process.pid} on port ${port} runs `;
    expect(found[0]?.detail).toStartWith(prefix);
    expect(basename(found[0]?.detail.slice(prefix.length) ?? "")).toStartWith("bun");
  });

  test("only a local address on the app's own port is its registry port", () => {
    const at = (url: string) => onRegistryPort(new URL(url), APP);
    expect(at("http://127.0.0.1:3004")).toBe(true);
    expect(at("http://localhost:3004/")).toBe(true);
    expect(at("http://[::1]:3004")).toBe(true);
    expect(at("http://127.0.0.1:3005")).toBe(false);
    expect(at("http://10.0.0.7:3004")).toBe(false);
    // A side-by-side pair's second slot: any loopback address, not a look-alike.
    expect(at("http://127.0.0.2:3004")).toBe(true);
    expect(at("http://127.1.2.3:3004")).toBe(true);
    expect(at("http://128.0.0.2:3004")).toBe(false);
    expect(at("http://127.0.0.2.example:3004")).toBe(false);
    // Every octet may have up to three digits.
    expect(at("http://127.200.0.1:3004")).toBe(true);
    expect(at("http://127.0.200.1:3004")).toBe(true);
    expect(at("http://127.0.0.200:3004")).toBe(true);
  });

  test("the process asked about is the one listening at the app's address", () => {
    const seen: (string | undefined)[] = [];
    const at = {
      pidsListeningOn: (_port: number, address?: string) => {
        seen.push(address);
        return address === "127.0.0.2" ? [8] : [7];
      },
      executableOf: (pid: number) => (pid === 8 ? "/usr/bin/node" : "/usr/bin/bun"),
    };
    expect(checkServingExecutable(APP, at, "127.0.0.2")).toHaveLength(1);
    expect(checkServingExecutable(APP, at)).toEqual([]);
    expect(seen).toEqual(["127.0.0.2", undefined]);
  });
});

describe("servesAddress: a listening socket's local address as /proc/net/tcp prints it", () => {
  test("the address itself, its IPv4-mapped form, or a wildcard", () => {
    expect(servesAddress("0100007F", "127.0.0.1")).toBe(true);
    expect(servesAddress("0200007F", "127.0.0.2")).toBe(true);
    expect(servesAddress("0100007F", "127.0.0.2")).toBe(false);
    expect(servesAddress("0000000000000000FFFF00000200007F", "127.0.0.2")).toBe(true);
    expect(servesAddress("0000000000000000FFFF00000100007F", "127.0.0.2")).toBe(false);
    expect(servesAddress("00000000", "127.0.0.2")).toBe(true); // 0.0.0.0
    expect(servesAddress("00000000000000000000000000000000", "127.0.0.2")).toBe(true); // ::
    // No address, or not an IPv4 one: no filter.
    expect(servesAddress("0100007F", undefined)).toBe(true);
    expect(servesAddress("0100007F", "localhost")).toBe(true);
    expect(servesAddress("0100007F", "1.2.3")).toBe(true);
    expect(servesAddress("0100007F", "1.2.3.256")).toBe(true);
  });

  test("by default it reads /proc: a listener at 127.0.0.2 is found there and not at .1", async () => {
    const server = Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: () => new Response("") });
    try {
      const port = server.port as number;
      expect(pidsListeningOn(port, "127.0.0.2")).toEqual([process.pid]);
      expect(pidsListeningOn(port, "127.0.0.1")).toEqual([]);
      expect(pidsListeningOn(port)).toEqual([process.pid]);
    } finally {
      server.stop(true);
    }
  });
});

describe("verify(): every check it runs is in its answer", () => {
  const run = (origin: string) => verify(origin, "bun-bare", { timeoutMs: 2000 });

  test("the reference server conforms", async () => {
    expect(await run(serve())).toEqual([]);
  });

  test("a request that hangs is cut off at the timeout, and reported", async () => {
    // DELETE /api/test (a wrong method: 404) never answers; only its case sends it.
    const api = () => Response.json(apiPayload("bare"));
    const origin = serve({ "/api/test": { GET: api, DELETE: () => new Promise(() => {}) } });
    const found = await verify(origin, "bun-bare", { timeoutMs: 300 });
    expect(found.map((v) => v.check)).toEqual([
      "a known path with the wrong method is 404 (DELETE /api/test)",
    ]);
    expect(found[0]?.detail).toStartWith("request failed: ");
  });

  test("over the network, an answer without Content-Type is not taken for text/plain", async () => {
    const found = lines(await run(serve({ "/": { GET: () => new Response(null) } })));
    expect(found).toContain(`${GET_ROOT}: content-type "", expected "text/plain"`);
  });

  test("a 3xx is reported as it is, not followed", async () => {
    // POST / is a wrong method (404); this server sends the client on to the greeting.
    const origin = serve({
      "/": { GET: () => new Response(GREETING), POST: () => Response.redirect("/", 303) },
    });
    const statuses = (await run(origin)).filter((v) => v.detail.startsWith("status"));
    expect(lines(statuses)).toEqual([
      "a known path with the wrong method is 404 (POST /): status 303, expected 404",
    ]);
  });

  test("an over-limit chunked body answered 400 instead of 413 is reported", async () => {
    const echo = bare["/api/echo"]?.POST as Handler;
    const origin = serve({
      "/api/echo": {
        POST: (request, server) =>
          request.headers.has("transfer-encoding")
            ? Response.json(errorBody(ERRORS.bodyUnreadable), { status: 400 })
            : echo(request, server),
      },
    });
    expect(lines(await run(origin))).toEqual([
      `a chunked body over the limit is 413 before it ends: status 400, expected 413 (${ERRORS.tooLarge})`,
    ]);
  });

  test("the raw-wire checks report through verify(): Host, HEAD, pipelining", async () => {
    // One route wrong in three ways the wire checks see: a 404 behind a one-letter Host, a
    // HEAD whose Content-Length is not GET's, and a keep-alive connection it closes.
    const api = (request: Request) => {
      if (request.headers.get("host") === "a") {
        return Response.json(errorBody(ERRORS.notFound), { status: 404 });
      }
      return request.method === "HEAD"
        ? new Response(null, { headers: { "content-type": "application/json" } })
        : Response.json(apiPayload("bare"));
    };
    const found = (await run(serve({ "/api/test": { GET: api, HEAD: api } }))).map((v) => v.check);
    expect(found).toContain('GET /api/test with "Host: a" answers 200');
    expect(found).toContain("HEAD /api/test sends GET's Content-Length and Content-Type");
  });

  test("a wrong greeting is reported by the case and by the pipelined check", async () => {
    const found = await run(serve({ "/": { GET: () => new Response("Hello!") } }));
    expect(found.map((v) => v.check)).toEqual([
      GET_ROOT,
      "four pipelined requests come back as four strictly framed answers, in order",
    ]);
  });

  test("a middleware route that is wrong is reported", async () => {
    const etag = bare["/api/etag/items"] as Record<string, Handler>;
    const noTag = async (request: Request, server: Parameters<Handler>[1]) => {
      const answer = await (etag.GET as Handler)(request, server);
      const headers = new Headers(answer.headers);
      headers.delete("etag");
      return new Response(answer.status === 304 ? null : await answer.text(), {
        status: answer.status === 304 ? 200 : answer.status,
        headers,
      });
    };
    const found = await run(serve({ "/api/etag/items": { GET: noTag } }));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((v) => v.check.startsWith("etag:") || v.check.startsWith("stack:"))).toBe(
      true,
    );
  });
});

describe("hostile(): every way to fail it", () => {
  const GREETING_ANSWER = `HTTP/1.1 200 OK\r\nContent-Length: ${GREETING.length}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${GREETING}`;
  /** A raw server that answers GET / with the greeting and does `other` with anything else. */
  const rawServer = (other: (socket: Socket) => void) =>
    standIn(
      (socket) =>
        socket.once("data", (data) => {
          if (data.toString("latin1").startsWith("GET / ")) socket.end(GREETING_ANSWER);
          else other(socket);
        }),
      true, // a client's FIN alone closes nothing: the server decides
    );
  const attack = (origin: string, count: number, timeoutMs = 2000) =>
    hostile(origin, { count, concurrency: 1, timeoutMs });

  test("the reference server refuses all of it with a 4xx, counted by status", async () => {
    // The attack list: 10 rounds of [garbage + the 61 light bad requests], then the two heavy
    // ones (1 MiB + 1 byte: 413; 100,000 nested arrays: 400). Per round, by the cases'
    // expectations: 45 answers 400 (30 cases, 14 streamed-route counts, binary garbage), 3 are
    // 415, 7 are 404 (6 + the broken percent-encoding), 6 are 401.
    const report = await hostile(serve(), { count: 622, concurrency: 4, timeoutMs: 5000 });
    expect(report).toEqual({
      sent: 622,
      statuses: { "400": 451, "401": 60, "404": 70, "413": 1, "415": 30 },
      serverErrors: 0,
      accepted: 0,
      failures: 0,
      firstFailure: undefined,
      aliveAfter: true,
    });
    expect(survived(report)).toBe(true);
  });

  test("a 3xx to bad input is accepted input, reported as sent", async () => {
    const origin = serve({ "/api/echo": { POST: () => Response.redirect("/", 302) } });
    // The second attack is the first bad request: malformed JSON to echo.
    const report = await attack(origin, 2);
    expect(report).toMatchObject({
      statuses: { "302": 1 },
      accepted: 1,
      serverErrors: 0,
      failures: 0,
      firstFailure: "malformed JSON is 400: status 302",
      aliveAfter: true,
    });
    expect(survived(report)).toBe(false);
  });

  test("a 500 to bad input is a server error", async () => {
    const fail = () => Response.json(errorBody(ERRORS.internal), { status: 500 });
    const report = await attack(serve({ "/api/echo": { POST: fail } }), 2);
    expect(report).toMatchObject({
      statuses: { "500": 1 },
      accepted: 0,
      serverErrors: 1,
      failures: 0,
      firstFailure: "malformed JSON is 400: status 500",
    });
    expect(survived(report)).toBe(false);
  });

  test("a 4xx other than the case's is still a refusal", async () => {
    const teapot = () => Response.json(errorBody("no"), { status: 400 + 18 });
    const report = await attack(serve({ "/api/echo": { POST: teapot } }), 2);
    expect(report.statuses).toEqual({ "418": 1 });
    expect(survived(report)).toBe(true);
  });

  test("a garbage connection that hangs is a failure", async () => {
    const port = await rawServer((socket) => socket.resume());
    const report = await attack(`http://127.0.0.1:${port}`, 1, 150);
    expect(report).toEqual({
      sent: 1,
      statuses: {},
      serverErrors: 0,
      accepted: 0,
      failures: 1,
      firstFailure: "garbage connection neither answered nor closed in 150 ms",
      aliveAfter: true,
    });
    expect(survived(report)).toBe(false);
  });

  test("garbage answered 400 or hung up on is fine", async () => {
    const refuse = await rawServer((socket) =>
      socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    );
    expect(survived(await attack(`http://127.0.0.1:${refuse}`, 1, 1000))).toBe(true);
    const hangUp = await rawServer((socket) => socket.destroy());
    expect(survived(await attack(`http://127.0.0.1:${hangUp}`, 1, 1000))).toBe(true);
  });

  test("garbage answered with a reset is fine too", async () => {
    const reset = await rawServer((socket) => socket.resetAndDestroy());
    expect(survived(await attack(`http://127.0.0.1:${reset}`, 1, 1000))).toBe(true);
  });

  test("no more requests at once than the concurrency asked", async () => {
    let now = 0;
    let most = 0;
    const echo = async () => {
      most = Math.max(most, ++now);
      await new Promise((next) => setTimeout(next, 20));
      now--;
      return Response.json(errorBody(ERRORS.malformedJson), { status: 400 });
    };
    // Attacks 2 and 3 are malformed and empty JSON to echo.
    const report = await attack(serve({ "/api/echo": { POST: echo } }), 3);
    expect(report.statuses).toEqual({ "400": 2 });
    expect(most).toBe(1);
  });

  test("a bad request that gets no answer at all is a failure naming it", async () => {
    const port = await rawServer((socket) => socket.destroy());
    const report = await attack(`http://127.0.0.1:${port}`, 2);
    expect(report.failures).toBe(1);
    expect(report.firstFailure).toStartWith("malformed JSON is 400: ");
    expect(report.statuses).toEqual({});
    expect(survived(report)).toBe(false);
  });

  test("a wrong greeting afterwards is not alive", async () => {
    const report = await attack(serve({ "/": { GET: () => new Response("Hello!") } }), 2);
    expect(report).toMatchObject({ failures: 0, serverErrors: 0, accepted: 0, aliveAfter: false });
    expect(survived(report)).toBe(false);
  });

  test("the greeting with another status afterwards is not alive", async () => {
    const report = await attack(
      serve({ "/": { GET: () => new Response(GREETING, { status: 203 }) } }),
      2,
    );
    expect(report.aliveAfter).toBe(false);
  });

  test("no server afterwards is not alive", async () => {
    const report = await attack(`http://127.0.0.1:${await closedPort()}`, 0);
    expect(report).toEqual({
      sent: 0,
      statuses: {},
      serverErrors: 0,
      accepted: 0,
      failures: 0,
      firstFailure: undefined,
      aliveAfter: false,
    });
  });

  test("a conforming server answers each extra attack as its case says", async () => {
    const origin = serve();
    for (const attack of EXTRA_ATTACKS) {
      expect(attack.bad).toBe(true);
      const { method, path, headers, body } = attack.request;
      const answer = await fetch(new URL(path, origin), { method, headers, body });
      const mediaType = answer.headers.get("content-type")?.split(";")[0];
      await answer.arrayBuffer();
      expect({ status: answer.status, mediaType }).toEqual({
        status: attack.expect.status,
        mediaType: attack.expect.mediaType,
      });
    }
  });

  /**
   * A server that refuses everything 400 but the two extra attacks: binary garbage sent as JSON
   * is `binary` (5xx), the broken percent-encoding is `percent` (3xx). In the attack list they
   * come right after the garbage and the 59 light bad cases: attacks 61 and 62.
   */
  const extrasServer = (binary: number, percent: number) => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const url = new URL(request.url);
        if (url.pathname === "/" && request.method === "GET") return new Response(GREETING);
        const text = await request.text();
        const json = request.headers.get("content-type") === "application/json";
        if (json && text.startsWith("\u0000\u00ff")) return new Response(null, { status: binary });
        if (request.url.endsWith("/api/%E0%A4%A/%%zz"))
          return new Response(null, { status: percent });
        return Response.json(errorBody("no"), { status: 400 });
      },
    });
    cleanups.push(() => server.stop(true));
    return `http://127.0.0.1:${server.port}`;
  };

  test("the extra attacks are sent, and a failure names the one that failed", async () => {
    const binary = await attack(extrasServer(500, 400), 62);
    expect(binary).toMatchObject({
      statuses: { "400": 60, "500": 1 },
      serverErrors: 1,
      accepted: 0,
      firstFailure: "binary garbage as JSON: status 500",
    });
    const percent = await attack(extrasServer(400, 302), 62);
    expect(percent).toMatchObject({
      statuses: { "400": 60, "302": 1 },
      serverErrors: 0,
      accepted: 1,
      firstFailure: "a broken percent-encoding in the path: status 302",
    });
  });

  test("a greeting that never comes is cut off at the timeout: not alive", async () => {
    const port = await standIn((socket) => socket.resume());
    const report = await attack(`http://127.0.0.1:${port}`, 0, 100);
    expect(report.aliveAfter).toBe(false);
  });

  test("survived() needs all four: alive, no 5xx, nothing accepted, no failure", () => {
    const clean = {
      sent: 1,
      statuses: {},
      serverErrors: 0,
      accepted: 0,
      failures: 0,
      aliveAfter: true,
    };
    expect(survived(clean)).toBe(true);
    expect(survived({ ...clean, aliveAfter: false })).toBe(false);
    expect(survived({ ...clean, serverErrors: 1 })).toBe(false);
    expect(survived({ ...clean, accepted: 1 })).toBe(false);
    expect(survived({ ...clean, failures: 1 })).toBe(false);
  });
});

/**
 * abandonBodies() closes each of its connections 100 ms after writing: started before the other
 * tests and awaited after them, its 400 ms pass while they run. What each connection carried.
 */
let abandoned: Promise<{ port: number; received: string[] }>;
let stopAbandoned = () => {};
beforeAll(() => {
  abandoned = new Promise((done) => {
    const received: string[] = [];
    const server = createServer((socket) => {
      let text = "";
      socket.on("data", (data) => {
        text += data.toString("latin1");
      });
      socket.on("error", () => {});
      socket.on("close", () => received.push(text));
    });
    stopAbandoned = () => server.close();
    server.listen(0, "127.0.0.1", async () => {
      const { port } = server.address() as { port: number };
      await abandonBodies("127.0.0.1", port);
      // The last close may reach the server a moment after the client's.
      while (received.length < 4) await new Promise((next) => setTimeout(next, 5));
      done({ port, received });
    });
  });
});
afterAll(() => stopAbandoned());

describe("abandonBodies", () => {
  test("each POST route gets a body that stops short, then the client leaves", async () => {
    const { port, received } = await abandoned;
    const head = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`;
    const short = 'Content-Length: 1000\r\n\r\n{"a":1'; // 6 of the 1,000 bytes it declares
    const cut = 'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":'; // a 5-byte chunk cut at 4
    expect(received).toEqual([
      head("/api/echo") + short,
      head("/api/echo") + cut,
      head("/api/users/42") + short,
      head("/api/users/42") + cut,
    ]);
  });
});

describe("abandonBodies against a server that resets", () => {
  test("a reset is the end of that connection, not an error", async () => {
    let connections = 0;
    const port = await standIn((socket) => {
      connections++;
      socket.resetAndDestroy();
    });
    await abandonBodies("127.0.0.1", port);
    expect(connections).toBe(4);
  });
});

describe("the cases themselves", () => {
  test("every case is named (violations and results name them)", () => {
    for (const c of CASES) expect(c.name.length).toBeGreaterThan(10);
  });

  test("a bad case is one the contract refuses with a 4xx, and only those", () => {
    for (const c of CASES) {
      const refused = c.expect.status >= 400 && c.expect.status < 500;
      expect({ name: c.name, bad: c.bad }).toEqual({ name: c.name, bad: refused });
    }
  });

  test("the array echoed carries every JSON type: both booleans, an empty and a full string", () => {
    const array = CASES.find((c) => c.name === "POST /api/echo returns an array value unchanged");
    const value = JSON.parse(array?.request.body ?? "[]") as unknown[];
    const kinds = value.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v));
    expect(new Set(kinds)).toEqual(new Set(["number", "string", "object", "null", "boolean"]));
    expect(value.filter((v) => typeof v === "boolean")).toEqual([true, false]);
    expect(value.filter((v) => typeof v === "string").map((v) => v === "")).toEqual([false, true]);
  });

  test("each /api/me case sends what its name says", () => {
    const me = CASES.filter((c) => c.request.path === "/api/me");
    expect(me).toHaveLength(8);
    for (const c of me) {
      const authorization = c.request.headers?.authorization;
      if (c.name.includes("without Authorization")) expect(authorization).toBeUndefined();
      else if (c.name.includes("Basic")) expect(authorization).toStartWith("Basic ");
      else expect(authorization).toStartWith("Bearer ");
    }
    // The two valid tokens name different users, neither of them anonymous.
    const users = me.filter((c) => !c.bad).map((c) => JSON.parse(c.expect.body ?? "{}"));
    expect(users).toHaveLength(2);
    expect(users[0].sub).not.toBe(users[1].sub);
    for (const user of users) {
      expect(user.sub.length).toBeGreaterThan(0);
      expect(user.name.length).toBeGreaterThan(0);
    }
  });

  test("the array echoed has a fraction and a negative number JSON writes with an exponent", () => {
    const array = CASES.find((c) => c.name === "POST /api/echo returns an array value unchanged");
    const value = JSON.parse(array?.request.body ?? "[]") as unknown[];
    const object = value.find((v) => typeof v === "object" && v !== null && !Array.isArray(v));
    const numbers = Object.values(object ?? {}).flat() as number[];
    expect(numbers.some((n) => !Number.isInteger(n))).toBe(true);
    expect(numbers.some((n) => n < 0 && JSON.stringify(n).includes("e"))).toBe(true);
  });

  test("each refused request is wrong in the one way its name says", () => {
    const body = (name: string) => CASES.find((c) => c.name === name)?.request.body ?? "";
    const type = (name: string) => CASES.find((c) => c.name === name)?.request.headers;
    const update = (name: string) => JSON.parse(body(name));
    // A valid update but for the one field (the rules: validate.ts; the fixture's id is 42)
    expect(update("a name over 100 characters is 400").name).toHaveLength(101);
    const date = update("a lastUpdate that is no date is 400").lastUpdate;
    expect(typeof date === "string" && date.length > 0 && Number.isNaN(Date.parse(date))).toBe(
      true,
    );
    expect(update("an id given as a string is 400").id).toBe("42");
    const other = update("an id unlike the path's is 400");
    expect(Number.isInteger(other.id) && other.id !== 42 && other.name.length > 0).toBe(true);
    const listed = update("a user update that is an array is 400");
    expect(listed).toHaveLength(1);
    expect(listed[0].id).toBe(42);
    // Broken JSON is something, not nothing; the empty body is its own case.
    for (const name of ["malformed JSON is 400", "malformed JSON on a user update is 400"]) {
      expect(body(name).length).toBeGreaterThan(0);
      expect(() => JSON.parse(body(name))).toThrow();
    }
    expect(body("an empty JSON body is 400")).toBe("");
    // The wrong media type, or none, on a body that is good JSON
    for (const name of [
      "text/plain on a JSON route is 415",
      "text/plain on a user update is 415",
    ]) {
      expect(type(name)).toEqual({ "content-type": "text/plain" });
      expect(() => JSON.parse(body(name))).not.toThrow();
    }
    expect(type("a JSON route without Content-Type is 415")).toBeUndefined();
    expect(() => JSON.parse(body("a JSON route without Content-Type is 415"))).not.toThrow();
    expect(type("GET /api/me without Authorization is 401")).toBeUndefined();
  });

  test("the counts refused include the empty one", () => {
    expect(CASES.some((c) => c.request.path === "/api/items?count=" && c.bad)).toBe(true);
  });

  test("an error answer is JSON with an error message", () => {
    for (const c of CASES.filter((c) => c.expect.status !== 200)) {
      expect(c.expect.mediaType).toBe("application/json");
      expect(Object.keys(JSON.parse(c.expect.body ?? "null"))).toEqual(["error"]);
    }
  });
});

describe("verify(): each option adds its checks, and only when given", () => {
  const run = (origin: string, options: Parameters<typeof verify>[2]) =>
    verify(origin, "bun-bare", { timeoutMs: 2000, ...options });
  const checks = (violations: readonly Violation[]) => violations.map((v) => v.check);

  test("a stream built whole is reported: verify() runs the wire check of the streamed routes", async () => {
    const whole = () =>
      new Response("x".repeat(1024), { headers: { "content-type": "text/plain" } });
    const found = checks(await run(serve({ [STREAM_ROUTES.stream]: { GET: whole } }), {}));
    expect(found.some((c) => c.startsWith(`GET ${STREAM_ROUTES.stream}?bytes=`))).toBe(true);
    expect(
      found.some((c) => c.endsWith("is streamed: chunked, no Content-Length, the exact body")),
    ).toBe(true);
  });

  test("tlsCa: every case over HTTPS too (nothing serves it here); http2 adds the h2 session", async () => {
    // Each run on a server of its own (the rate-limited route counts every request it is sent).
    // The stand-in serves no TLS: every case over HTTPS fails, and no h2 session opens.
    const tls = checks(await run(serve(), { tlsCa: "not a certificate" }));
    expect(tls.length).toBeGreaterThan(50);
    expect(tls.every((c) => c.startsWith("over HTTPS: "))).toBe(true);
    const h2 = checks(await run(serve(), { tlsCa: "not a certificate", http2: true }));
    expect(h2.filter((c) => !c.startsWith("over HTTPS: "))).toEqual([
      "over HTTP/2: an app that cannot serve it offers no h2",
    ]);
    expect(h2.length).toBe(tls.length + 1);
    // http2 without a certificate: no TLS port to ask.
    expect(await run(serve(), { http2: true })).toEqual([]);
  });

  test("h2c: every case over cleartext HTTP/2 too, on the app's h2c port; Bun.serve refuses it", async () => {
    // node-bare's h2c port is its port + 2000: nothing listens there beside the stand-in. Each
    // run on a server of its own (the rate-limited route counts every request it is sent).
    const origin = serve();
    const port = Number(new URL(origin).port);
    const plain = checks(await verify(serve(), "node-bare", { timeoutMs: 2000 }));
    const h2c = checks(await verify(origin, "node-bare", { timeoutMs: 2000, h2c: true }));
    expect(h2c.filter((c) => !plain.includes(c))).toEqual([
      `over h2c: an HTTP/2 session on port ${port + 2000}`,
    ]);
    expect(h2c.length).toBe(plain.length + 1);
    // bun-bare cannot serve it, and the stand-in (Bun.serve) gives no HTTP/2 answer: no violation.
    expect(await run(serve(), { h2c: true })).toEqual([]);
  });

  test("websocket: the probe runs, and behind several processes leaves broadcast out", async () => {
    const refuse = () => Response.json(errorBody(ERRORS.notFound), { status: 404 });
    const noBroadcast = () => serve({ [WS_ROUTES.broadcast]: { GET: refuse } });
    expect(await run(noBroadcast(), {})).toEqual([]);
    expect(checks(await run(noBroadcast(), { websocket: true }))).toEqual([
      "ws broadcast: to the others, not the sender",
    ]);
    expect(await run(noBroadcast(), { websocket: true, processes: 2 })).toEqual([]);
    const noEcho = serve({ [WS_ROUTES.echo]: { GET: refuse } });
    const echo = checks(await run(noEcho, { websocket: true, processes: 2 }));
    expect(echo.length).toBeGreaterThan(0);
    expect(echo.every((c) => c.startsWith("ws "))).toBe(true);
  });

  test("database: the database routes are checked against the file given", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lenient-db-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "other.db");
    createWorldDb(file);
    // The stand-in serves a database of its own (in memory): its rows are not the file's.
    const found = checks(await run(serve(), { database: file }));
    expect(found).toContain("GET /fortunes");
    expect(found).toContain("GET /updates?queries=20");
  });
});
