// The hand-written middleware's parts, on the inputs the contract's checks do not send.
import { describe, expect, test } from "bun:test";
import { JWT_SECRET, JWT_USER, signJwt, TOKENS } from "@bench/contract";
import {
  acceptsGzip,
  bearerToken,
  ifNoneMatchHits,
  importHs256Key,
  verifyHs256,
} from "../src/headers.ts";
import { FixedWindowLimiter } from "../src/rate-limit.ts";

const key = await importHs256Key(JWT_SECRET);
const NOW = 1_800_000_000;
const claims = { ...JWT_USER, exp: NOW + 60 };
const verify = (token: string | undefined) => verifyHs256(key, token, NOW);

describe("HS256 bearer tokens", () => {
  test("the contract's tokens: only the valid one names its user", async () => {
    expect(await verifyHs256(key, TOKENS.valid)).toEqual({ ...JWT_USER });
    for (const token of [
      TOKENS.expired,
      TOKENS.wrongSignature,
      TOKENS.unsigned,
      TOKENS.malformed,
    ]) {
      expect(await verifyHs256(key, token)).toBeUndefined();
    }
  });

  test("exp is required and strict; nbf, when present, must have passed", async () => {
    expect(await verify(signJwt(claims))).toEqual({ ...JWT_USER });
    expect(await verify(signJwt({ ...JWT_USER }))).toBeUndefined();
    expect(await verify(signJwt({ ...claims, exp: NOW }))).toBeUndefined();
    expect(await verify(signJwt({ ...claims, exp: String(NOW + 60) }))).toBeUndefined();
    expect(await verify(signJwt({ ...claims, nbf: NOW + 1 }))).toBeUndefined();
    expect(await verify(signJwt({ ...claims, nbf: NOW }))).toEqual({ ...JWT_USER });
  });

  test("no alg but HS256, even with a valid HMAC; no sub or name, no user", async () => {
    expect(await verify(signJwt(claims, JWT_SECRET, "HS512"))).toBeUndefined();
    expect(await verify(signJwt(claims, JWT_SECRET, "hs256"))).toBeUndefined();
    expect(await verify(signJwt({ exp: NOW + 60, sub: "x" }))).toBeUndefined();
    expect(await verify(signJwt({ ...claims, name: 42 }))).toBeUndefined();
  });

  test("a token that is not three base64url segments of JSON is refused, not thrown", async () => {
    const [head, body, mac] = signJwt(claims).split(".") as [string, string, string];
    for (const token of [
      `${head}.${body}`,
      `${head}.${body}.${mac}.${mac}`,
      `${head}.${body}.${mac}=`,
      `${head}.${body}.${mac}A`,
      `${head}.${body}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`,
      `${head}..${mac}`,
      `bm90IGpzb24.${body}.${mac}`,
      `${head}.bm90IGpzb24.${mac}`,
      "",
    ]) {
      expect(await verify(token)).toBeUndefined();
    }
  });

  test("the Bearer scheme is case-insensitive; other schemes are not tokens", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer  abc")).toBe("abc");
    expect(bearerToken("BEARER abc")).toBe("abc");
    expect(bearerToken("Basic dXNlcjpwYXNz")).toBeUndefined();
    expect(bearerToken("Bearer ")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });
});

test("Accept-Encoding: gzip with q above 0, directly or through *", () => {
  const yes = ["gzip", "deflate, gzip", "GZIP;q=0.5", "br;q=1, *", "x-gzip", "gzip ; q=1.0"];
  const no = ["", "identity", "br", "gzip;q=0", "gzip;q=0.000, *", "*;q=0", "gzipx"];
  for (const value of yes) expect([value, acceptsGzip(value)]).toEqual([value, true]);
  for (const value of no) expect([value, acceptsGzip(value)]).toEqual([value, false]);
  expect(acceptsGzip(null)).toBe(false);
});

test("If-None-Match: the tag itself, in a list, weak, or *", () => {
  const etag = '"abc"';
  for (const value of ['"abc"', '"x", "abc"', 'W/"abc"', "*", ' "abc" ']) {
    expect([value, ifNoneMatchHits(value, etag)]).toEqual([value, true]);
  }
  for (const value of ['"abcd"', '"ab"', "abc", "", 'W/"x"']) {
    expect([value, ifNoneMatchHits(value, etag)]).toEqual([value, false]);
  }
  expect(ifNoneMatchHits(undefined, etag)).toBe(false);
});

describe("FixedWindowLimiter", () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  test("max hits per window and key, then the seconds left; a new window starts afresh", () => {
    const time = clock();
    const limiter = new FixedWindowLimiter(3, 60_000, time.now);
    expect([1, 2, 3].map(() => limiter.hit("a"))).toEqual([0, 0, 0]);
    expect(limiter.hit("b")).toBe(0);
    expect(limiter.hit("a")).toBe(60);
    time.advance(59_001);
    expect(limiter.hit("a")).toBe(1);
    time.advance(999);
    expect(limiter.hit("a")).toBe(0);
  });

  test("a window is the key's own, from its first hit", () => {
    const time = clock();
    const limiter = new FixedWindowLimiter(1, 60_000, time.now);
    limiter.hit("a");
    time.advance(30_000);
    limiter.hit("b");
    expect(limiter.hit("b")).toBe(60);
    expect(limiter.hit("a")).toBe(30);
  });

  test("memory: keys not seen for two windows are dropped; a limited key is not forgotten early", () => {
    const time = clock();
    const limiter = new FixedWindowLimiter(1, 60_000, time.now);
    for (let i = 0; i < 1000; i++) limiter.hit(`client-${i}`);
    expect(limiter.size).toBe(1000);
    time.advance(59_999);
    // Still limited just before its window ends, whatever the generations did meanwhile.
    expect(limiter.hit("client-0")).toBe(1);
    time.advance(60_001);
    limiter.hit("late");
    time.advance(60_000);
    limiter.hit("later");
    expect(limiter.size).toBe(2);
  });
});
