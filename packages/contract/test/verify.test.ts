// verify() must catch broken apps, not just pass good ones: each server here breaks one rule.
import { afterEach, describe, expect, test } from "bun:test";
import { serveOptions } from "../../../apps/bun-bare/src/app.ts";
import { checkPipelined, headProblems, parseAnswer, parseStrict, verify } from "../src/check.ts";
import { apiPayload, ERRORS, errorBody, GREETING } from "../src/index.ts";
import { type Overrides, referenceServe } from "./support/reference-server.ts";

/** The reference server on a free port; `breakIt` replaces routes. */
const conforming = (breakIt: Overrides = {}) => referenceServe("bare", 0, breakIt);

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

const run = async (s: ReturnType<typeof Bun.serve>) => {
  server = s;
  return verify(`http://127.0.0.1:${s.port}`, "bun-bare", { timeoutMs: 2000 });
};

describe("verify", () => {
  test("a conforming server has no violations", async () => {
    expect(await run(conforming())).toEqual([]);
  });

  test("a wrong greeting is reported", async () => {
    const violations = await run(conforming({ "/": { GET: () => new Response("Hello!") } }));
    expect(violations.map((v) => v.check)).toEqual([
      "GET / answers the greeting as text/plain",
      "four pipelined requests come back as four strictly framed answers, in order",
    ]);
    expect(violations[0]?.detail).toContain('body "Hello!"');
    expect(violations[1]?.detail).toBe('answer 1 (GET /): status 200, body "Hello!"');
  });

  test("JSON served as text is reported", async () => {
    const violations = await run(
      conforming({
        "/api/test": { GET: () => new Response(JSON.stringify(apiPayload("bare"))) },
      }),
    );
    expect(violations.map((v) => v.detail).join()).toContain('content-type "text/plain"');
  });

  test("a frozen timestamp is reported", async () => {
    const frozen = { ...apiPayload("bare"), timestamp: Date.now() };
    const violations = await run(conforming({ "/api/test": { GET: () => Response.json(frozen) } }));
    expect(violations.map((v) => v.check)).toEqual([
      "GET /api/test timestamp changes between requests",
    ]);
  });

  test("a bun app that claims another framework is reported", async () => {
    server = conforming({ "/api/test": { GET: () => Response.json(apiPayload("hono")) } });
    const violations = await verify(`http://127.0.0.1:${server.port}`, "bun-bare");
    expect(violations.map((v) => v.detail).join()).toContain('framework "hono"');
  });

  test("a node-labelled app served by Bun is a runtime-identity violation", async () => {
    server = conforming();
    const violations = await verify(`http://127.0.0.1:${server.port}`, "node-bare");
    expect(violations.map((v) => v.detail).join()).toContain(
      "runtime identity: node-bare must be served by node",
    );
  });

  test("a server that buffers the whole body before checking its size is reported", async () => {
    const violations = await run(
      conforming({
        "/api/echo": {
          POST: async (req) => {
            const text = await req.text(); // unbounded: waits for the end of the body
            return Response.json(errorBody(ERRORS.tooLarge), {
              status: text.length > 10 ? 413 : 400,
            });
          },
        },
      }),
    );
    const streaming = violations.filter(
      (v) => v.check === "a chunked body over the limit is 413 before it ends",
    );
    expect(streaming.map((v) => v.detail)).toEqual([
      "no answer within 2000 ms: the body is buffered?",
    ]);
  }, 20_000);

  test("a 500 on malformed JSON is reported", async () => {
    const violations = await run(
      conforming({
        "/api/echo": {
          POST: async (req) => {
            try {
              return Response.json(JSON.parse(await req.text()));
            } catch {
              return Response.json(errorBody(ERRORS.internal), { status: 500 });
            }
          },
        },
      }),
    );
    const malformed = violations.filter((v) => v.check === "malformed JSON is 400");
    expect(malformed.map((v) => v.detail)).toContain("status 500, expected 400");
  }, 20_000); // its handler reads the whole body: the streaming check waits out its 2 s

  test("an app that is not there is reported, not thrown", async () => {
    const violations = await verify("http://127.0.0.1:1", "bun-bare", { timeoutMs: 2000 });
    expect(violations.length).toBeGreaterThan(5);
    expect(violations[0]?.detail).toContain("request failed");
  });

  test("unknown app names are refused", async () => {
    expect(verify("http://127.0.0.1:1", "deno-oak")).rejects.toThrow(/unknown app/);
  });
});

