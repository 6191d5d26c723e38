// The WebSocket routes (issue 48) as Elysia's documentation writes them: `.ws(path, { message })`
// (elysiajs.com/patterns/websocket). Only Elysia's Bun adapter serves them (apps/bun-elysia, on
// Bun.serve's websocket, whose limits Elysia takes as its `websocket` config): Elysia's
// web-standard adapter (deno-elysia) has no WebSocket, and @elysiajs/node 1.4.5's hands every
// message to the handler as text, binary included; those two answer 501 with the contract's
// reason (WS_UNSUPPORTED).
//
// Not the contract's echo for all text: Elysia 1.4.30 parses every text message before the
// handler sees it (ws/index createWSMessageParser: JSON when it starts with `"`, `[`, `{`, or
// `/`; a number, true, false or null by name), with no option to turn it off
// (elysiajs/elysia#1911, open), so `{"a": 1}` comes back as `{"a":1}` and `1.50` as `1.5`
// (WS_TEXT_REPARSED, which the probe checks). Any other text, and binary, comes back as it came.

import type { AppName } from "@bench/contract";
import { errorBody } from "@bench/contract";
import {
  WS_ERRORS,
  WS_MAX_BUFFERED_BYTES,
  WS_MAX_MESSAGE_BYTES,
  WS_ROUTES,
  WS_TOPIC,
  WS_UNSUPPORTED,
} from "@bench/contract/ws";
import { type Context, Elysia, status } from "elysia";

/**
 * Elysia's `websocket` config (Bun.serve's websocket options) for the app that listens: a
 * message over the limit closes the connection with 1009 (Bun's own check, before Elysia), and
 * a client that reads nothing is disconnected past WS_MAX_BUFFERED_BYTES unsent (by default Bun
 * keeps 16 MiB, then drops messages silently).
 */
export const WEBSOCKET_LIMITS = {
  maxPayloadLength: WS_MAX_MESSAGE_BYTES,
  backpressureLimit: WS_MAX_BUFFERED_BYTES,
  closeOnBackpressureLimit: true,
};

/**
 * A GET on a WebSocket route that asks for no upgrade: Elysia sends an opening request (Upgrade:
 * websocket) to the route's .ws() and any other GET to its .get(), here 426 with the protocol to
 * ask for (RFC 9110 §15.5.22).
 */
function upgradeRequired({ set }: Pick<Context, "set">) {
  set.headers.upgrade = "websocket";
  return status(426, errorBody(WS_ERRORS.upgradeRequired));
}

/**
 * The routes as a plugin, for the app that listens on the plain port. The handlers' bodies are
 * blocks: Elysia sends whatever a handler returns as a message, and ws.send returns a number.
 * Binary arrives as a Buffer, which ElysiaWS sends as binary; text as a string (or what Elysia
 * parsed it into, above). The broadcast route is Bun's publish/subscribe, which leaves the sender
 * out.
 */
export function webSocketRoutes() {
  return new Elysia({ name: "bench-websocket" })
    .ws(WS_ROUTES.echo, {
      message(ws, message) {
        ws.send(message);
      },
    })
    .ws(WS_ROUTES.broadcast, {
      open(ws) {
        ws.subscribe(WS_TOPIC);
      },
      message(ws, message) {
        ws.publish(WS_TOPIC, message);
      },
    })
    .get(WS_ROUTES.echo, upgradeRequired)
    .get(WS_ROUTES.broadcast, upgradeRequired);
}

/** The routes of an app whose adapter cannot serve WebSocket: 501 with the contract's reason. */
export function webSocketUnsupported(app: AppName) {
  const refuse = () => status(501, errorBody(WS_UNSUPPORTED[app] ?? "not supported"));
  return new Elysia({ name: "bench-websocket-unsupported" })
    .get(WS_ROUTES.echo, refuse)
    .get(WS_ROUTES.broadcast, refuse);
}
