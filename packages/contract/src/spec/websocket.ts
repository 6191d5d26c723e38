// WebSocket (issue 48): an echo route and a broadcast route on every app, each served its
// framework's own way (Bun.serve's websocket, Deno.upgradeWebSocket, the ws package on Node,
// Hono's upgradeWebSocket, Elysia's .ws(), @fastify/websocket). The apps take the routes, the
// limit and the answers from here; the verifier's probe (check/ws-checks.ts) holds the cases
// they are checked with, which no app needs. "@bench/contract/ws": loaded by an app only for
// these few constants, so a plain run's start-up does not carry a WebSocket client or checker.

import type { AppName } from "./registry.ts";

export const WS_ROUTES = {
  /** Every text or binary message comes back unchanged, as one message of the same type. */
  echo: "/ws/echo",
  /** A message from one connection goes to every other connection on this route, not back. */
  broadcast: "/ws/broadcast",
} as const;

/** The publish/subscribe topic of the broadcast route, where a framework names one. */
export const WS_TOPIC = "broadcast";

/**
 * The largest message an app takes (after reassembling its fragments): a larger one closes the
 * connection with WS_CLOSE.tooBig (RFC 6455 §7.4.1: 1009, "message too big").
 */
export const WS_MAX_MESSAGE_BYTES = 65_536;

/**
 * The most an app keeps unsent for one connection: a client that reads nothing while it sends
 * makes its echoes pile up; past this, the app ends the connection (no close frame can reach a
 * client that does not read), so one bad client cannot grow the server without bound.
 */
export const WS_MAX_BUFFERED_BYTES = 1_048_576;

export const WS_CLOSE = {
  /** Normal closure: what the client sends at the end, and the server echoes. */
  normal: 1000,
  /** A message over WS_MAX_MESSAGE_BYTES. */
  tooBig: 1009,
} as const;

/** The message sizes the ws-echo scenario sends: a small one and 4 KiB. */
export const WS_MESSAGE_SIZES = [32, 4096] as const;

/**
 * The ws-broadcast scenario's messages in flight: with one, the server idles while the last
 * subscriber's receipt travels back and the next message goes out (Bun.serve at 70-80% of its
 * core, 100 subscribers); a few keep it busy.
 */
export const WS_BROADCAST_IN_FLIGHT = 4;

export const WS_ERRORS = {
  /** The answer (426) to a request on a WebSocket route that asks for no upgrade. */
  upgradeRequired: "this route speaks WebSocket: send GET with Upgrade: websocket",
  /** The answer (400) where the app itself refuses an opening request (no valid key). */
  badHandshake: "not a valid WebSocket opening request (RFC 6455 section 4.2.1)",
} as const;

/** The UTF-8 length of a text message, counted only where it may pass `limit`. */
export function textOverLimit(text: string, limit = WS_MAX_MESSAGE_BYTES): boolean {
  // Each UTF-16 unit is 1 to 3 bytes of UTF-8: decided by the length alone but in between.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return new TextEncoder().encode(text).length > limit;
}

/** Whether `request` asks to become a WebSocket (Upgrade: websocket, any case). */
export function wantsWebSocket(request: Request): boolean {
  return request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

const ELYSIA_NODE =
  "@elysiajs/node 1.4.5 (crossws) hands every message to Elysia's handler as text, so binary cannot be echoed as binary; it sets no message size limit (ws's default, 100 MiB) and throws on a text containing \"ping\" (ws.pong is not a function)";
const ELYSIA_DENO =
  "Elysia's web-standard adapter, which Elysia runs on under Deno.serve(app.fetch), has no WebSocket: .ws() warns \"Current adapter doesn't support WebSocket\" and adds no route";

/**
 * Why an app serves no WebSocket route, for each app that cannot: it answers both routes with
 * 501 and this reason as its JSON error, and a test shows the reason still true.
 */
export const WS_UNSUPPORTED: Readonly<Partial<Record<AppName, string>>> = {
  "node-elysia": ELYSIA_NODE,
  "deno-elysia": ELYSIA_DENO,
};

/**
 * Apps whose framework changes some text messages before the app sees them, so their echo of
 * such text is not the text sent: the probe checks the change is what the note says (so the
 * note goes the day the framework stops), and every other case as for any app.
 */
export const WS_TEXT_REPARSED: Readonly<Partial<Record<AppName, string>>> = {
  "bun-elysia":
    'Elysia 1.4.30 parses every text message before its handler sees it (JSON when it starts with a quote, [, { or /; numbers, true, false and null by name), with no option to turn it off (elysiajs/elysia#1911): such text is echoed re-serialized, {"a": 1} as {"a":1}',
};

/** The text the probe sends to see a framework's parsing, and what the parsing makes of it. */
export const WS_JSON_TEXT = {
  sent: '{"a": 1, "b": [1.50, true]}',
  reparsed: '{"a":1,"b":[1.5,true]}',
};
