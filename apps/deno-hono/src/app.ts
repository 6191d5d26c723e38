import { createApp, type GetConnInfo, type WebSocketRoutes } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (hono/deno), whose socket
 * address the rate limiter keys on, and the WebSocket routes (websocket.ts: hono/deno's
 * upgradeWebSocket); the in-process tests have no socket and pass neither (and could not
 * import hono/deno under Bun: it reads `Deno` as it loads).
 */
export const honoApp = (getConnInfo?: GetConnInfo, webSocket?: WebSocketRoutes) =>
  createApp({}, getConnInfo, webSocket);
