import { bunGetPath, createApp, type GetConnInfo, type WebSocketRoutes } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (hono/bun), whose socket
 * address the rate limiter keys on, and the WebSocket routes (websocket.ts: hono/bun's
 * upgradeWebSocket); the in-process tests have no socket and pass neither.
 */
export const honoApp = (getConnInfo?: GetConnInfo, webSocket?: WebSocketRoutes) =>
  createApp({ getPath: bunGetPath }, getConnInfo, webSocket);
