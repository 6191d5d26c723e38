// The streamed routes' cases (spec/streams.ts): the exact bodies, the bad counts, and a count
// drawn afresh in each process that checks (so no app can answer from a table), plus the raw-wire
// check that the answers are streamed: chunked, with no Content-Length.

import { randomInt } from "node:crypto";
import {
  SCENARIO_BYTES,
  SCENARIO_EVENTS,
  SSE_CONTENT_TYPE,
  SSE_EVENTS_DEFAULT,
  SSE_EVENTS_MAX,
  STREAM_BYTES_DEFAULT,
  STREAM_BYTES_MAX,
  STREAM_CHUNK,
  STREAM_CHUNK_BYTES,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  sseEvents,
} from "../spec/streams.ts";
import type { CaseExpectation, ContractCase } from "./case.ts";
import { describeError } from "./payloads.ts";
import type { Violation } from "./violation.ts";
import { rawExchange } from "./wire.ts";

/** The whole text of an SSE answer of `count` events. */
export const sseBody = (count: number): string => [...sseEvents(count)].join("");

/** The whole body of a `bytes`-long /stream answer, as text (ASCII: one character a byte). */
export function streamBody(bytes: number): string {
  const chunk = Buffer.from(STREAM_CHUNK).toString("latin1");
  const whole = Math.floor(bytes / STREAM_CHUNK_BYTES);
  return chunk.repeat(whole) + chunk.slice(0, bytes % STREAM_CHUNK_BYTES);
}

/**
 * Counts drawn once per checking process: an app cannot know them in advance. The wire check
 * asks for many events: a short answer can be whole before its head is written, and a server may
 * then send it with a length (bun-elysia did, for up to about 25 events; from about 30, chunked).
 */
const FRESH = {
  events: randomInt(2, SSE_EVENTS_MAX),
  wireEvents: randomInt(SSE_EVENTS_MAX / 2, SSE_EVENTS_MAX + 1),
  bytes: randomInt(STREAM_CHUNK_BYTES + 1, 8 * STREAM_CHUNK_BYTES),
} as const;

const error = (message: string): CaseExpectation => ({
  status: 400,
  mediaType: "application/json",
  body: JSON.stringify({ error: message }),
});

type Route = "sse" | "stream";

function streamCase(route: Route, query: string, expect: CaseExpectation): ContractCase {
  const name =
    expect.status === 200
      ? `GET ${STREAM_ROUTES[route]}${query} streams its ${route === "sse" ? "events" : "bytes"}`
      : `GET ${STREAM_ROUTES[route]}${query} is 400`;
  return {
    name,
    bad: expect.status !== 200,
    request: { method: "GET", path: `${STREAM_ROUTES[route]}${query}` },
    expect,
  };
}

const events = (count: number): CaseExpectation => ({
  status: 200,
  mediaType: SSE_CONTENT_TYPE,
  body: sseBody(count),
});

const bytes = (count: number): CaseExpectation => ({
  status: 200,
  mediaType: STREAM_CONTENT_TYPE,
  body: streamBody(count),
});

const BAD_COUNTS = ["0", "-1", "abc", "1.5", "1e3", ""] as const;

/** Every case of /sse and /stream. */
export function streamCases(): ContractCase[] {
  return [
    streamCase("sse", "", events(SSE_EVENTS_DEFAULT)),
    streamCase("sse", "?events=1", events(1)),
    streamCase("sse", `?events=${FRESH.events}`, events(FRESH.events)),
    // The scenarios' own requests, so what is measured is what is verified.
    streamCase("sse", `?events=${SCENARIO_EVENTS}`, events(SCENARIO_EVENTS)),
    streamCase("stream", `?bytes=${SCENARIO_BYTES}`, bytes(SCENARIO_BYTES)),
    streamCase("sse", `?events=${SSE_EVENTS_MAX}`, events(SSE_EVENTS_MAX)),
    ...[...BAD_COUNTS, String(SSE_EVENTS_MAX + 1)].map((n) =>
      streamCase("sse", `?events=${n}`, error(STREAM_ERRORS.badEvents)),
    ),
    streamCase("stream", "", bytes(STREAM_BYTES_DEFAULT)),
    streamCase("stream", "?bytes=1", bytes(1)),
    streamCase("stream", `?bytes=${STREAM_CHUNK_BYTES}`, bytes(STREAM_CHUNK_BYTES)),
    streamCase("stream", `?bytes=${FRESH.bytes}`, bytes(FRESH.bytes)),
    ...[...BAD_COUNTS, String(STREAM_BYTES_MAX + 1)].map((n) =>
      streamCase("stream", `?bytes=${n}`, error(STREAM_ERRORS.badBytes)),
    ),
  ];
}

/**
 * On the wire, both streamed routes answer chunked with no Content-Length (a body built whole
 * and then sent is not a stream), honour the request's Connection: close, and the de-chunked
 * body is the exact one. The largest answer
 * a checker asks for (STREAM_BYTES_MAX) is sent too: 16 MiB cannot be one buffered write unseen.
 */
export async function checkStreamed(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Violation[]> {
  const answers: [string, string][] = [
    [`${STREAM_ROUTES.sse}?events=${FRESH.wireEvents}`, sseBody(FRESH.wireEvents)],
    [`${STREAM_ROUTES.stream}?bytes=${STREAM_BYTES_MAX}`, streamBody(STREAM_BYTES_MAX)],
  ];
  const violations: Violation[] = [];
  for (const [path, body] of answers) {
    const check = `GET ${path} is streamed: chunked, no Content-Length, the exact body`;
    try {
      const head = `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close`;
      const answer = await rawExchange(host, port, head, timeoutMs);
      const problems = streamedProblems(answer.status, answer.headers, answer.body, body);
      for (const detail of problems) violations.push({ check, detail });
    } catch (failure) {
      violations.push({ check, detail: `request failed: ${describeError(failure)}` });
    }
  }
  return violations;
}

/** What is wrong with a streamed answer as read off the wire (empty: nothing). */
export function streamedProblems(
  status: number,
  headers: ReadonlyMap<string, string>,
  body: string,
  expected: string,
): string[] {
  const problems: string[] = [];
  if (status !== 200) problems.push(`status ${status}, expected 200`);
  if (headers.get("transfer-encoding")?.toLowerCase() !== "chunked") {
    problems.push(
      `Transfer-Encoding "${headers.get("transfer-encoding") ?? ""}", expected chunked`,
    );
  }
  if (headers.has("content-length")) {
    problems.push(`Content-Length ${headers.get("content-length")}: the body was built whole`);
  }
  // Asked to close, a server that answers keep-alive holds the connection (node-hono did, for
  // the keep-alive timeout: Hono's streamSSE sets the header, which is the server's to set).
  if (headers.get("connection")?.toLowerCase() === "keep-alive") {
    problems.push("Connection: keep-alive in answer to Connection: close");
  }
  if (body.length !== expected.length) {
    problems.push(`${body.length} bytes, expected ${expected.length}`);
  } else if (body !== expected) {
    problems.push("the body differs from the expected bytes");
  }
  return problems;
}
