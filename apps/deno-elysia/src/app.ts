import { createApp, webSocketUnsupported } from "@bench/elysia-app";

// The rate limiter's key. Deno gives the client's address only as its handler's second argument,
// and Elysia's app.fetch takes the Request alone, so `serve` puts the connection's info on the
// request for the key to read: one property store per request, on every route, the price of
// keying by the socket's address here (Hono's fetch takes it as its env).
const PEER = Symbol("peer");
type WithPeer = Request & { [PEER]?: Deno.ServeHandlerInfo };

const clientAddress = (request: Request) => (request as WithPeer)[PEER]?.remoteAddr.hostname;

// No WebSocket: Elysia's web-standard adapter has none (the contract's WS_UNSUPPORTED).
export const app = createApp({}, { clientAddress }).use(webSocketUnsupported("deno-elysia"));

/** Deno.serve's handler: app.fetch, with the connection's info kept on the request. */
export function serve(request: Request, info: Deno.ServeHandlerInfo) {
  (request as WithPeer)[PEER] = info;
  return app.fetch(request);
}

/**
 * The HTTPS server's handler, over an instance of its own with Elysia's standard hostname
 * search: the app's `standardHostname: false` (packages/elysia-app, base.ts) looks for the
 * path from the URL's 7th character, which in "https://" is the second slash (every route
 * answered 404 over HTTPS, Elysia 1.4.30); the standard search starts at the 11th.
 */
const tlsApp = createApp({ handler: { standardHostname: true } }, { clientAddress });

export function serveTls(request: Request, info: Deno.ServeHandlerInfo) {
  (request as WithPeer)[PEER] = info;
  return tlsApp.fetch(request);
}
