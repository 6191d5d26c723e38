// The h2 scenario's checks (spec/http2.ts). An app that serves HTTP/2 must negotiate h2 by ALPN
// on its TLS port and answer every contract case over it, as over HTTP/1.1; an app that says it
// cannot (H2_UNSUPPORTED) must indeed offer no h2, or its reason is out of date.

import { once } from "node:events";
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect as connectH2,
  type IncomingHttpHeaders,
  type SecureClientSessionOptions,
} from "node:http2";
import { connect as connectTls } from "node:tls";
import { ROUTES } from "../spec/endpoints.ts";
import { H2_ALPN, H2_UNSUPPORTED, H2C_PORT_OFFSET, H2C_UNSUPPORTED } from "../spec/http2.ts";
import type { AppName, AppSpec } from "../spec/registry.ts";
import { tlsPort } from "../spec/tls.ts";
import { describeError } from "./payloads.ts";
import type { Fetcher, Violation } from "./violation.ts";

/** Headers of a connection, not of a request: HTTP/2 forbids them (RFC 9113 §8.2.2). */
const CONNECTION_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);
/** Statuses whose Response cannot carry a body. */
const NO_BODY = new Set([101, 204, 205, 304]);

function requestHeaders(request: Request): Record<string, string> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {
    ":method": request.method,
    ":path": `${url.pathname}${url.search}`,
  };
  request.headers.forEach((value, name) => {
    if (name === "host") headers[":authority"] = value;
    else if (!CONNECTION_HEADERS.has(name)) headers[name] = value;
  });
  return headers;
}