describe("HEAD", () => {
  test("HEAD answered as an unknown route (404) is reported", async () => {
    const notFound = () => Response.json(errorBody(ERRORS.notFound), { status: 404 });
    const violations = await run(
      conforming({ "/": { GET: () => new Response(GREETING), HEAD: notFound } }),
    );
    expect([...new Set(violations.map((v) => v.check))]).toEqual([
      "HEAD / answers as GET does, without a body",
      "HEAD / sends GET's Content-Length and Content-Type",
    ]);
    expect(violations.map((v) => v.detail)).toContain("status 404, expected 200");
  });

  test("HEAD with another Content-Type than GET's is reported", async () => {
    const violations = await run(
      conforming({
        "/api/items": {
          GET: serveOptions.routes["/api/items"].GET,
          HEAD: () => new Response(null, { headers: { "content-type": "text/html" } }),
        },
      }),
    );
    expect([...new Set(violations.map((v) => v.check))]).toEqual([
      "HEAD /api/items?count=3 answers as GET does, without a body",
      "HEAD /api/items?count=100 sends GET's Content-Length and Content-Type",
    ]);
  });

  test("HEAD with Content-Length: 0 where GET has a body is reported (bun-hono and deno-hono did)", async () => {
    const type = { "content-type": "application/json;charset=utf-8" };
    const empty = () => new Response(null, { headers: type });
    const api = () => Response.json(apiPayload("bare"));
    const violations = await run(conforming({ "/api/test": { GET: api, HEAD: empty } }));
    expect(violations.map((v) => `${v.check}: ${v.detail}`)).toEqual([
      expect.stringMatching(
        /^HEAD \/api\/test sends GET's Content-Length and Content-Type: HEAD Content-Length 0, but GET's body is \d+ bytes$/,
      ),
    ]);
  });
});

describe("Host headers", () => {
  // node-elysia and deno-elysia cut the path at the 11th character of the URL: with a host of
  // 1–3 characters, every route answered 404.
  const shortHostBlind =
    (answer: () => Response) =>
    (req: Request): Response =>
      (req.headers.get("host") ?? "").length < 4
        ? Response.json(errorBody(ERRORS.notFound), { status: 404 })
        : answer();

  test("a server that loses its routes behind a short Host name is reported, per name", async () => {
    const api = shortHostBlind(() => Response.json(apiPayload("bare")));
    const violations = await run(conforming({ "/api/test": { GET: api } }));
    expect(violations.map((v) => v.check)).toEqual([
      'GET /api/test with "Host: a" answers 200',
      'GET /api/test with "Host: db" answers 200',
      'GET /api/test with "Host: api" answers 200',
      "GET /api/test over HTTP/1.0 without a Host answers 200",
    ]);
    expect(violations[0]?.detail).toBe("status 404, expected 200");
  });

  test("a wrong body behind a short Host name is reported too", async () => {
    const user = (req: Request) =>
      (req.headers.get("host") ?? "") === "api:80"
        ? Response.json({ id: 7 })
        : serveOptions.routes["/api/users/:id"].GET(req as never);
    const violations = await run(
      conforming({
        "/api/users/:id": {
          ...(serveOptions.routes["/api/users/:id"] as unknown as Overrides[string]),
          GET: user,
        },
      }),
    );
    expect(violations.map((v) => `${v.check}: ${v.detail}`)).toEqual([
      `GET /api/users/42 with "Host: api:80" answers 200: body ${JSON.stringify('{"id":7}')} is not user 42`,
    ]);
  });
});

