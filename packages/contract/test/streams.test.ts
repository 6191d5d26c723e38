import { afterAll, describe, expect, test } from "bun:test";
import {
  parseByteCount,
  parseEventCount,
  SCENARIOS,
  SSE_EVENTS_DEFAULT,
  SSE_EVENTS_MAX,
  STANDARD_SCENARIOS,
  STREAM_BYTES_DEFAULT,
  STREAM_BYTES_MAX,
  STREAM_CHUNK,
  STREAM_CHUNK_BYTES,
  STREAM_ERRORS,
  STREAM_ROUTES,
  sseData,
  sseEvent,
  sseEvents,
  streamChunks,
} from "@bench/contract";
import {
  CASES,
  checkStreamed,
  sseBody,
  streamBody,
  streamCases,
  streamedProblems,
} from "@bench/contract/check";

describe("the counts", () => {
  test("absent is the default; 1 to the most are taken, leading zeros too", () => {
    expect(parseEventCount(undefined)).toBe(SSE_EVENTS_DEFAULT);
    expect(parseEventCount(null)).toBe(SSE_EVENTS_DEFAULT);
    expect(parseEventCount("1")).toBe(1);
    expect(parseEventCount("007")).toBe(7);
    expect(parseEventCount(String(SSE_EVENTS_MAX))).toBe(SSE_EVENTS_MAX);
    expect(parseByteCount(undefined)).toBe(STREAM_BYTES_DEFAULT);
    expect(parseByteCount(null)).toBe(STREAM_BYTES_DEFAULT);
    expect(parseByteCount("1")).toBe(1);
    expect(parseByteCount(String(STREAM_BYTES_MAX))).toBe(STREAM_BYTES_MAX);
  });

  const refused = ["", "0", "-1", "1.5", "abc", "1e3", " 5", "5 ", "0x10", "+5", "1234567890"];

  test.each(refused)("%p is refused", (raw) => {
    expect(parseEventCount(raw)).toBeUndefined();
    expect(parseByteCount(raw)).toBeUndefined();
  });

  test("one over the most is refused, however many digits", () => {
    expect(parseEventCount(String(SSE_EVENTS_MAX + 1))).toBeUndefined();
    expect(parseByteCount(String(STREAM_BYTES_MAX + 1))).toBeUndefined();
    expect(parseByteCount("999999999")).toBeUndefined();
  });

  test("the refusals name the range", () => {
    expect(STREAM_ERRORS.badEvents).toBe("events must be an integer from 1 to 10000");
    expect(STREAM_ERRORS.badBytes).toBe("bytes must be an integer from 1 to 16777216");
  });
});

