// The production-middleware routes with no framework: what a careful engineer writes by hand
// with the runtime's own facilities, the floor the frameworks' middleware is measured against.
// Each handler does its own concern inline (no middleware chain, no per-request closures), so an
// existing route pays nothing for these: bun-bare and deno-bare only reach them after their own
// routes. Where Bun and Deno differ in what they offer, each uses its fastest built-in (below).

import { hash } from "node:crypto";
import { gzipSync } from "node:zlib";
import {
  apiPayload,
  buildItems,
  CORS,
  ERRORS,
  JWT_SECRET,
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
} from "./headers.ts";
import { fail, query } from "./index.ts";
import { FixedWindowLimiter } from "./rate-limit.ts";

const ON_BUN = typeof Bun !== "undefined";

/** Imported once, before the first request can arrive (top-level await). */
const jwtKey = await importHs256Key(JWT_SECRET);

/** The token's user, or undefined for anything but a valid, unexpired HS256 bearer token. */
const authenticate = (request: Request): Promise<JwtUser | undefined> =>
  verifyHs256(jwtKey, bearerToken(request.headers.get("authorization")));

/**
 * gzip at zlib's default level 6, in one synchronous call: the body is already whole in memory,
 * and a thread-pool round trip or a CompressionStream costs more than compressing it on a server
 * that has one core anyway. For the ~22 KB items (timed here, one process): Bun.gzipSync (Bun's
 * own zlib binding) ~140 µs against ~155 µs for Bun's node:zlib gzipSync and ~250 µs for its
 * zlib.gzip; Deno has no gzip of its own but CompressionStream (~400 µs): node:zlib, ~165 µs.
 */
const gzip: (text: string) => Uint8Array<ArrayBuffer> = ON_BUN
  ? (text) => Bun.gzipSync(text)
  : (text) => gzipSync(text) as Uint8Array<ArrayBuffer>;

/**
 * A strong ETag: a hash of the exact body, the same in every process and worker. Bun.hash
 * (wyhash, 64 bits: ~1.5 µs for ~22 KB) on Bun; Deno has no fast non-cryptographic hash, so
 * SHA-1 through node:crypto's one-shot hash (~19 µs; WebCrypto's digest is asynchronous, ~60 µs).
 * Either only has to tell this body from the URL's other bodies, not resist an attacker.
 */
const etagOf: (body: string) => string = ON_BUN
  ? (body) => `"${Bun.hash(body).toString(36)}"`
  : (body) => `"${hash("sha1", body, "base64url")}"`;

const JSON_TYPE = "application/json";
const ALLOWED = { "access-control-allow-origin": CORS.allowedOrigin, vary: "Origin" } as const;
const NOT_ALLOWED = { vary: "Origin" } as const;
const PREFLIGHT = {
  ...ALLOWED,
  "access-control-allow-methods": CORS.allowMethods,
  "access-control-allow-headers": CORS.allowHeaders,
  "access-control-max-age": String(CORS.maxAgeSec),
} as const;

/** The CORS answer headers for this request's Origin: exactly one allowed origin, no list. */
const corsHeaders = (request: Request) =>
  request.headers.get("origin") === CORS.allowedOrigin ? ALLOWED : NOT_ALLOWED;

/** GET /api/me: the token's own sub and name. */
export async function me(request: Request): Promise<Response> {
  const user = await authenticate(request);
  return user ? Response.json({ sub: user.sub, name: user.name }) : fail(401, ERRORS.unauthorized);
}

/**
 * OPTIONS /api/public and /api/stack/me: a preflight from the allowed origin gets the fixed
 * Allow-* answer; any other origin gets none of it, which is how a browser learns the refusal.
 */
export function preflight(request: Request): Response {
  const allowed = request.headers.get("origin") === CORS.allowedOrigin;
  return new Response(null, { status: 204, headers: allowed ? PREFLIGHT : NOT_ALLOWED });
}

/** GET /api/public: the api payload, readable cross-origin from the allowed origin only. */
export function publicApi(request: Request): Response {
  return Response.json(apiPayload("bare"), { headers: corsHeaders(request) });
}

/** The JSON text, gzip-compressed or not; either way the answer Varies on Accept-Encoding. */
function maybeGzip(json: string, gzipped: boolean, headers: Record<string, string>): Response {
  return gzipped
    ? new Response(gzip(json), {
        headers: { ...headers, "content-type": JSON_TYPE, "content-encoding": "gzip" },
      })
    : new Response(json, { headers: { ...headers, "content-type": JSON_TYPE } });
}

/** GET /api/gzip/items?count=N: the items, compressed when accepted (and 1 KB or more). */
export function gzipItems(request: Request): Response {
  const count = parseItemCount(query(request).get("count"));
  if (count === undefined) return fail(400, ERRORS.badCount);
  const json = JSON.stringify(buildItems(count));
  const gzipped = shouldGzip(request.headers.get("accept-encoding"), json);
  return maybeGzip(json, gzipped, { vary: "Accept-Encoding" });
}

/** GET /api/etag/items?count=N: the items with their ETag; 304 when the client has them. */
export function etagItems(request: Request): Response {
  const count = parseItemCount(query(request).get("count"));
  if (count === undefined) return fail(400, ERRORS.badCount);
  const json = JSON.stringify(buildItems(count));
  const etag = etagOf(json);
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: { etag } });
  }
  return new Response(json, { headers: { "content-type": JSON_TYPE, etag } });
}

/** A fresh store for GET /api/limited: RATE_LIMIT.max per window and client address. */
export const rateLimiter = () =>
  new FixedWindowLimiter(RATE_LIMIT.max, RATE_LIMIT.windowSec * 1000);

/**
 * GET /api/limited, keyed by the socket's address (the caller passes it: Bun's requestIP, Deno's
 * remoteAddr), never by a header a client could forge.
 */
export function limited(limiter: FixedWindowLimiter, address: string | undefined): Response {
  const retryAfter = limiter.hit(address ?? "");
  if (retryAfter === 0) return Response.json(apiPayload("bare"));
  return fail(429, ERRORS.tooManyRequests, { "retry-after": String(retryAfter) });
}

/**
 * GET /api/stack/me: CORS, auth, compression and ETag in that order. The ETag is taken before
 * compressing, so a 304 costs no gzip; the gzip answer is another representation, so its strong
 * tag gets a suffix (as Apache's mod_deflate does) instead of sharing the plain one.
 */
export async function stackMe(request: Request): Promise<Response> {
  const cors = corsHeaders(request);
  const user = await authenticate(request);
  if (user === undefined) return fail(401, ERRORS.unauthorized, cors);
  const json = JSON.stringify({ sub: user.sub, name: user.name, items: buildItems(STACK_ITEMS) });
  const gzipped = shouldGzip(request.headers.get("accept-encoding"), json);
  const tag = etagOf(json);
  const etag = gzipped ? `${tag.slice(0, -1)}-gzip"` : tag;
  const headers = { ...cors, vary: "Origin, Accept-Encoding", etag };
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  return maybeGzip(json, gzipped, headers);
}