function toResponse(head: IncomingHttpHeaders, body: Buffer): Response {
  const status = Number(head[":status"]);
  const headers = new Headers();
  for (const [name, value] of Object.entries(head)) {
    if (name.startsWith(":") || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  return new Response(NO_BODY.has(status) ? null : new Uint8Array(body), { status, headers });
}

/** The answer on `stream`: whole, or as far as it came when the server reset the stream. */
function answerOf(stream: ClientHttp2Stream, timeoutMs: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let head: IncomingHttpHeaders | undefined;
    // A timer of its own: stream.setTimeout adds a listener to the session per stream (Bun).
    const timer = setTimeout(() => {
      stream.close();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      if (head) resolve(toResponse(head, Buffer.concat(chunks)));
      else reject(error ?? new Error("the stream closed before any answer"));
    };
    stream.on("response", (received) => {
      head = received;
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A server that answers before reading a body it refuses (413) may reset the stream.
    stream.on("error", settle);
    // Every stream closes, after its last byte ('end') or its reset: one place settles both.
    stream.on("close", () => settle());
  });
}

/** Requests as streams of one HTTP/2 session. */
export function h2Fetcher(session: ClientHttp2Session, timeoutMs: number): Fetcher {
  return async (request) => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const stream = session.request(requestHeaders(request), { endStream: body === undefined });
    const answer = answerOf(stream, timeoutMs);
    if (body) stream.end(body);
    return answer;
  };
}

/**
 * An HTTP/2 session with `authority` once `ready` has come ("connect": TLS has picked h2 by ALPN;
 * "remoteSettings": the server's SETTINGS, the first sign that a cleartext peer speaks HTTP/2),
 * or the reason it has not within the bound.
 */
async function openSession(
  authority: string,
  options: SecureClientSessionOptions,
  ready: "connect" | "remoteSettings",
  timeoutMs: number,
): Promise<ClientHttp2Session> {
  const session = connectH2(authority, options);
  session.on("error", () => {}); // reported through `once` below, or by the stream it breaks
  const timer = setTimeout(
    () =>
      session.destroy(
        new Error(`no ${ready === "connect" ? "h2" : "HTTP/2"} session within ${timeoutMs} ms`),
      ),
    timeoutMs,
  );
  try {
    await once(session, ready);
    return session;
  } catch (error) {
    session.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** An HTTP/2 session with the app's TLS port, h2 offered alone and the run's certificate trusted. */
export function openH2(
  host: string,
  port: number,
  ca: string,
  timeoutMs: number,
): Promise<ClientHttp2Session> {
  return openSession(
    `https://${host}:${tlsPort(port)}`,
    { ca, ALPNProtocols: [H2_ALPN] },
    "connect",
    timeoutMs,
  );
}

/**
 * A cleartext HTTP/2 session with prior knowledge (h2c) with `port`, the preface sent at once:
 * ready when the server's SETTINGS come (a server of HTTP/1.1 only answers otherwise, or closes).
 */
export function openH2c(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ClientHttp2Session> {
  return openSession(`http://${host}:${port}`, {}, "remoteSettings", timeoutMs);
}

/** The ALPN protocol the app's TLS port picks when offered h2 and http/1.1 ("" for none). */
export function alpnChoice(
  host: string,
  port: number,
  ca: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({
      host,
      port: tlsPort(port),
      ca,
      ALPNProtocols: [H2_ALPN, "http/1.1"],
    });
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new Error(`no TLS session within ${timeoutMs} ms`)),
    );
    socket.once("secureConnect", () => {
      resolve(socket.alpnProtocol || "");
      socket.end();
    });
    socket.once("error", reject);
  });
}

/**
 * An app that says it cannot serve HTTP/2 must not pick h2 when offered it: if it does, its
 * runtime or framework has gained HTTP/2 and its entry in H2_UNSUPPORTED is out of date.
 */
export async function checkH2Refused(
  host: string,
  port: number,
  app: AppSpec,
  ca: string,
  timeoutMs: number,
): Promise<Violation[]> {
  const reason = H2_UNSUPPORTED[app.name as AppName];
  const check = "over HTTP/2: an app that cannot serve it offers no h2";
  try {
    const chosen = await alpnChoice(host, port, ca, timeoutMs);
    if (chosen !== H2_ALPN) return [];
    const detail = `${app.name} picked h2 by ALPN, though its entry in H2_UNSUPPORTED says "${reason}": measure it and drop the entry`;
    return [{ check, detail }];
  } catch (error) {
    return [{ check, detail: `TLS connection failed: ${describeError(error)}` }];
  }
}

/**
 * The status of GET /api/test over h2c with prior knowledge on `port`, or undefined when no
 * HTTP/2 answer comes (refused, closed, a protocol error, or nothing within the bound).
 */
export async function h2cStatus(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<number | undefined> {
  let session: ClientHttp2Session | undefined;
  try {
    session = await openH2c(host, port, timeoutMs);
    const fetcher = h2Fetcher(session, timeoutMs);
    const answer = await fetcher(new Request(`http://${host}:${port}${ROUTES.api}`));
    return answer.status;
  } catch {
    return undefined;
  } finally {
    session?.destroy();
  }
}

/**
 * An app that says it cannot serve h2c must give no HTTP/2 answer to a client with prior
 * knowledge, on its plain port or on port + 2000: if it does, its runtime or framework has gained
 * it and its entry in H2C_UNSUPPORTED is out of date.
 */
export async function checkH2cRefused(
  host: string,
  port: number,
  app: AppSpec,
  timeoutMs: number,
): Promise<Violation[]> {
  const reason = H2C_UNSUPPORTED[app.name as AppName];
  const check = "over h2c: an app that cannot serve it gives no HTTP/2 answer";
  const violations: Violation[] = [];
  for (const at of [port, port + H2C_PORT_OFFSET]) {
    const status = await h2cStatus(host, at, timeoutMs);
    if (status === undefined) continue;
    const detail = `${app.name} answered HTTP/2 with prior knowledge on port ${at} (status ${status}), though its entry in H2C_UNSUPPORTED says "${reason}": measure it and drop the entry`;
    violations.push({ check, detail });
  }
  return violations;
}
