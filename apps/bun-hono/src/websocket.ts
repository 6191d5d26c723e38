// The WebSocket routes on Bun, as Hono's Bun guide writes them: hono/bun's upgradeWebSocket in
// the routes and its `websocket` handlers in Bun.serve. Bun keeps the limits itself (the size,
// and what a client that reads nothing leaves unsent), and the broadcast route is Bun's
// publish/subscribe on the raw ServerWebSocket: ws.publish reaches the topic's other
// subscribers, not the sender.

import { WS_MAX_BUFFERED_BYTES, WS_MAX_MESSAGE_BYTES, WS_TOPIC } from "@bench/contract/ws";
import { echoEvents, type Message, type WebSocketRoutes } from "@bench/hono-app";
import type { ServerWebSocket } from "bun";
import { websocket as honoHandlers, upgradeWebSocket } from "hono/bun";
import type { WSEvents } from "hono/ws";

/** hono/bun's WSContext.raw: Bun's socket, whose data hono/bun fills. */
type Raw = ServerWebSocket<unknown>;

const echo = echoEvents((ws, data) => ws.send(data));
const broadcast: WSEvents = {
  onOpen: (_, ws) => (ws.raw as Raw).subscribe(WS_TOPIC),
  onMessage: ({ data }, ws) => (ws.raw as Raw).publish(WS_TOPIC, data as Message),
};

export const webSocketRoutes: WebSocketRoutes = {
  echo: upgradeWebSocket(() => echo),
  broadcast: upgradeWebSocket(() => broadcast),
};

/** Bun.serve's `websocket`: hono/bun's handlers, with Bun's limits. */
export const websocket = {
  ...honoHandlers,
  // A larger message closes the connection with 1009 (Bun's own check, before any handler).
  maxPayloadLength: WS_MAX_MESSAGE_BYTES,
  // A client that reads nothing: past this much unsent, Bun ends the connection (by default it
  // would keep 16 MiB and then drop messages silently).
  backpressureLimit: WS_MAX_BUFFERED_BYTES,
  closeOnBackpressureLimit: true,
};
