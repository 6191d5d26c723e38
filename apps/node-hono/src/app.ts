import { createApp, type GetConnInfo, type WebSocketRoutes } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (@hono/node-server/conninfo),
 * whose socket address the rate limiter keys on, and the WebSocket routes (websocket.ts:
 * @hono/node-server's upgradeWebSocket); the in-process tests have no socket and pass neither.
 */
export const honoApp = (getConnInfo?: GetConnInfo, webSocket?: WebSocketRoutes) =>
  createApp({}, getConnInfo, webSocket);
