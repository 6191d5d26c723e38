// The WebSocket routes on Bun.serve, as Bun's docs write them: a route upgrades its request
// (server.upgrade) and Bun.serve's `websocket` handlers serve every socket. The broadcast route
// is Bun's publish/subscribe: ws.publish sends to the topic's other subscribers, not the sender.

import {
  WS_MAX_BUFFERED_BYTES,
  WS_MAX_MESSAGE_BYTES,
  WS_ROUTES,
  WS_TOPIC,
} from "@bench/contract/ws";
import { notUpgraded } from "@bench/fetch-bare/websocket";
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";

/** What each socket carries: whether it came in on the broadcast route. */
export interface SocketData {
  readonly broadcast: boolean;
}

const upgrade = (broadcast: boolean) => (request: Request, server: Server<SocketData>) =>
  server.upgrade(request, { data: { broadcast } }) ? undefined : notUpgraded(request);

export const webSocketRoutes = {
  [WS_ROUTES.echo]: { GET: upgrade(false) },
  [WS_ROUTES.broadcast]: { GET: upgrade(true) },
};

export const websocket: WebSocketHandler<SocketData> = {
  // A larger message closes the connection with 1009 (Bun's own check, before any handler).
  maxPayloadLength: WS_MAX_MESSAGE_BYTES,
  // A client that reads nothing: past this much unsent, Bun ends the connection (by default it
  // would keep 16 MiB and then drop messages silently).
  backpressureLimit: WS_MAX_BUFFERED_BYTES,
  closeOnBackpressureLimit: true,
  open(ws: ServerWebSocket<SocketData>) {
    if (ws.data.broadcast) ws.subscribe(WS_TOPIC);
  },
  // Text arrives as a string and binary as a Buffer; either goes out as it came.
  message(ws, message) {
    if (ws.data.broadcast) ws.publish(WS_TOPIC, message);
    else ws.send(message);
  },
};
