// The WebSocket routes on Node, as @hono/node-server's README writes them: its upgradeWebSocket
// in the routes, and a ws WebSocketServer (noServer) as serve()'s `websocket.server`, whose
// 'upgrade' listener the adapter adds. ws checks the size (maxPayload: 1009) and the UTF-8 of
// text (1007) and closes the connection itself; the adapter gives each socket an 'error'
// listener, so that does not end the process. The broadcast route's audience is a Set of its
// open sockets (@bench/hono-app).

import type { IncomingMessage } from "node:http";
import { WS_MAX_BUFFERED_BYTES, WS_MAX_MESSAGE_BYTES, WS_ROUTES } from "@bench/contract/ws";
import { audienceEvents, echoEvents, type Send, type WebSocketRoutes } from "@bench/hono-app";
import { upgradeWebSocket } from "@hono/node-server";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * Sends, and ends a connection whose client reads nothing: ws (through the socket) keeps every
 * unsent message, so past WS_MAX_BUFFERED_BYTES the connection is dropped (a close frame would
 * wait behind what the client does not read).
 */
const send: Send = (ws, data) => {
  ws.send(data);
  const raw = ws.raw as WebSocket;
  if (raw.bufferedAmount > WS_MAX_BUFFERED_BYTES) raw.terminate();
};

const echo = echoEvents(send);
const broadcast = audienceEvents(send);

export const webSocketRoutes: WebSocketRoutes = {
  echo: upgradeWebSocket(() => echo),
  broadcast: upgradeWebSocket(() => broadcast),
};

/** serve()'s `websocket`: the server the adapter hands each upgrade to. */
export const websocket = () => ({
  server: new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES }),
});

const isWebSocketRoute = (url = "/") => {
  const path = url.split("?", 1)[0];
  return path === WS_ROUTES.echo || path === WS_ROUTES.broadcast;
};

/**
 * node:http's createServer option (Node 24.9): which requests go to 'upgrade'. By default,
 * once the adapter listens for it, every request that asks to upgrade; the adapter leaves all
 * but WebSocket ones unanswered (an h2c upgrade hung), and answers a WebSocket one on another
 * route with its status and no body. Only the WebSocket routes' WebSocket upgrades go there;
 * every other request is served as a request, as it was without the 'upgrade' listener.
 */
export const shouldUpgradeCallback = (req: IncomingMessage) =>
  req.headers.upgrade?.toLowerCase() === "websocket" && isWebSocketRoute(req.url);
