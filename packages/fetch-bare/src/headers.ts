// The header work behind the middleware routes, on strings, node:buffer and WebCrypto only: a
// bearer JWT (HS256), Accept-Encoding and If-None-Match. Each parses only what its route needs.
// No Request in sight, so node-bare (node:http) runs the very same code as bun-bare and deno-bare.

import { Buffer } from "node:buffer";

/** Who a valid token names. */
export interface JwtUser {
  readonly sub: string;
  readonly name: string;
}

/** Three non-empty base64url segments: an unsigned token ("alg": "none") has an empty third. */
const COMPACT_JWS = /^([\w-]+)\.([\w-]+)\.([\w-]+)$/;
const HS256_BYTES = 32;
const encoder = new TextEncoder();

/** The token of an `Authorization: Bearer <token>` header (the scheme is case-insensitive). */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  if (!authorization || authorization.length < 8) return undefined;
  const scheme = authorization.slice(0, 7);
  if (scheme !== "Bearer " && scheme.toLowerCase() !== "bearer ") return undefined;
  return authorization.slice(7).trimStart();
}

/**
 * An HS256 key for WebCrypto, imported once at start: an opaque, non-extractable key object, so
 * every verification is one native HMAC-SHA-256 and a constant-time comparison.
 */
export function importHs256Key(secret: string): Promise<CryptoKey> {
  const raw = encoder.encode(secret);
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

const decodeJson = (segment: string): unknown =>
  JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));

/** The claims' user when `exp` is in the future (and `nbf`, if any, is past); else undefined. */
function userOf(claims: unknown, nowSec: number): JwtUser | undefined {
  if (!isObject(claims)) return undefined;
  const { exp, nbf, sub, name } = claims;
  // exp is required: a token that never expires is not one this API hands out.
  if (typeof exp !== "number" || !(nowSec < exp)) return undefined;
  if (nbf !== undefined && (typeof nbf !== "number" || !(nowSec >= nbf))) return undefined;
  if (typeof sub !== "string" || typeof name !== "string") return undefined;
  return { sub, name };
}

/**
 * The user of a compact HS256 JWS signed with `key`, or undefined for anything else. The header
 * must say HS256 (no other alg is tried: no "none", no key confusion) and name no extension
 * (`crit`); the signature is checked by WebCrypto (constant-time) before the claims are read.
 */
export async function verifyHs256(
  key: CryptoKey,
  token: string | undefined,
  nowSec = Date.now() / 1000,
): Promise<JwtUser | undefined> {
  if (token === undefined) return undefined;
  const parts = COMPACT_JWS.exec(token);
  if (parts === null) return undefined;
  const [, header = "", payload = "", signature = ""] = parts;
  const signed = token.slice(0, header.length + 1 + payload.length);
  try {
    const head = decodeJson(header);
    if (!isObject(head) || head.alg !== "HS256" || head.crit !== undefined) return undefined;
    const mac = Buffer.from(signature, "base64url");
    // Only the canonical encoding: another spelling of the same bytes is another token.
    if (mac.length !== HS256_BYTES || mac.toString("base64url") !== signature) return undefined;
    const valid = await crypto.subtle.verify("HMAC", key, mac, encoder.encode(signed));
    return valid ? userOf(decodeJson(payload), nowSec) : undefined;
  } catch {
    // A segment that is not base64url JSON: a malformed token, the same 401 as any other.
    return undefined;
  }
}

const Q_VALUE = /;\s*q\s*=\s*([\d.]+)/i;

/**
 * Whether an Accept-Encoding value accepts gzip (RFC 9110 12.5.3): listed as gzip (or x-gzip)
 * with a q-value above 0, or covered by `*` when gzip is not listed. "gzip" alone, what clients
 * send most, is answered without parsing.
 */
export function acceptsGzip(header: string | null | undefined): boolean {
  if (!header) return false;
  if (header === "gzip") return true;
  let star = false;
  for (const part of header.toLowerCase().split(",")) {
    const semi = part.indexOf(";");
    const coding = (semi === -1 ? part : part.slice(0, semi)).trim();
    if (coding !== "gzip" && coding !== "x-gzip" && coding !== "*") continue;
    const q = semi === -1 ? undefined : Q_VALUE.exec(part.slice(semi));
    const accepted = q === undefined || q === null || Number(q[1]) > 0;
    if (coding !== "*") return accepted;
    star = accepted;
  }
  return star;
}

/**
 * Bodies shorter than this (in UTF-16 units, never more than their bytes) go out as they are:
 * gzip's framing and CPU buy little there. The frameworks' compressors default to the same 1 KB.
 */
export const GZIP_MIN_LENGTH = 1024;

/** Whether to gzip `body` for a client that sent this Accept-Encoding. */
export const shouldGzip = (acceptEncoding: string | null | undefined, body: string): boolean =>
  body.length >= GZIP_MIN_LENGTH && acceptsGzip(acceptEncoding);

/**
 * Whether If-None-Match names `etag` (RFC 9110 13.1.2: a list, `*`, weak comparison). The
 * usual case, the one tag the client was given, is one string comparison.
 */
export function ifNoneMatchHits(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  for (const part of header.split(",")) {
    const tag = part.trim();
    if (tag === "*" || tag === etag || (tag.startsWith("W/") && tag.slice(2) === etag)) return true;
  }
  return false;
}
