// Checks that need the raw wire, which fetch() hides: the Host header a reverse proxy or a
// docker-compose network sends (short names like `api`, with and without a port, none at all on
// HTTP/1.0), and HEAD's headers set against GET's on every GET route (RFC 9110, 9.3.2 and 8.6:
// the same fields, and no Content-Length that differs from GET's).

import { connect } from "node:net";
import { ROUTES, userPath } from "../spec/endpoints.ts";
import type { AppSpec } from "../spec/registry.ts";
import { apiPayloadProblems, describeError } from "./payloads.ts";
import type { Violation } from "./violation.ts";

/**
 * A header into `headers`: a repeated one is joined with ", " (RFC 9110, 5.3: a list header may
 * come on several lines; Deno sends each appended `Vary` value on a line of its own).
 */
export function addHeader(headers: Map<string, string>, name: string, value: string): void {
  const earlier = headers.get(name);
  headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
}

export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  /** The body as bytes (latin1), de-chunked. */
  readonly body: string;
}

/** Sends `data` as it is and reads until the server closes the connection (latin1: bytes). */
export function rawText(
  host: string,
  port: number,
  data: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(Buffer.from(data, "latin1")));
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Sends `head` (request line and headers, no final blank line) and reads the one answer. */
export async function rawExchange(
  host: string,
  port: number,
  head: string,
  timeoutMs: number,
): Promise<RawAnswer> {
  return parseAnswer(await rawText(host, port, `${head}\r\n\r\n`, timeoutMs));
}

/** One HTTP/1.x answer as read off a connection the server then closed. */
export function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 80))}`);
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    addHeader(headers, line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = text.slice(end + 4);
  const chunked = headers.get("transfer-encoding")?.toLowerCase() === "chunked";
  return { status, headers, body: chunked ? dechunk(rest) : rest };
}

function dechunk(text: string): string {
  let body = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (lineEnd === -1 || !(size > 0)) return body;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** Host headers as upstreams are named behind a proxy: 1–3 characters trip path parsers. */
export const HOST_VARIANTS = ["a", "db", "api", "api:80", "web.internal"] as const;

/** A static route and a route with a path parameter: routers take different paths for each. */
const HOST_ROUTES = [ROUTES.api, userPath(42)] as const;

async function expectOk(
  check: string,
  exchange: () => Promise<RawAnswer>,
  problemsOf: (answer: RawAnswer) => string[],
): Promise<Violation[]> {
  try {
    const answer = await exchange();
    const problems =
      answer.status === 200 ? problemsOf(answer) : [`status ${answer.status}, expected 200`];
    return problems.map((detail) => ({ check, detail }));
  } catch (error) {
    return [{ check, detail: `request failed: ${describeError(error)}` }];
  }
}

/** Every Host variant on both routes, and HTTP/1.0 without a Host, answer 200 with the route's body. */
export async function checkHostHeaders(
  host: string,
  port: number,
  app: AppSpec,
  timeoutMs: number,
): Promise<Violation[]> {
  const bodyProblems = (path: string) => (answer: RawAnswer) =>
    path === ROUTES.api
      ? apiPayloadProblems(answer.body, app)
      : answer.body.includes('"id":42')
        ? []
        : [`body ${JSON.stringify(answer.body.slice(0, 80))} is not user 42`];
  const violations: Violation[] = [];
  for (const path of HOST_ROUTES) {
    for (const name of HOST_VARIANTS) {
      const request = `GET ${path} HTTP/1.1\r\nHost: ${name}\r\nConnection: close`;
      violations.push(
        ...(await expectOk(
          `GET ${path} with "Host: ${name}" answers 200`,
          () => rawExchange(host, port, request, timeoutMs),
          bodyProblems(path),
        )),
      );
    }
    violations.push(
      ...(await expectOk(
        `GET ${path} over HTTP/1.0 without a Host answers 200`,
        () => rawExchange(host, port, `GET ${path} HTTP/1.0`, timeoutMs),
        bodyProblems(path),
      )),
    );
  }
  return violations;
}

/** The GET routes whose HEAD answer must carry GET's Content-Length (or none) and Content-Type. */
export const HEAD_PATHS = [
  ROUTES.root,
  ROUTES.api,
  `${userPath(42)}?fields=name,email`,
  `${ROUTES.items}?count=100`,
] as const;

/** Problems of a HEAD answer against the GET answer to the same path; empty when it is right. */
export function headProblems(get: RawAnswer, head: RawAnswer): string[] {
  const problems: string[] = [];
  if (head.status !== get.status) problems.push(`HEAD status ${head.status}, GET ${get.status}`);
  const length = head.headers.get("content-length");
  const getLength = get.headers.get("content-length") ?? String(get.body.length);
  if (length !== undefined && length !== getLength) {
    problems.push(`HEAD Content-Length ${length}, but GET's body is ${getLength} bytes`);
  }
  const type = head.headers.get("content-type");
  if (type !== undefined && type !== get.headers.get("content-type")) {
    problems.push(`HEAD Content-Type "${type}", GET "${get.headers.get("content-type")}"`);
  }
  if (head.body !== "") problems.push(`HEAD carries a body of ${head.body.length} bytes`);
  return problems;
}

export async function checkHeadMatchesGet(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const path of HEAD_PATHS) {
    const check = `HEAD ${path} sends GET's Content-Length and Content-Type`;
    const request = (method: string) =>
      rawExchange(
        host,
        port,
        `${method} ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close`,
        timeoutMs,
      );
    try {
      const [get, head] = [await request("GET"), await request("HEAD")];
      for (const detail of headProblems(get, head)) violations.push({ check, detail });
    } catch (error) {
      violations.push({
        check,
        detail: `request failed: ${describeError(error)}`,
      });
    }
  }
  return violations;
}
