// verify() must catch an app whose middleware is lenient or wrong, not just pass good ones:
// each server here is the reference server (bun-bare's routes) with one middleware rule broken.
import { afterEach, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import {
  apiPayload,
  buildItems,
  CORS,
  checkMiddleware,
  ERRORS,
  errorBody,
  MIDDLEWARE_ROUTES,
  mePayload,
  stackPayload,
  type Violation,
  verify,
} from "../src/index.ts";
import { type Overrides, referenceServe } from "./support/reference-server.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

/** The middleware checks against the reference server with `breakIt`'s routes swapped in. */
async function checked(breakIt: Overrides): Promise<Violation[]> {
  server = referenceServe("bare", 0, breakIt);
  return checkMiddleware("127.0.0.1", server.port as number, { ...bunBare }, 2000);
}
const bunBare = { name: "bun-bare", runtime: "bun", framework: "bare", port: 3004 } as const;

const items = JSON.stringify(buildItems(100));
const gzipJson = (text: string, headers: Record<string, string> = {}) =>
  new Response(gzipSync(text), {
    headers: { "content-type": "application/json", "content-encoding": "gzip", ...headers },
  });
const checks = (violations: Violation[]) => [...new Set(violations.map((v) => v.check))];

describe("the middleware checks", () => {
  test("the reference server conforms, and verify() runs them", async () => {
    expect(await checked({})).toEqual([]);
    server?.stop(true);
    server = referenceServe("bare", 0);
    expect(
      await verify(`http://127.0.0.1:${server.port}`, "bun-bare", { timeoutMs: 2000 }),
    ).toEqual([]);
  });

  test("a JWT check that forgets exp lets the expired token in", async () => {
    server = referenceServe("bare", 0, {
      [MIDDLEWARE_ROUTES.me]: {
        GET: (request) =>
          request.headers.get("authorization")?.startsWith("Bearer ey")
            ? Response.json(mePayload())
            : Response.json(errorBody(ERRORS.unauthorized), { status: 401 }),
      },
    });
    const violations = await verify(`http://127.0.0.1:${server.port}`, "bun-bare", {
      timeoutMs: 2000,
    });
    expect(checks(violations)).toEqual([
      "GET /api/me with an expired token is 401",
      "GET /api/me with a token signed by another secret is 401",
      'GET /api/me with an unsigned ("alg": "none") token is 401',
    ]);
  });

  test("a preflight with another max age, or allowing every origin, is reported", async () => {
    const preflight = (origin: string) =>
      new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": origin,
          "access-control-allow-methods": CORS.allowMethods,
          "access-control-allow-headers": CORS.allowHeaders,
          "access-control-max-age": "60",
        },
      });
    const violations = await checked({
      [MIDDLEWARE_ROUTES.public]: {
        OPTIONS: () => preflight("*"),
        GET: () =>
          Response.json(apiPayload("bare"), { headers: { "access-control-allow-origin": "*" } }),
      },
    });
    expect(violations.map((v) => v.detail)).toEqual([
      `access-control-allow-origin: "*", expected ${CORS.allowedOrigin}`,
      'access-control-max-age: "60", expected 600',
      'access-control-allow-origin: "*", expected none',
      `access-control-allow-origin: "*", expected ${CORS.allowedOrigin}`,
      'access-control-allow-origin: "*", expected none',
    ]);
  });

  test("gzip: an uncompressed answer, a missing Vary, a body that is not the items", async () => {
    const plain = await checked({
      [MIDDLEWARE_ROUTES.gzipItems]: {
        GET: () => new Response(items, { headers: { "content-type": "application/json" } }),
      },
    });
    expect(plain.map((v) => v.detail)).toEqual([
      "no vary header, expected /(^|,)\\s*accept-encoding\\s*(,|$)/i",
      "content-encoding none, expected gzip",
    ]);
    server?.stop(true);
    const wrong = await checked({
      [MIDDLEWARE_ROUTES.gzipItems]: {
        GET: () => gzipJson(JSON.stringify(buildItems(99)), { vary: "Accept-Encoding" }),
      },
    });
    expect(checks(wrong)).toEqual([
      "gzip: GET /api/gzip/items?count=100 accepting gzip is the items, gzip-compressed",
      "gzip: GET /api/gzip/items?count=100 without Accept-Encoding is the items, uncompressed",
    ]);
    expect(wrong[0]?.detail).toStartWith("body ");
  });

  test("an ETag that If-None-Match never matches is reported", async () => {
    const violations = await checked({
      [MIDDLEWARE_ROUTES.etagItems]: {
        GET: () =>
          new Response(items, { headers: { "content-type": "application/json", etag: '"v1"' } }),
      },
    });
    expect(violations).toEqual([
      {
        check: "etag: If-None-Match with its ETag is 304, no body, the same ETag",
        detail: "status 200, expected 304",
      },
      {
        check: "etag: If-None-Match with its ETag is 304, no body, the same ETag",
        detail: `a ${items.length}-byte body, expected none`,
      },
    ]);
  });

  test("a limiter that never limits, or limits without Retry-After, is reported", async () => {
    const never = await checked({
      [MIDDLEWARE_ROUTES.limited]: { GET: () => Response.json(apiPayload("bare")) },
    });
    expect(never.map((v) => v.detail)).toContain("answer 11: status 200, expected 429");
    server?.stop(true);
    let n = 0;
    const silent = await checked({
      [MIDDLEWARE_ROUTES.limited]: {
        GET: () =>
          ++n <= 10
            ? Response.json(apiPayload("bare"))
            : Response.json(errorBody(ERRORS.tooManyRequests), { status: 429 }),
      },
    });
    expect(silent.map((v) => v.detail)).toEqual([
      "answer 11: no retry-after header, expected /^[1-9]\\d*$/",
    ]);
  });

  test("a stack whose auth runs before CORS loses the CORS header on its 401", async () => {
    const violations = await checked({
      [MIDDLEWARE_ROUTES.stackMe]: {
        GET: (request) => {
          if (!request.headers.get("authorization")) {
            return Response.json(errorBody(ERRORS.unauthorized), { status: 401 });
          }
          const cors = { "access-control-allow-origin": CORS.allowedOrigin };
          if (request.headers.get("if-none-match") === 'W/"s1"') {
            return new Response(null, { status: 304, headers: { ...cors, etag: 'W/"s1"' } });
          }
          return gzipJson(JSON.stringify(stackPayload()), {
            ...cors,
            vary: "Accept-Encoding",
            etag: 'W/"s1"',
          });
        },
      },
    });
    expect(violations).toEqual([
      {
        check: "stack: no token is 401, with the CORS header (CORS runs before auth)",
        detail: `no access-control-allow-origin header, expected ${CORS.allowedOrigin}`,
      },
    ]);
  });
});
