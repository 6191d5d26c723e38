// The WebSocket routes on Deno, as Hono's Deno guide writes them: hono/deno's upgradeWebSocket
// (Deno.upgradeWebSocket underneath) in the routes. Deno has no message size option: a message
// is checked once it has arrived, and one over the contract's limit closes the connection with
// 1009; nor does it check Sec-WebSocket-Key, which is checked before the upgrade. The broadcast
// route's audience is a Set of its open sockets (@bench/hono-app).

import {
  textOverLimit,
  WS_CLOSE,
  WS_MAX_BUFFERED_BYTES,
  WS_MAX_MESSAGE_BYTES,
  wantsWebSocket,
} from "@bench/contract/ws";
import { validWebSocketKey } from "@bench/contract/ws-key";
import {
  audienceEvents,
  echoEvents,
  type Message,
  type Send,
  type WebSocketRoutes,
} from "@bench/hono-app";
import type { MiddlewareHandler } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { WSEvents } from "hono/ws";

/**
 * Sends, and ends a connection whose client reads nothing: Deno keeps every unsent message,
 * so past WS_MAX_BUFFERED_BYTES the socket is closed (Deno then drops what it held).
 */
const send: Send = (ws, data) => {
  ws.send(data);
  if ((ws.raw as WebSocket).bufferedAmount > WS_MAX_BUFFERED_BYTES) ws.close();
};

const tooBig = (data: Message) =>
  typeof data === "string" ? textOverLimit(data) : data.byteLength > WS_MAX_MESSAGE_BYTES;

/** `events` with the size checked first: a message over the limit closes with 1009 instead. */
const limited = ({ onMessage, ...events }: WSEvents): WSEvents => ({
  ...events,
  onMessage: (event, ws) => {
    if (tooBig(event.data as Message)) ws.close(WS_CLOSE.tooBig);
    else onMessage?.(event, ws);
  },
});

const echo = limited(echoEvents(send));
const broadcast = limited(audienceEvents(send));

/**
 * `upgrade` for an opening request whose Sec-WebSocket-Key RFC 6455 allows; any other goes on
 * to the route's refusal (400): Deno.upgradeWebSocket would upgrade it, whatever the key.
 */
const keyChecked =
  (upgrade: MiddlewareHandler): MiddlewareHandler =>
  (c, next) =>
    wantsWebSocket(c.req.raw) && !validWebSocketKey(c.req.header("sec-websocket-key"))
      ? next()
      : upgrade(c, next);

export const webSocketRoutes: WebSocketRoutes = {
  echo: keyChecked(upgradeWebSocket(() => echo)),
  broadcast: keyChecked(upgradeWebSocket(() => broadcast)),
};
