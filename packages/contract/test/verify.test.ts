// verify() must catch broken apps, not just pass good ones: each server here breaks one rule.
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { serveOptions } from "../../../apps/bun-bare/src/app.ts";
import {
  apiPayload,
  checkServingExecutable,
  ERRORS,
  errorBody,
  GREETING,
  getApp,
  pidsListeningOn,
  verify,
} from "../src/index.ts";
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
    expect(violations).toHaveLength(1);
    expect(violations[0]?.check).toBe("GET / answers the greeting as text/plain");
    expect(violations[0]?.detail).toContain('body "Hello!"');
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
  });

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
    expect(violations.map((v) => v.check)).toEqual([
      "HEAD /api/items?count=3 answers as GET does, without a body",
    ]);
  });
});

describe("the runtime identity check of the registry port", () => {
  // A process that is not Bun holds bun-bare's port while the server under test runs
  // elsewhere: only the app on the registry port may be judged by that port's executable.
  test("is skipped for a server on another port", async () => {
    const port = getApp("bun-bare").port;
    const holder = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1"], {
      stdio: "ignore",
    });
    try {
      for (let i = 0; i < 100 && pidsListeningOn(port).length === 0; i++) await Bun.sleep(50);
      expect(pidsListeningOn(port)).toEqual([holder.pid as number]);
      expect(await run(conforming())).toEqual([]);
      // ...and the same check does judge whatever holds the registry port
      expect(checkServingExecutable(getApp("bun-bare"))[0]?.detail).toContain("must run on bun");
    } finally {
      holder.kill("SIGKILL");
      await new Promise((done) => holder.once("exit", done));
    }
  });
});