describe("the events", () => {
  test("event i is `data: i` and a blank line, counted from 1", () => {
    expect(sseData(3)).toBe("3");
    expect(sseEvent(3)).toBe("data: 3\n\n");
    expect([...sseEvents(3)]).toEqual(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
    expect([...sseEvents(0)]).toEqual([]);
    expect(sseBody(2)).toBe("data: 1\n\ndata: 2\n\n");
  });
});

describe("the byte stream", () => {
  const text = (chunks: Iterable<Uint8Array>) =>
    [...chunks].map((c) => Buffer.from(c).toString("latin1")).join("");

  test("the chunk is 16 KiB of a to z, over and over", () => {
    expect(STREAM_CHUNK.length).toBe(STREAM_CHUNK_BYTES);
    expect(STREAM_CHUNK_BYTES).toBe(16_384);
    const head = Buffer.from(STREAM_CHUNK.subarray(0, 28)).toString("latin1");
    expect(head).toBe("abcdefghijklmnopqrstuvwxyzab");
    expect(STREAM_CHUNK[STREAM_CHUNK_BYTES - 1]).toBe(97 + ((STREAM_CHUNK_BYTES - 1) % 26));
  });

  test.each([
    [1, [1]],
    [STREAM_CHUNK_BYTES - 1, [STREAM_CHUNK_BYTES - 1]],
    [STREAM_CHUNK_BYTES, [STREAM_CHUNK_BYTES]],
    [STREAM_CHUNK_BYTES + 2, [STREAM_CHUNK_BYTES, 2]],
    [3 * STREAM_CHUNK_BYTES, [STREAM_CHUNK_BYTES, STREAM_CHUNK_BYTES, STREAM_CHUNK_BYTES]],
  ])("%p bytes come as chunks of %p, views of the one chunk", (bytes, sizes) => {
    const chunks = [...streamChunks(bytes)];
    expect(chunks.map((c) => c.length)).toEqual(sizes);
    for (const chunk of chunks) expect(chunk.buffer).toBe(STREAM_CHUNK.buffer);
    expect(text(chunks)).toBe(streamBody(bytes));
  });

  test("the body repeats the chunk from its start: a, then b after a whole chunk and one byte", () => {
    const body = streamBody(STREAM_CHUNK_BYTES + 2);
    expect(body.length).toBe(STREAM_CHUNK_BYTES + 2);
    expect(body.slice(0, 3)).toBe("abc");
    expect(body.slice(STREAM_CHUNK_BYTES)).toBe("ab");
    expect(streamBody(0)).toBe("");
  });
});

describe("the streamed cases", () => {
  const cases = streamCases();
  const paths = cases.map((c) => c.request.path);

  test("are in CASES, each a GET of one of the two routes", () => {
    for (const c of cases) {
      expect(CASES.some((k) => k.name === c.name)).toBe(true);
      expect(c.request.method).toBe("GET");
      expect([STREAM_ROUTES.sse, STREAM_ROUTES.stream]).toContain(
        c.request.path.split("?")[0] as "/sse",
      );
    }
  });

  test("the scenarios' own requests are among them, and `-s all` leaves both scenarios out", () => {
    for (const name of ["sse", "stream"]) {
      const scenario = SCENARIOS.find((s) => s.name === name);
      expect(paths).toContain(scenario?.path as string);
      expect(STANDARD_SCENARIOS.some((s) => s.name === name)).toBe(false);
    }
    // tls, tls-handshake, h2, h2c, sse, stream and the three WebSocket ones: run when named.
    expect(STANDARD_SCENARIOS.length).toBe(SCENARIOS.length - 9);
  });

  test("a good count answers the exact body with the route's media type", () => {
    const events = cases.find((c) => c.request.path === `${STREAM_ROUTES.sse}?events=1`);
    expect(events?.name).toBe("GET /sse?events=1 streams its events");
    expect(events?.bad).toBe(false);
    expect(events?.expect).toEqual({
      status: 200,
      mediaType: "text/event-stream",
      body: "data: 1\n\n",
    });
    const bytes = cases.find((c) => c.request.path === `${STREAM_ROUTES.stream}?bytes=1`);
    expect(bytes?.name).toBe("GET /stream?bytes=1 streams its bytes");
    expect(bytes?.expect).toEqual({
      status: 200,
      mediaType: "application/octet-stream",
      body: "a",
    });
    const absent = cases.find((c) => c.request.path === STREAM_ROUTES.sse);
    expect(absent?.expect.body).toBe(sseBody(SSE_EVENTS_DEFAULT));
    const plain = cases.find((c) => c.request.path === STREAM_ROUTES.stream);
    expect(plain?.expect.body).toBe(streamBody(STREAM_BYTES_DEFAULT));
  });

  test("a count drawn afresh for each route, inside its range, not the default", () => {
    const drawn = (route: string, key: string) =>
      paths
        .filter((p) => p.startsWith(`${route}?${key}=`))
        .map((p) => Number(p.split("=")[1]))
        .filter((n) => ![1, 100, SSE_EVENTS_MAX, STREAM_CHUNK_BYTES, 1_048_576].includes(n));
    const [events] = drawn(STREAM_ROUTES.sse, "events").filter((n) => n > 1);
    const [bytes] = drawn(STREAM_ROUTES.stream, "bytes").filter((n) => n > 1);
    expect(events).toBeGreaterThanOrEqual(2);
    expect(events).toBeLessThan(SSE_EVENTS_MAX);
    expect(bytes).toBeGreaterThan(STREAM_CHUNK_BYTES);
    expect(bytes).toBeLessThan(8 * STREAM_CHUNK_BYTES);
  });

  test("every refused count is a bad case: 400 with the route's message", () => {
    const bad = cases.filter((c) => c.bad);
    expect(bad).toHaveLength(14);
    for (const c of bad) {
      const message = c.request.path.startsWith(STREAM_ROUTES.sse)
        ? STREAM_ERRORS.badEvents
        : STREAM_ERRORS.badBytes;
      expect(c.name).toBe(`GET ${c.request.path} is 400`);
      expect(c.expect).toEqual({
        status: 400,
        mediaType: "application/json",
        body: JSON.stringify({ error: message }),
      });
    }
    const refused = (route: string, key: string, over: number) =>
      ["0", "-1", "abc", "1.5", "1e3", "", String(over)].map((n) => `${route}?${key}=${n}`);
    expect(bad.map((c) => c.request.path)).toEqual([
      ...refused(STREAM_ROUTES.sse, "events", SSE_EVENTS_MAX + 1),
      ...refused(STREAM_ROUTES.stream, "bytes", STREAM_BYTES_MAX + 1),
    ]);
  });
});

describe("streamedProblems", () => {
  const chunked = new Map([["transfer-encoding", "chunked"]]);

  test("a chunked 200 with the exact body has none; the header's case does not matter", () => {
    expect(streamedProblems(200, chunked, "abc", "abc")).toEqual([]);
    expect(streamedProblems(200, new Map([["transfer-encoding", "Chunked"]]), "a", "a")).toEqual(
      [],
    );
  });

  test("each fault is named", () => {
    expect(streamedProblems(500, chunked, "abc", "abc")).toEqual(["status 500, expected 200"]);
    expect(streamedProblems(200, new Map(), "abc", "abc")).toEqual([
      'Transfer-Encoding "", expected chunked',
    ]);
    expect(streamedProblems(200, new Map([["transfer-encoding", "gzip"]]), "a", "a")).toEqual([
      'Transfer-Encoding "gzip", expected chunked',
    ]);
    expect(
      streamedProblems(200, new Map([...chunked, ["content-length", "3"]]), "abc", "abc"),
    ).toEqual(["Content-Length 3: the body was built whole"]);
    expect(streamedProblems(200, chunked, "ab", "abc")).toEqual(["2 bytes, expected 3"]);
    expect(streamedProblems(200, chunked, "abd", "abc")).toEqual([
      "the body differs from the expected bytes",
    ]);
    const held = new Map([...chunked, ["connection", "Keep-Alive"]]);
    expect(streamedProblems(200, held, "abc", "abc")).toEqual([
      "Connection: keep-alive in answer to Connection: close",
    ]);
    const closing = new Map([...chunked, ["connection", "close"]]);
    expect(streamedProblems(200, closing, "abc", "abc")).toEqual([]);
  });
});

describe("checkStreamed against live servers", () => {
  const servers: { stop: (force: boolean) => void }[] = [];
  afterAll(() => {
    for (const s of servers) s.stop(true);
  });

  /** Serves the two routes' checked requests, streamed or built whole. */
  function serve(streamed: boolean): number {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const url = new URL(request.url);
        const n = Number(url.searchParams.get(url.pathname === "/sse" ? "events" : "bytes"));
        const text = url.pathname === "/sse" ? sseBody(n) : streamBody(n);
        if (!streamed) return new Response(text);
        const bytes = Buffer.from(text, "latin1");
        return new Response(
          new ReadableStream({
            start(controller) {
              for (let at = 0; at < bytes.length; at += 65_536) {
                controller.enqueue(bytes.subarray(at, at + 65_536));
              }
              controller.close();
            },
          }),
        );
      },
    });
    servers.push(server);
    return server.port as number;
  }

  test("a streaming server passes, both routes asked", async () => {
    expect(await checkStreamed("127.0.0.1", serve(true), 10_000)).toEqual([]);
  });

  test("a server that builds each body whole is reported on both routes", async () => {
    const violations = await checkStreamed("127.0.0.1", serve(false), 10_000);
    expect(violations.map((v) => v.check.split(" ")[1]?.split("?")[0])).toEqual([
      "/sse",
      "/sse",
      "/stream",
      "/stream",
    ]);
    expect(violations[0]?.check).toMatch(
      /^GET \/sse\?events=\d+ is streamed: chunked, no Content-Length, the exact body$/,
    );
    // Many events: a short answer may be sent whole with a length by a streaming server.
    const asked = Number(violations[0]?.check.match(/events=(\d+)/)?.[1]);
    expect(asked).toBeGreaterThanOrEqual(SSE_EVENTS_MAX / 2);
    expect(asked).toBeLessThanOrEqual(SSE_EVENTS_MAX);
    expect(violations[3]?.detail).toBe(
      `Content-Length ${STREAM_BYTES_MAX}: the body was built whole`,
    );
  });

  test("no server is a failed request, not a throw", async () => {
    const port = serve(true);
    servers.pop()?.stop(true);
    const violations = await checkStreamed("127.0.0.1", port, 2000);
    expect(violations).toHaveLength(2);
    expect(violations[0]?.detail).toStartWith("request failed: ");
  });
});
