import { createApp, webSocketUnsupported } from "@bench/elysia-app";
import { node } from "@elysiajs/node";

// The rate limiter's key. @elysiajs/node's server.requestIP() throws ("This adapter doesn't support
// Bun requestIP method"); the request it hands Elysia is srvx's, whose `ip` is the socket's remote
// address (X-Forwarded-For only with srvx's trustProxy, which is off).
const clientAddress = (request: Request) => (request as Request & { ip?: string }).ip;

// No WebSocket: @elysiajs/node hands Elysia every message as text (the contract's WS_UNSUPPORTED).
export const app = createApp({ adapter: node() }, { clientAddress }).use(
  webSocketUnsupported("node-elysia"),
);

/**
 * The HTTPS server's own instance (src/index.ts): an Elysia instance serves one listen. With
 * Elysia's standard hostname search: the app's `standardHostname: false` (packages/elysia-app,
 * base.ts) looks for the path from the URL's 7th character, which in "https://" is the second
 * slash (every route answered 404 over HTTPS, Elysia 1.4.30); the standard search starts at the
 * 11th.
 */
export const tlsApp = () =>
  createApp({ adapter: node(), handler: { standardHostname: true } }, { clientAddress });
