// WebSocket (issue 48): an echo route and a broadcast route on every app, each served its
// framework's own way (Bun.serve's websocket, Deno.upgradeWebSocket, the ws package on Node,
// Hono's upgradeWebSocket, Elysia's .ws(), @fastify/websocket). The apps take the routes, the
// limit and the answers from here; the verifier's probe (check/ws-checks.ts) holds the cases
// they are checked with, which no app needs. "@bench/contract/ws": loaded by an app only for
// these few constants, so a plain run's start-up does not carry a WebSocket client or checker.

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
