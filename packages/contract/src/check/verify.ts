// verify(): does a live app obey the contract? Returns the list of violations, empty when it
// conforms. The harness refuses to measure an app with any violation.

import type { ClientHttp2Session } from "node:http2";
import { connect } from "node:net";
import { basename } from "node:path";
import { ERRORS, MAX_BODY_BYTES, ROUTES } from "../spec/endpoints.ts";
import { H2_UNSUPPORTED, H2C_UNSUPPORTED, h2cPort } from "../spec/http2.ts";
import { type AppName, type AppSpec, getApp } from "../spec/registry.ts";
import { tlsPort } from "../spec/tls.ts";
import { checkAfterResetStorm, checkBesideStalledTls } from "./abuse-checks.ts";
import { CASES, type CaseExpectation, type ContractCase } from "./cases.ts";
import { checkH2cRefused, checkH2Refused, h2Fetcher, openH2, openH2c } from "./h2-checks.ts";
import { checkMiddleware } from "./middleware-checks.ts";
import { apiPayloadProblems, describeError, preview, userUpdateProblems } from "./payloads.ts";
import { checkPipelined } from "./pipeline.ts";
import { executableOf, pidsListeningOn } from "./proc.ts";
import { checkStreamed } from "./stream-cases.ts";
import { checkDatabaseAt } from "./verify-db.ts";
import { type Fetcher, mediaTypeOf, type Violation } from "./violation.ts";
import { checkHeadMatchesGet, checkHostHeaders } from "./wire.ts";
import { checkWebSocket } from "./ws-checks.ts";

function compare(
  expect: CaseExpectation,
  response: Response,
  text: string,
  inProcess: boolean,
): string[] {
  const problems: string[] = [];
  if (response.status !== expect.status) {
    problems.push(`status ${response.status}, expected ${expect.status}`);
  }
  let mediaType = mediaTypeOf(response);
  // Bun's `new Response(string)` carries no Content-Type until Bun.serve writes it out as
  // text/plain;charset=utf-8 (the fetch spec's default). Only in-process is that gap visible;
  // over the network the header is checked as sent.
  if (inProcess && mediaType === "") mediaType = "text/plain";
  const absentAllowed = expect.mediaTypeOptional === true && mediaType === "";
  if (mediaType !== expect.mediaType && !absentAllowed) {
    problems.push(`content-type "${mediaType}", expected "${expect.mediaType}"`);
  }
  if (expect.body !== undefined && text !== expect.body) {
    problems.push(`body ${preview(text)}, expected ${preview(expect.body)}`);
  }
  return problems;
}

function toRequest(origin: string, testCase: ContractCase): Request {
  const { method, path, headers, body } = testCase.request;
  return new Request(new URL(path, origin), {
    method,
    headers,
    body,
    redirect: "manual",
  });
}

async function send(fetcher: Fetcher, request: Request): Promise<[Response, string]> {
  const response = await fetcher(request);
  return [response, await response.text()];
}

/**
 * Runs every contract case through `fetcher`: the HTTP-level part of verify(), usable in-process.
 * `origin` only fills in the URL (in-process handlers ignore the host).
 */
export async function checkCases(
  fetcher: Fetcher,
  app: AppSpec,
  origin = "http://localhost",
  inProcess = true,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const testCase of CASES) {
    try {
      const [response, received] = await send(fetcher, toRequest(origin, testCase));
      // A handler may build a body for HEAD; the HTTP server is what leaves it off the wire.
      const text = inProcess && testCase.request.method === "HEAD" ? "" : received;
      const problems = compare(testCase.expect, response, text, inProcess);
      if (response.status === testCase.expect.status) {
        if (testCase.expect.dynamic === "api") problems.push(...apiPayloadProblems(text, app));
        if (testCase.expect.dynamic === "userUpdate") {
          problems.push(...userUpdateProblems(text, testCase.request.body ?? ""));
        }
      }
      for (const detail of problems) violations.push({ check: testCase.name, detail });
    } catch (error) {
      violations.push({ check: testCase.name, detail: `request failed: ${describeError(error)}` });
    }
  }
  violations.push(...(await checkTimestampMoves(fetcher, origin)));
  return violations;
}

async function checkTimestampMoves(fetcher: Fetcher, origin: string): Promise<Violation[]> {
  const check = "GET /api/test timestamp changes between requests";
  try {
    const stamp = async () => {
      const [, text] = await send(fetcher, new Request(new URL(ROUTES.api, origin)));
      return (JSON.parse(text) as { timestamp: unknown }).timestamp;
    };
    const first = await stamp();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await stamp();
    if (typeof first !== "number" || typeof second !== "number" || second <= first) {
      return [{ check, detail: `timestamps ${first} then ${second} (5 ms apart)` }];
    }
    return [];
  } catch (error) {
    return [{ check, detail: `request failed: ${describeError(error)}` }];
  }
}

/**
 * Streams a chunked body one byte past the limit and never finishes it: an app that buffers
 * the whole body before judging it never answers; one that counts as it reads answers 413.
 * Nothing is written after the last byte, so a server that hangs up right after its answer
 * cannot make the answer unreadable (a write after that would fail with EPIPE).
 */
