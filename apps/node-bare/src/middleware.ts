// The production-middleware routes on node:http with no framework: what a careful engineer writes
// by hand with Node's own facilities, the lean baseline for the Node framework apps' middleware
// (hono, elysia, express, fastify). The header work (JWT, Accept-Encoding, If-None-Match) and the rate limiter
// are packages/fetch-bare's, the very code bun-bare and deno-bare run; what is Node's own here is
// the answering, node:zlib and node:crypto. Each route does its own concern inline: no chain.

import { hash } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import {
  apiPayload,
  buildItems,
  CORS,
  ERRORS,
  type ErrorMessage,
  errorBody,
  JWT_SECRET,
  MIDDLEWARE_ROUTES,
  parseItemCount,
  RATE_LIMIT,
  STACK_ITEMS,
} from "@bench/contract";
import {
  bearerToken,
  ifNoneMatchHits,
  importHs256Key,
  type JwtUser,
  shouldGzip,
  verifyHs256,
} from "@bench/fetch-bare/headers";
import { FixedWindowLimiter } from "@bench/fetch-bare/rate-limit";

/** Imported once, before the server can listen (top-level await). */
const jwtKey = await importHs256Key(JWT_SECRET);

const authenticate = (req: IncomingMessage): Promise<JwtUser | undefined> =>
  verifyHs256(jwtKey, bearerToken(req.headers.authorization));

/**
 * A strong ETag: SHA-1 of the exact body through node:crypto's one-shot hash (~17 µs for ~22 KB;
 * WebCrypto's digest is asynchronous, ~60 µs). Node has no faster hash built in.
 */
const etagOf = (body: string) => `"${hash("sha1", body, "base64url")}"`;

const JSON_TYPE = "application/json";
const ALLOWED = { "access-control-allow-origin": CORS.allowedOrigin, vary: "Origin" } as const;
const NOT_ALLOWED = { vary: "Origin" } as const;
const PREFLIGHT = {
  ...ALLOWED,
  "access-control-allow-methods": CORS.allowMethods,
  "access-control-allow-headers": CORS.allowHeaders,
  "access-control-max-age": String(CORS.maxAgeSec),
} as const;

const corsHeaders = (req: IncomingMessage) =>
  req.headers.origin === CORS.allowedOrigin ? ALLOWED : NOT_ALLOWED;

