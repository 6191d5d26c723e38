import { createApp, WEBSOCKET_LIMITS, webSocketRoutes } from "@bench/elysia-app";

// The WebSocket routes on the plain port, their limits in Elysia's `websocket` config (Bun.serve's
// websocket options, which Elysia's listen passes on).
export const app = createApp({ websocket: WEBSOCKET_LIMITS }).use(webSocketRoutes());

/** The HTTPS server's own instance (src/index.ts): an Elysia instance serves one listen. */
export const tlsApp = () => createApp();
