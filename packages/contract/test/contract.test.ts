import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WS_ROUTES } from "@bench/contract/ws";
import {
  apiPayloadProblems,
  CASES,
  checkDatabase,
  checkMiddleware,
  jsonOfSize,
  sqliteProbe,
} from "../src/check.ts";
import {
  APPS,
  baselineOf,
  detectRuntime,
  ECHO_BODY,
  ERRORS,
  findApp,
  getApp,
  isClientGone,
  isJsonContentType,
  isStage,
  jsonDocumentError,
  loadedByWsLoad,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  openWorldDb,
  readBodyText,
  SCENARIOS,
  type Scenario,
  TOO_LARGE,
} from "../src/index.ts";

const ROOT = join(import.meta.dir, "../../..");

describe("registry", () => {
  test("names the fifteen apps with the ports the README promises", () => {
    expect(APPS.map((a) => [a.name, a.port])).toEqual([
      ["bun-hono", 3000],
      ["bun-elysia", 3001],
      ["node-hono", 3002],
      ["node-elysia", 3003],
      ["bun-bare", 3004],
      ["node-bare", 3005],
      ["deno-hono", 3006],
      ["deno-elysia", 3007],
      ["deno-bare", 3008],
      ["node-express", 3009],
      ["node-fastify", 3010],
      ["bun-express", 3011],
      ["bun-fastify", 3012],
      ["deno-express", 3013],
      ["deno-fastify", 3014],
    ]);
  });

  test("each name is <runtime>-<framework>, an app folder and its package name", () => {
    for (const app of APPS) {
      expect(app.name).toBe(`${app.runtime}-${app.framework}`);
      const manifest = join(ROOT, "apps", app.name, "package.json");
      expect(existsSync(manifest)).toBe(true);
      expect(JSON.parse(readFileSync(manifest, "utf8")).name).toBe(app.name);
    }
  });

  test("ports are unique", () => {
    expect(new Set(APPS.map((a) => a.port)).size).toBe(APPS.length);
  });

  test("look-ups and baselines", () => {
    expect(findApp("nope")).toBeUndefined();
    expect(() => getApp("nope")).toThrow(/unknown app "nope"/);
    expect(baselineOf(getApp("node-elysia")).name).toBe("node-bare");
    expect(baselineOf(getApp("bun-hono")).name).toBe("bun-bare");
  });
});