describe("parseAnswer", () => {
  test("reads the status, lower-cased headers and a chunked body", () => {
    const answer = parseAnswer(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n" +
        "Vary: Accept-Encoding\r\nVary: Origin\r\n\r\n" +
        "5\r\nHello\r\n7\r\n, world\r\n0\r\n\r\n",
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/plain");
    expect(answer.headers.get("vary")).toBe("Accept-Encoding, Origin");
    expect(answer.body).toBe("Hello, world");
  });

  test("an answer cut before its headers end is an error", () => {
    expect(() => parseAnswer("HTTP/1.1 200 OK\r\nContent-")).toThrow(/no complete answer/);
  });
});

describe("headProblems", () => {
  const answer = (headers: Record<string, string>, body = "", status = 200) => ({
    status,
    headers: new Map(Object.entries(headers)),
    body,
  });
  const get = answer({ "content-type": "application/json", "content-length": "7" }, '{"a":1}');

  test("no Content-Length, or GET's, and GET's Content-Type or none, are right", () => {
    expect(headProblems(get, answer({}))).toEqual([]);
    expect(headProblems(get, answer({ "content-length": "7" }))).toEqual([]);
    expect(headProblems(get, answer({ "content-type": "application/json" }))).toEqual([]);
  });

  test("a GET without Content-Length is measured by its body", () => {
    const chunked = answer({ "transfer-encoding": "chunked" }, '{"a":1}');
    expect(headProblems(chunked, answer({ "content-length": "7" }))).toEqual([]);
    expect(headProblems(chunked, answer({ "content-length": "0" }))).toEqual([
      "HEAD Content-Length 0, but GET's body is 7 bytes",
    ]);
  });

  test("another status, Content-Type or a body are each reported", () => {
    const head = answer({ "content-type": "text/html" }, "x", 404);
    expect(headProblems(get, head)).toEqual([
      "HEAD status 404, GET 200",
      'HEAD Content-Type "text/html", GET "application/json"',
      "HEAD carries a body of 1 bytes",
    ]);
  });
});

describe("parseStrict (pipelined answers)", () => {
  const ok = (body: string, extra = "") =>
    `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

  test("answers framed by Content-Length and by chunks, in order", () => {
    const chunked =
      "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    const repeated = "Retry-After: 7\r\nVary: Accept-Encoding\r\nVary: Origin\r\n";
    const answers = parseStrict(ok("one") + chunked + ok("", repeated));
    expect(answers.map(({ status, body }) => ({ status, body }))).toEqual([
      { status: 200, body: "one" },
      { status: 404, body: "abcde" },
      { status: 200, body: "" },
    ]);
    expect(answers[1]?.headers.get("transfer-encoding")).toBe("chunked");
    expect(answers[2]?.headers.get("retry-after")).toBe("7");
    // A list header on several lines (Deno sends each Vary value on its own) is one list.
    expect(answers[2]?.headers.get("vary")).toBe("Accept-Encoding, Origin");
  });

  test.each([
    [`${ok("one")}junk`, "answer 2: its headers never end"],
    [`${ok("one")}\r\n`, "answer 2: its headers never end"],
    ["HTTP/1.1 200 OK\r\n\r\nbody", "answer 1: no usable Content-Length (undefined)"],
    [ok("one", "Transfer-Encoding: chunked\r\n"), "answer 1: both chunked and Content-Length"],
    [ok("one", "Content-Length: 3\r\n"), "answer 1: Content-Length twice"],
    [ok("one", "Bad Header\r\n"), 'answer 1: bad header line "Bad Header"'],
    [
      "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
      "answer 1: body shorter than its Content-Length",
    ],
    [
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",
      "answer 1: chunk not closed by CRLF",
    ],
    ["HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 'answer 1: bad status line "HTTP/1.0 200 OK"'],
  ])("%j is refused: %s", (text, message) => {
    expect(() => parseStrict(text)).toThrow(message);
  });
});

describe("pipelined requests, against a live server", () => {
  test("a conforming server answers all four, in order", async () => {
    server = conforming();
    expect(await checkPipelined("127.0.0.1", server.port as number, 2000)).toEqual([]);
  });

  test("a server that answers the first of them and hangs up is reported", async () => {
    const greeting = `HTTP/1.1 200 OK\r\nContent-Length: ${GREETING.length}\r\n\r\n${GREETING}`;
    const once = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.end(greeting);
        },
      },
    });
    try {
      expect(await checkPipelined("127.0.0.1", once.port, 2000)).toEqual([
        {
          check: "four pipelined requests come back as four strictly framed answers, in order",
          detail: "1 answers to 4 requests",
        },
      ]);
    } finally {
      once.stop(true);
    }
  });
});
