// The middleware routes' scoping and parts, on what the contract's checks do not look at: that
// the existing routes compile as before, concurrent requests to the rate limiter, and the header
// parsers' edge cases.
import { describe, expect, test } from "bun:test";
import { MIDDLEWARE_ROUTES, RATE_LIMIT, ROUTES } from "@bench/contract";
import { createApp } from "../src/index.ts";
import { acceptsGzip, noneMatch, WindowCounts } from "../src/middleware.ts";

const get = (path: string) => new Request(`http://localhost${path}`);

describe("scoping", () => {
  test("nothing of the middleware reaches the app's own routes", () => {
    const app = createApp();
    app.compile();
    // What a route compiles from besides its own hooks: the app's inference (what to parse for
    // every request), its decorators and default headers (copied into every context), and its
    // app-wide events. The base app has only its error handler. (Elysia types the first two
    // as internal.)
    const internals = app as unknown as { inference: object; setHeaders?: object };
    expect(Object.values(internals.inference).some(Boolean)).toBe(false);
    expect(Object.keys(app.decorator)).toEqual([]);
    expect(internals.setHeaders).toBeUndefined();
    const events = Object.entries(app.event).filter(([, hooks]) => hooks?.length);
    expect(events.map(([name, hooks]) => [name, hooks?.length])).toEqual([["error", 1]]);
    const api = app.router.history.find((route) => route.path === ROUTES.api);
    expect(Object.keys(api?.hooks ?? {}).filter((name) => name !== "error")).toEqual([]);
  });

  test("the rate limit counts /api/limited only", async () => {
    const app = createApp({}, { clientAddress: () => "192.0.2.1" });
    for (let i = 0; i < RATE_LIMIT.max + 1; i++) await app.handle(get(ROUTES.api));
    expect((await app.handle(get(MIDDLEWARE_ROUTES.limited))).status).toBe(200);
  });
});

describe("rate limit", () => {
  test("requests in flight together are counted one by one", async () => {
    const app = createApp({}, { clientAddress: () => "192.0.2.1" });
    const answers = await Promise.all(
      Array.from({ length: RATE_LIMIT.max + 1 }, () => app.handle(get(MIDDLEWARE_ROUTES.limited))),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(RATE_LIMIT.max).fill(200), 429]);
  });

  test("each client address has its own window", async () => {
    let client = "192.0.2.1";
    const app = createApp({}, { clientAddress: () => client });
    for (let i = 0; i < RATE_LIMIT.max; i++) await app.handle(get(MIDDLEWARE_ROUTES.limited));
    expect((await app.handle(get(MIDDLEWARE_ROUTES.limited))).status).toBe(429);
    client = "192.0.2.2";
    expect((await app.handle(get(MIDDLEWARE_ROUTES.limited))).status).toBe(200);
  });

  test("a window ends after its duration, and the oldest windows go first", () => {
    const counts = new WindowCounts();
    counts.init({ duration: 0 } as Parameters<WindowCounts["init"]>[0]);
    expect(counts.increment("a").count).toBe(1);
    expect(counts.increment("a").count).toBe(1);
    counts.init({ duration: 60_000 } as Parameters<WindowCounts["init"]>[0]);
    const first = counts.increment("b");
    expect(counts.increment("b").count).toBe(2);
    expect(first.count).toBe(1);
    for (let i = 0; i < 5000; i++) counts.increment(`client ${i}`);
    expect(counts.increment("b").count).toBe(1);
  });
});

describe("header parsing", () => {
  test("Accept-Encoding: gzip with a weight above zero", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("br, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.000")).toBe(false);
    expect(acceptsGzip("deflate, br")).toBe(false);
    expect(acceptsGzip("x-gzip")).toBe(false);
    expect(acceptsGzip(null)).toBe(false);
  });

  test("If-None-Match: weak comparison, lists and *", () => {
    const tag = 'W/"abc"';
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch('"abc"', tag)).toBe(true);
    expect(noneMatch('"x", W/"abc"', tag)).toBe(true);
    expect(noneMatch("*", tag)).toBe(true);
    expect(noneMatch('"abcd"', tag)).toBe(false);
    expect(noneMatch("", tag)).toBe(false);
    expect(noneMatch(null, tag)).toBe(false);
  });
});
