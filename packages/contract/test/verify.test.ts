// verify() must catch broken apps, not just pass good ones: each server here breaks one rule.
import { afterEach, describe, expect, test } from "bun:test";
import { apiPayload, ERRORS, errorBody, getApp, verify } from "../src/index.ts";
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

test("the registry port check is skipped for other ports", () => {
  expect(getApp("bun-bare").port).toBe(3004);
});
