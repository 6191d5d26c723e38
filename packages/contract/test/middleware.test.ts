// verify() must catch an app whose middleware is lenient or wrong, not just pass good ones:
// each server here is the reference server (bun-bare's routes) with one middleware rule broken.
import { afterEach, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { checkMiddleware, type Violation, verify } from "../src/check.ts";
import {
  apiPayload,
  bearer,
  buildItems,
  CORS,
  ERRORS,
  errorBody,
  MIDDLEWARE_ROUTES,
  mePayload,
  ROUTES,
  stackPayload,
  TOKENS,
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
    // Reads the token's claims and checks nothing: not the signature, not exp.
    const claims = (authorization: string) =>
      JSON.parse(Buffer.from(authorization.split(".")[1] ?? "", "base64url").toString());
    server = referenceServe("bare", 0, {
      [MIDDLEWARE_ROUTES.me]: {
        GET: (request) => {
          const authorization = request.headers.get("authorization") ?? "";
          if (!authorization.startsWith("Bearer ey")) {
            return Response.json(errorBody(ERRORS.unauthorized), { status: 401 });
          }
          const { sub, name } = claims(authorization);
          return Response.json({ sub, name });
        },
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

  test("an app that knows the one valid token and answers its user verbatim is caught", async () => {
    server = referenceServe("bare", 0, {
      [MIDDLEWARE_ROUTES.me]: {
        GET: (request) =>
          request.headers.get("authorization") === bearer(TOKENS.valid)
            ? Response.json(mePayload())
            : Response.json(errorBody(ERRORS.unauthorized), { status: 401 }),
      },
    });
    const violations = await verify(`http://127.0.0.1:${server.port}`, "bun-bare", {
      timeoutMs: 2000,
    });
    expect(checks(violations)).toEqual([
      "GET /api/me with a token for a user named afresh answers that user (no fixed answer)",
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

  /** The items of the request's count, with `tag`'s ETag; 304 when `matches` says so. */
  const etagged =
    (tag: (count: number) => string, matches: (inm: string | null, etag: string) => boolean) =>
    (request: Request) => {
      const count = Number(new URL(request.url).searchParams.get("count"));
      const etag = tag(count);
      if (matches(request.headers.get("if-none-match"), etag)) {
        return new Response(null, { status: 304, headers: { etag } });
      }
      const body = JSON.stringify(buildItems(count));
      return new Response(body, { headers: { "content-type": "application/json", etag } });
    };

  test("an ETag that If-None-Match never matches is reported", async () => {
    const violations = await checked({
      [MIDDLEWARE_ROUTES.etagItems]: {
        GET: etagged(
          (n) => `"v${n}"`,
          () => false,
        ),
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

  test("a constant ETag, which would hash nothing, is reported", async () => {
    const violations = await checked({
      [MIDDLEWARE_ROUTES.etagItems]: {
        GET: etagged(
          () => '"v1"',
          (inm, etag) => inm === etag,
        ),
      },
    });
    const check =
      "etag: GET /api/etag/items?count=99 has another ETag, and /api/etag/items?count=100's does not match it";
    expect(violations).toEqual([
      { check, detail: 'the same ETag "v1" for both' },
      { check, detail: "status 304, expected 200" },
    ]);
  });

  test("the routes that were there before get no middleware", async () => {
    const violations = await checked({
      [ROUTES.api]: {
        GET: () =>
          Response.json(apiPayload("bare"), {
            headers: { "access-control-allow-origin": CORS.allowedOrigin },
          }),
      },
      [ROUTES.items]: {
        GET: () => gzipJson(items, { etag: '"i1"', vary: "Accept-Encoding" }),
      },
    });
    expect(violations.map((v) => `${v.check}: ${v.detail}`)).toEqual([
      `plain routes: GET /api/test gets no middleware: access-control-allow-origin: "${CORS.allowedOrigin}", expected none`,
      `plain routes: GET /api/items?count=100 gets no middleware: etag: ${JSON.stringify('"i1"')}, expected none`,
      "plain routes: GET /api/items?count=100 gets no middleware: content-encoding gzip, expected none",
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
      "no retry-after header, expected /^[1-9]\\d*$/",
    ]);
  });

  test("a limiter keyed by connection, not by address, is reported", async () => {
    const hits = new Map<number, number>();
    const violations = await checked({
      [MIDDLEWARE_ROUTES.limited]: {
        GET: (request, bun) => {
          const port = bun.requestIP(request)?.port ?? 0;
          const n = (hits.get(port) ?? 0) + 1;
          hits.set(port, n);
          return n <= 10
            ? Response.json(apiPayload("bare"))
            : Response.json(errorBody(ERRORS.tooManyRequests), {
                status: 429,
                headers: { "retry-after": "60" },
              });
        },
      },
    });
    expect(violations.map((v) => `${v.check}: ${v.detail}`)).toEqual([
      "ratelimit: the limit is the client address's, so a new connection is still limited: status 200, expected 429",
      "ratelimit: the limit is the client address's, so a new connection is still limited: no retry-after header, expected /^[1-9]\\d*$/",
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