function sendJson(
  res: ServerResponse,
  status: number,
  text: string,
  headers: OutgoingHttpHeaders,
): void {
  res.writeHead(status, {
    ...headers,
    "content-type": JSON_TYPE,
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

const sendError = (
  res: ServerResponse,
  status: number,
  message: ErrorMessage,
  headers: OutgoingHttpHeaders = {},
) => sendJson(res, status, JSON.stringify(errorBody(message)), headers);

/** An answer with no body (204, 304). */
function sendEmpty(res: ServerResponse, status: number, headers: OutgoingHttpHeaders): void {
  res.writeHead(status, headers);
  res.end();
}

/** A route's handler; a promise it returns is the caller's to watch for failure. */
export type MiddlewareRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  query: () => URLSearchParams,
) => unknown;

async function me(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const user = await authenticate(req);
  if (user) sendJson(res, 200, JSON.stringify({ sub: user.sub, name: user.name }), {});
  else sendError(res, 401, ERRORS.unauthorized);
}

/**
 * A preflight from the allowed origin gets the fixed Allow-* answer; any other origin gets none
 * of it, which is how a browser learns the refusal.
 */
const preflight = (req: IncomingMessage, res: ServerResponse) =>
  sendEmpty(res, 204, req.headers.origin === CORS.allowedOrigin ? PREFLIGHT : NOT_ALLOWED);

/** The api payload, readable cross-origin from the allowed origin only. */
const publicApi = (req: IncomingMessage, res: ServerResponse) =>
  sendJson(res, 200, JSON.stringify(apiPayload("bare")), corsHeaders(req));

/**
 * The JSON text, gzip-compressed or not (shouldGzip): zlib's default level 6 in one synchronous call.
 * The body is already whole, and zlib.gzip's thread-pool round trip costs more (~375 µs against
 * ~225 µs for the ~22 KB items, timed here) on a server that has one core anyway.
 */
function maybeGzip(
  res: ServerResponse,
  json: string,
  gzipped: boolean,
  headers: OutgoingHttpHeaders,
): void {
  if (!gzipped) {
    sendJson(res, 200, json, headers);
    return;
  }
  const body = gzipSync(json);
  res.writeHead(200, {
    ...headers,
    "content-type": JSON_TYPE,
    "content-encoding": "gzip",
    "content-length": body.length,
  });
  res.end(body);
}

function gzipItems(req: IncomingMessage, res: ServerResponse, query: () => URLSearchParams): void {
  const count = parseItemCount(query().get("count"));
  if (count === undefined) sendError(res, 400, ERRORS.badCount);
  else {
    const json = JSON.stringify(buildItems(count));
    const gzipped = shouldGzip(req.headers["accept-encoding"], json);
    maybeGzip(res, json, gzipped, { vary: "Accept-Encoding" });
  }
}

function etagItems(req: IncomingMessage, res: ServerResponse, query: () => URLSearchParams): void {
  const count = parseItemCount(query().get("count"));
  if (count === undefined) {
    sendError(res, 400, ERRORS.badCount);
    return;
  }
  const json = JSON.stringify(buildItems(count));
  const etag = etagOf(json);
  if (ifNoneMatchHits(req.headers["if-none-match"], etag)) sendEmpty(res, 304, { etag });
  else sendJson(res, 200, json, { etag });
}

const limiter = new FixedWindowLimiter(RATE_LIMIT.max, RATE_LIMIT.windowSec * 1000);

/** Keyed by the socket's address, never by a header a client could forge. */
function limited(req: IncomingMessage, res: ServerResponse): void {
  const retryAfter = limiter.hit(req.socket.remoteAddress ?? "");
  if (retryAfter === 0) sendJson(res, 200, JSON.stringify(apiPayload("bare")), {});
  else sendError(res, 429, ERRORS.tooManyRequests, { "retry-after": String(retryAfter) });
}

/**
 * CORS, auth, compression and ETag in that order. The ETag is taken before compressing, so a
 * 304 costs no gzip; the gzip answer is another representation, so its strong tag gets a suffix
 * (as Apache's mod_deflate does) instead of sharing the plain one.
 */
async function stackMe(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const cors = corsHeaders(req);
  const user = await authenticate(req);
  if (user === undefined) {
    sendError(res, 401, ERRORS.unauthorized, cors);
    return;
  }
  const json = JSON.stringify({ sub: user.sub, name: user.name, items: buildItems(STACK_ITEMS) });
  const gzipped = shouldGzip(req.headers["accept-encoding"], json);
  const tag = etagOf(json);
  const etag = gzipped ? `${tag.slice(0, -1)}-gzip"` : tag;
  const headers = { ...cors, vary: "Origin, Accept-Encoding", etag };
  if (ifNoneMatchHits(req.headers["if-none-match"], etag)) sendEmpty(res, 304, headers);
  else maybeGzip(res, json, gzipped, headers);
}

/** Each path's GET (and HEAD) handler, and its preflight where CORS applies. */
const BY_PATH = new Map<
  string,
  { readonly read: MiddlewareRoute; readonly options?: MiddlewareRoute }
>([
  [MIDDLEWARE_ROUTES.me, { read: me }],
  [MIDDLEWARE_ROUTES.public, { read: publicApi, options: preflight }],
  [MIDDLEWARE_ROUTES.gzipItems, { read: gzipItems }],
  [MIDDLEWARE_ROUTES.etagItems, { read: etagItems }],
  [MIDDLEWARE_ROUTES.limited, { read: limited }],
  [MIDDLEWARE_ROUTES.stackMe, { read: stackMe, options: preflight }],
]);

/** The production-middleware route for this path and method, if there is one. */
export function middlewareRoute(
  path: string,
  method: string | undefined,
  read: boolean,
): MiddlewareRoute | undefined {
  const route = BY_PATH.get(path);
  return read ? route?.read : method === "OPTIONS" ? route?.options : undefined;
}
