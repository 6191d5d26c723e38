// The production-middleware routes: what a team pays for a JWT check, CORS, compression,
// conditional GETs and a rate limiter. Each framework app meets them with its own middleware
// (the packages its users install); the values here (secret, tokens, origin, limit) are the
// ones every app, every check and every load generator share.

import { createHmac } from "node:crypto";
import { buildItems, ITEMS_DEFAULT } from "./data.ts";

export const MIDDLEWARE_ROUTES = {
  /** GET, `Authorization: Bearer <JWT>`: the token's sub and name. */
  me: "/api/me",
  /** GET answers the api payload; CORS is scoped to this route (OPTIONS is its preflight). */
  public: "/api/public",
  /** GET `?count=`: the items, gzip-compressed when the client accepts it. */
  gzipItems: "/api/gzip/items",
  /** GET `?count=`: the items with an ETag; a matching If-None-Match is 304. */
  etagItems: "/api/etag/items",
  /** GET: the api payload, at most RATE_LIMIT.max times per window and client address. */
  limited: "/api/limited",
  /** GET: CORS, auth, compression and ETag together, in that order. */
  stackMe: "/api/stack/me",
} as const;

/** The HS256 secret every app verifies tokens with. */
export const JWT_SECRET = "runtime-bench HS256 secret: 256 bits or more of it";

/** Who the valid token names; /api/me answers exactly this object, in this key order. */
export const JWT_USER = { sub: "user-42", name: "Ada Lovelace" } as const;

const ISSUED_AT = 1_767_225_600; // 2026-01-01T00:00:00Z
const FAR_FUTURE = 4_102_444_800; // 2100-01-01: valid for any run
const LONG_AGO = 1_577_836_800; // 2020-01-01

const base64url = (text: string) => Buffer.from(text).toString("base64url");

/** A compact JWS: HS256 unless `alg` says otherwise ("none" leaves the signature empty). */
export function signJwt(
  payload: Readonly<Record<string, unknown>>,
  secret: string = JWT_SECRET,
  alg = "HS256",
): string {
  const signed = `${base64url(JSON.stringify({ alg, typ: "JWT" }))}.${base64url(JSON.stringify(payload))}`;
  if (alg === "none") return `${signed}.`;
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
}

const claims = { ...JWT_USER, iat: ISSUED_AT, exp: FAR_FUTURE };

export const TOKENS = {
  /** Valid until 2100. */
  valid: signJwt(claims),
  /** Expired in 2020: `exp` must be checked, not only the signature. */
  expired: signJwt({ ...JWT_USER, iat: LONG_AGO - 3600, exp: LONG_AGO }),
  /** The right claims signed with another secret. */
  wrongSignature: signJwt(claims, "not the benchmark's secret, though just as long"),
  /** The classic downgrade: no signature at all. */
  unsigned: signJwt(claims, JWT_SECRET, "none"),
  /** Not a JWT. */
  malformed: "not-a-jwt",
} as const;

export const bearer = (token: string) => `Bearer ${token}`;

/** CORS on /api/public and /api/stack/me: one allowed origin, exact preflight answers. */
export const CORS = {
  allowedOrigin: "https://app.example.com",
  otherOrigin: "https://evil.example.com",
  /** The preflight's Access-Control-Allow-* values, byte for byte. */
  allowMethods: "GET",
  allowHeaders: "Authorization,Content-Type",
  maxAgeSec: 600,
} as const;

/** Per client address: RATE_LIMIT.max requests per window, then 429 with Retry-After. */
export const RATE_LIMIT = { max: 10, windowSec: 60 } as const;

/** Items in the gzip and etag answers: the `large` scenario's ~22 KB. */
export const MIDDLEWARE_ITEMS = ITEMS_DEFAULT;

/** The gzip and etag scenarios' paths: MIDDLEWARE_ITEMS items, compressed or tagged. */
export const MIDDLEWARE_PATHS = {
  gzip: `${MIDDLEWARE_ROUTES.gzipItems}?count=${MIDDLEWARE_ITEMS}`,
  etag: `${MIDDLEWARE_ROUTES.etagItems}?count=${MIDDLEWARE_ITEMS}`,
} as const;

/** The stack scenario's request headers (and the etag scenario's, less If-None-Match). */
export const STACK_HEADERS: Readonly<Record<string, string>> = {
  origin: CORS.allowedOrigin,
  authorization: bearer(TOKENS.valid),
  "accept-encoding": "gzip",
};

/** Items in the stack answer: enough (~2 KB) to pass every compressor's 1 KB threshold. */
export const STACK_ITEMS = 10;

export interface StackPayload {
  readonly sub: string;
  readonly name: string;
  readonly items: ReturnType<typeof buildItems>;
}

/** The body of GET /api/me for the valid token, key order included. */
export function mePayload(): { readonly sub: string; readonly name: string } {
  return { sub: JWT_USER.sub, name: JWT_USER.name };
}

/** The body of GET /api/stack/me: who the token names, and their recent items. */
export function stackPayload(): StackPayload {
  return { sub: JWT_USER.sub, name: JWT_USER.name, items: buildItems(STACK_ITEMS) };
}