describe("spec helpers", () => {
  test("JSON content types", () => {
    expect(isJsonContentType("application/json")).toBe(true);
    expect(isJsonContentType("application/json; charset=utf-8")).toBe(true);
    expect(isJsonContentType(" Application/JSON ;charset=UTF-8")).toBe(true);
    expect(isJsonContentType("text/plain")).toBe(false);
    expect(isJsonContentType("application/jsonx")).toBe(false);
    expect(isJsonContentType("application/json-patch+json")).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
    expect(isJsonContentType("")).toBe(false);
  });

  test("echo accepts documents up to the depth limit", () => {
    expect(jsonDocumentError({ a: [1, { b: 2 }] })).toBeUndefined();
    expect(jsonDocumentError([])).toBeUndefined();
    expect(jsonDocumentError("s")).toBe(ERRORS.notDocument);
    expect(jsonDocumentError(null)).toBe(ERRORS.notDocument);
    expect(jsonDocumentError(3)).toBe(ERRORS.notDocument);
    const nest = (depth: number) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    expect(jsonDocumentError(nest(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonDocumentError(nest(MAX_JSON_DEPTH + 1))).toBe(ERRORS.tooDeep);
    expect(jsonDocumentError(nest(200_000))).toBe(ERRORS.tooDeep);
    // Objects as well as arrays, and the deep branch after shallow siblings
    const objects = (depth: number) =>
      JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`);
    expect(jsonDocumentError(objects(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonDocumentError(objects(MAX_JSON_DEPTH + 1))).toBe(ERRORS.tooDeep);
    expect(jsonDocumentError({ x: [1, {}], y: "s", z: objects(MAX_JSON_DEPTH) })).toBe(
      ERRORS.tooDeep,
    );
    expect(jsonDocumentError([{}, [], [nest(MAX_JSON_DEPTH - 1)]])).toBe(ERRORS.tooDeep);
    expect(jsonDocumentError([{}, [], nest(MAX_JSON_DEPTH - 1)])).toBeUndefined();
  });

  test("jsonOfSize is exactly the size asked", () => {
    for (const size of [10, 11, 1000, MAX_BODY_BYTES, MAX_BODY_BYTES + 1]) {
      expect(Buffer.byteLength(jsonOfSize(size))).toBe(size);
    }
  });

  test("the echo fixture is about 1 KB of JSON", () => {
    const bytes = Buffer.byteLength(ECHO_BODY);
    expect(bytes).toBeGreaterThan(900);
    expect(bytes).toBeLessThan(1200);
  });

  test("detectRuntime sees Bun under bun test", () => {
    expect(detectRuntime()).toEqual({ name: "bun", version: Bun.version });
  });

  test("ws-load loads the WebSocket scenarios and tls-handshake, and no other", () => {
    expect(SCENARIOS.filter(loadedByWsLoad).map((s) => s.name)).toEqual([
      "tls-handshake",
      "ws-echo",
      "ws-echo-4k",
      "ws-broadcast",
    ]);
  });

  test("tls-handshake: api over TLS, a stage set against api, run when named", () => {
    const scenario = SCENARIOS.find((s) => s.name === "tls-handshake") as Scenario;
    const api = SCENARIOS.find((s) => s.name === "api") as Scenario;
    expect([scenario.method, scenario.path]).toEqual([api.method, api.path]);
    expect([scenario.tls, scenario.handshake, scenario.onRequest]).toEqual([true, true, true]);
    expect(isStage(scenario)).toBe(true);
    expect(isStage(api)).toBe(false);
  });

  test("case names are unique (results and violations name them)", () => {
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });
});

describe("apiPayloadProblems", () => {
  const app = getApp("node-hono");
  const good = {
    message: "Hello from the benchmark API",
    runtime: "node",
    version: "24.21.0",
    framework: "hono",
    timestamp: Date.now(),
  };

  test("a correct body has none", () => {
    expect(apiPayloadProblems(JSON.stringify(good), app)).toEqual([]);
  });

  test("a node app answering as bun is a runtime-identity violation", () => {
    const problems = apiPayloadProblems(
      JSON.stringify({ ...good, runtime: "bun", version: "1.4.5" }),
      app,
    );
    expect(problems.join()).toContain("runtime identity: node-hono must be served by node");
  });

  test("key order, framework, version and timestamp are checked", () => {
    const { message, ...rest } = good;
    expect(apiPayloadProblems(JSON.stringify({ ...rest, message }), app).join()).toContain(
      "in that order",
    );
    expect(apiPayloadProblems(JSON.stringify({ ...good, framework: "elysia" }), app)).toHaveLength(
      1,
    );
    expect(apiPayloadProblems(JSON.stringify({ ...good, version: "v?" }), app)).toHaveLength(1);
    expect(apiPayloadProblems(JSON.stringify({ ...good, timestamp: 1 }), app)).toHaveLength(1);
    expect(apiPayloadProblems("not json", app).join()).toContain("not JSON");
  });
});

describe("readBodyText", () => {
  const streamOf = (chunks: number[], onPull?: () => void) =>
    new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          onPull?.();
          const size = chunks.shift();
          if (size === undefined) controller.close();
          else controller.enqueue(new Uint8Array(size).fill(120));
        },
      },
      { highWaterMark: 0 },
    ); // pull only when read

  test("reads a body within the limit", async () => {
    const request = new Request("http://x/", { method: "POST", body: streamOf([3, 4]) });
    expect(await readBodyText(request, 10)).toBe("xxxxxxx");
  });

  test("a declared length within the limit is read in one go", async () => {
    const request = new Request("http://x/", {
      method: "POST",
      headers: { "content-length": "5" },
      body: "hello",
    });
    expect(await readBodyText(request, 5)).toBe("hello");
  });

  test("refuses a declared length over the limit without reading", async () => {
    let pulls = 0;
    const request = new Request("http://x/", {
      method: "POST",
      headers: { "content-length": "11" },
      body: streamOf([11], () => pulls++),
    });
    expect(await readBodyText(request, 10)).toBe(TOO_LARGE);
    expect(pulls).toBe(0);
  });

  test("stops reading a stream as soon as it passes the limit", async () => {
    let pulls = 0;
    const chunks = Array.from({ length: 1000 }, () => 4);
    const request = new Request("http://x/", {
      method: "POST",
      body: streamOf(chunks, () => pulls++),
    });
    expect(await readBodyText(request, 10)).toBe(TOO_LARGE);
    expect(pulls).toBeLessThan(10);
  });
});

describe("each scenario measures a request the contract verifies, with a pinned answer", () => {
  const headersOf = (scenario: Scenario) =>
    JSON.stringify({
      ...(scenario.contentType ? { "content-type": scenario.contentType } : {}),
      ...scenario.headers,
    });
  const caseOf = (scenario: (typeof SCENARIOS)[number]) =>
    CASES.find(
      (c) =>
        c.request.method === scenario.method &&
        c.request.path === scenario.path &&
        JSON.stringify(c.request.headers ?? {}) === headersOf(scenario) &&
        c.request.body === ("body" in scenario ? scenario.body : undefined),
    );
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  test("every scenario's request is a contract case, or one the middleware or database checks send", async () => {
    const sent: { method: string; path: string; headers: Headers }[] = [];
    const recorder = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => {
        const url = new URL(request.url);
        sent.push({
          method: request.method,
          path: url.pathname + url.search,
          headers: request.headers,
        });
        // An ETag for every answer, so the conditional checks go on to send If-None-Match.
        return new Response("{}", {
          headers: { etag: '"tag"', "content-type": "application/json" },
        });
      },
    });
    try {
      await checkMiddleware("127.0.0.1", recorder.port as number, getApp("bun-bare"), 2000);
      await checkDatabase(
        fetch,
        `http://127.0.0.1:${recorder.port}`,
        sqliteProbe(openWorldDb(undefined)),
      );
    } finally {
      recorder.stop(true);
    }
    const checked = (scenario: Scenario) =>
      sent.some(
        (r) =>
          r.method === scenario.method &&
          r.path === scenario.path &&
          Object.entries(scenario.headers ?? {}).every(([k, v]) => r.headers.get(k) === v) &&
          (!scenario.conditional || r.headers.get("if-none-match") === '"tag"'),
      );
    for (const scenario of SCENARIOS) {
      // A WebSocket scenario's route is the WebSocket probe's (checkWebSocket, websocket.test.ts).
      const probed = "websocket" in scenario && Object.values(WS_ROUTES).includes(scenario.path);
      const verified = caseOf(scenario)?.bad === false || checked(scenario) || probed;
      expect({ scenario: scenario.name, verified }).toEqual({
        scenario: scenario.name,
        verified: true,
      });
    }
    // The middleware scenarios but auth are not plain cases: the wire checks send them; the
    // database checks send the database scenarios' requests; the WebSocket probe, the
    // WebSocket scenarios' messages.
    expect(SCENARIOS.filter((s) => !caseOf(s)).map((s) => s.name)).toEqual([
      "cors",
      "gzip",
      "etag",
      "ratelimit",
      "stack",
      "db",
      "queries",
      "fortunes",
      "updates",
      "ws-echo",
      "ws-echo-4k",
      "ws-broadcast",
    ]);
  });

  // Literal answers, not the helpers the apps call: shrinking `large` or changing a user
  // breaks these even though the apps and the expectations would still agree.
  test("the fixed answers, byte for byte", () => {
    const body = (name: string) =>
      caseOf(SCENARIOS.find((s) => s.name === name) as never)?.expect.body ?? "";
    expect(body("hello")).toBe("Hello, World!");
    expect(body("params")).toBe(
      '{"id":42,"name":"Linus Ritchie","email":"linus.ritchie.42@example.com"}',
    );
    expect(sha256(body("echo"))).toBe(
      "d123c30dc7884d4a36026dab3919c72b0b7b939d47fb044a1e293232018cb8a7",
    );
    const large = body("large");
    expect(Buffer.byteLength(large)).toBe(22_105);
    expect(sha256(large)).toBe("6736a81c4769966fbe2c8e44aab8471ffea09905d8b121c0d2ce66eba25640b1");
    expect(large.startsWith('[{"id":1,"sku":"SKU-000001","name":"Rustic Granite Keyboard",')).toBe(
      true,
    );
  });

  test("api and validate answer per request: checked by function, not by text", () => {
    const dynamic = (name: string) =>
      caseOf(SCENARIOS.find((s) => s.name === name) as never)?.expect.dynamic;
    expect(dynamic("api")).toBe("api");
    expect(dynamic("validate")).toBe("userUpdate");
  });
});

describe("isClientGone", () => {
  test("the three runtimes' errors for a client that left mid-body, and nothing else", () => {
    expect(isClientGone(new DOMException("The connection was closed.", "AbortError"))).toBe(true);
    const badResource = new Error("Cannot read body as underlying resource unavailable");
    badResource.name = "BadResource";
    expect(isClientGone(badResource)).toBe(true);
    expect(isClientGone(Object.assign(new Error("aborted"), { code: "ECONNRESET" }))).toBe(true);
    expect(isClientGone(new SyntaxError("Unexpected end of JSON input"))).toBe(false);
    expect(isClientGone(new Error("database down"))).toBe(false);
    expect(isClientGone("aborted")).toBe(false);
  });
});