export function checkStreamingLimit(
  host: string,
  port: number,
  timeoutMs = 5000,
): Promise<Violation[]> {
  const check = "a chunked body over the limit is 413 before it ends";
  const frame = (bytes: number) =>
    Buffer.concat([
      Buffer.from(`${bytes.toString(16)}\r\n`),
      Buffer.alloc(bytes, "x"),
      Buffer.from("\r\n"),
    ]);
  const chunkSize = 64 * 1024;
  const frames = [
    ...Array.from({ length: Math.floor(MAX_BODY_BYTES / chunkSize) }, () => frame(chunkSize)),
    frame((MAX_BODY_BYTES % chunkSize) + 1),
  ];
  return new Promise((resolve) => {
    let answer = "";
    let settled = false;
    const socket = connect({ host, port });
    const finish = (violations: Violation[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(violations);
    };
    const timer = setTimeout(
      () => finish([{ check, detail: `no answer within ${timeoutMs} ms: the body is buffered?` }]),
      timeoutMs,
    );
    socket.on("connect", () => {
      socket.write(
        `POST ${ROUTES.echo} HTTP/1.1\r\nHost: ${host}:${port}\r\n` +
          "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      );
      for (const f of frames) socket.write(f); // no terminating zero-length chunk
    });
    socket.on("data", (data) => {
      answer += data.toString("latin1");
      if (!answer.includes("\r\n\r\n")) return;
      const status = Number(answer.split(" ")[1]);
      finish(
        status === 413
          ? []
          : [{ check, detail: `status ${status}, expected 413 (${ERRORS.tooLarge})` }],
      );
    });
    socket.on("error", (error) =>
      finish([{ check, detail: `connection failed: ${error.message}` }]),
    );
    socket.on("close", () => finish([{ check, detail: "connection closed without an answer" }]));
  });
}

/**
 * Every case over HTTPS on the app's TLS port (port + 1000), the run's certificate the only one
 * trusted (Bun's fetch takes it as `tls.ca`): the same answers as over plain HTTP; then an
 * answer while TLS handshakes are stalled (checkBesideStalledTls).
 */
export async function checkOverTls(
  host: string,
  port: number,
  app: AppSpec,
  ca: string,
  timeoutMs: number,
): Promise<Violation[]> {
  const fetcher: Fetcher = (request) =>
    fetch(request, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
      tls: { ca },
    } as RequestInit);
  const origin = `https://${host}:${tlsPort(port)}`;
  const violations = await checkCases(fetcher, app, origin, false);
  return [
    ...violations.map((v) => ({ check: `over HTTPS: ${v.check}`, detail: v.detail })),
    ...(await checkBesideStalledTls(host, port, ca, timeoutMs)),
  ];
}

/**
 * Every contract case over HTTP/2, on one session with the app's TLS port (h2 by ALPN), as
 * checkOverTls sends them over HTTP/1.1, then a reset storm on another (checkAfterResetStorm);
 * an app that cannot serve HTTP/2 must offer no h2.
 */
export async function checkOverH2(
  host: string,
  port: number,
  app: AppSpec,
  ca: string,
  timeoutMs: number,
): Promise<Violation[]> {
  if (H2_UNSUPPORTED[app.name as AppName] !== undefined) {
    return checkH2Refused(host, port, app, ca, timeoutMs);
  }
  let session: ClientHttp2Session;
  try {
    session = await openH2(host, port, ca, timeoutMs);
  } catch (error) {
    return [{ check: "over HTTP/2: an h2 session by ALPN", detail: describeError(error) }];
  }
  const origin = `https://${host}:${tlsPort(port)}`;
  let violations: Violation[];
  try {
    violations = await checkCases(h2Fetcher(session, timeoutMs), app, origin, false);
  } finally {
    session.close();
  }
  const open = () => openH2(host, port, ca, timeoutMs);
  return [
    ...violations.map((v) => ({ check: `over HTTP/2: ${v.check}`, detail: v.detail })),
    ...(await checkAfterResetStorm(open, origin, "HTTP/2", timeoutMs)),
  ];
}

/**
 * Every contract case over cleartext HTTP/2 with prior knowledge, on one session with the app's
 * h2c port (its plain port where its server shares it, else port + 2000), as checkOverH2 sends
 * them over TLS, then a reset storm; an app that cannot serve h2c must give no HTTP/2 answer.
 */
export async function checkOverH2c(
  host: string,
  port: number,
  app: AppSpec,
  timeoutMs: number,
): Promise<Violation[]> {
  if (H2C_UNSUPPORTED[app.name as AppName] !== undefined) {
    return checkH2cRefused(host, port, app, timeoutMs);
  }
  const at = h2cPort({ name: app.name, port });
  let session: ClientHttp2Session;
  try {
    session = await openH2c(host, at, timeoutMs);
  } catch (error) {
    return [{ check: `over h2c: an HTTP/2 session on port ${at}`, detail: describeError(error) }];
  }
  const origin = `http://${host}:${at}`;
  let violations: Violation[];
  try {
    violations = await checkCases(h2Fetcher(session, timeoutMs), app, origin, false);
  } finally {
    session.close();
  }
  const open = () => openH2c(host, at, timeoutMs);
  return [
    ...violations.map((v) => ({ check: `over h2c: ${v.check}`, detail: v.detail })),
    ...(await checkAfterResetStorm(open, origin, "h2c", timeoutMs)),
  ];
}

/** What checkServingExecutable reads of the system (/proc on Linux); tests pass their own. */
export interface ProcessProbe {
  readonly pidsListeningOn: (port: number, address?: string) => number[];
  readonly executableOf: (pid: number) => string | undefined;
}

/** Independent of what the app says: the executable of the process listening on its port. */
export function checkServingExecutable(
  app: AppSpec,
  probe: ProcessProbe = { pidsListeningOn, executableOf },
  address?: string,
): Violation[] {
  const check = "runtime identity: the process on the port runs the right executable";
  const pids = probe.pidsListeningOn(app.port, address);
  if (pids.length === 0) return []; // not visible (not Linux, or another user's process)
  const violations: Violation[] = [];
  for (const pid of pids) {
    const exe = probe.executableOf(pid);
    if (exe === undefined) continue;
    if (!basename(exe).startsWith(app.runtime)) {
      violations.push({
        check,
        detail: `${app.name} must run on ${app.runtime}, but pid ${pid} on port ${app.port} runs ${exe}`,
      });
    }
  }
  return violations;
}

/**
 * Whether `url` is this machine's registry port of `app`: only then is the process listening
 * there the server under test (a test server on another port says nothing about that one).
 * Any loopback address counts: a side-by-side pair listens on 127.0.0.1 and 127.0.0.2.
 */
export function onRegistryPort(url: URL, app: AppSpec): boolean {
  const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
  return (
    (loopback || ["localhost", "[::1]"].includes(url.hostname)) && Number(url.port) === app.port
  );
}

export interface VerifyOptions {
  /** Per-request bound; a request that takes longer is a violation. */
  readonly timeoutMs?: number;
  /** Server processes behind the port (BENCH_WORKERS): each has its own rate limit. */
  readonly processes?: number;
  /**
   * The run's certificate (PEM), when the app was given it: every case is sent over HTTPS too,
   * to the app's TLS port, trusting that certificate alone.
   */
  readonly tlsCa?: string;
  /** With tlsCa, a run of the h2 scenario: every case over HTTP/2 too (checkOverH2). */
  readonly http2?: boolean;
  /**
   * A run of the h2c scenario (the app started with BENCH_H2C=1): every case over cleartext
   * HTTP/2 with prior knowledge too (checkOverH2c).
   */
  readonly h2c?: boolean;
  /**
   * A run of a WebSocket scenario: the WebSocket probe too (checkWebSocket: every message kind,
   * the bad clients, broadcast; for an app that cannot serve WebSocket, its 501 and reason).
   */
  readonly websocket?: boolean;
  /**
   * The app's database: its SQLite file (BENCH_DB) or its PostgreSQL URL (BENCH_PG, postgres://).
   * The database routes are checked against it.
   */
  readonly database?: string;
}

/** Runs every contract case against a live server and returns the violations (empty: conforms). */
export async function verify(
  baseUrl: string,
  appName: string,
  options: VerifyOptions = {},
): Promise<Violation[]> {
  const app = getApp(appName);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const url = new URL(baseUrl);
  const fetcher: Fetcher = (request) =>
    fetch(request, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
  const violations = await checkCases(fetcher, app, url.origin, false);
  const [host, port] = [url.hostname, Number(url.port)];
  violations.push(...(await checkStreamingLimit(host, port, timeoutMs)));
  violations.push(...(await checkHostHeaders(host, port, app, timeoutMs)));
  violations.push(...(await checkHeadMatchesGet(host, port, timeoutMs)));
  violations.push(...(await checkPipelined(host, port, timeoutMs)));
  violations.push(...(await checkStreamed(host, port, timeoutMs)));
  violations.push(...(await checkMiddleware(host, port, app, timeoutMs, options.processes)));
  if (options.database !== undefined) {
    violations.push(...(await checkDatabaseAt(fetcher, url.origin, options.database)));
  }
  if (options.tlsCa !== undefined) {
    violations.push(...(await checkOverTls(host, port, app, options.tlsCa, timeoutMs)));
    if (options.http2) {
      violations.push(...(await checkOverH2(host, port, app, options.tlsCa, timeoutMs)));
    }
  }
  if (options.h2c) violations.push(...(await checkOverH2c(host, port, app, timeoutMs)));
  if (options.websocket) {
    const target = {
      host,
      port,
      timeoutMs,
      app: app.name as AppName,
      processes: options.processes ?? 1,
    };
    violations.push(...(await checkWebSocket(target)));
  }
  if (onRegistryPort(url, app)) {
    violations.push(...checkServingExecutable(app, undefined, url.hostname));
  }
  return violations;
}
