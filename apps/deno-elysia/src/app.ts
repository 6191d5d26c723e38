import { createApp } from "@bench/elysia-app";

// The rate limiter's key. Deno gives the client's address only as its handler's second argument,
// and Elysia's app.fetch takes the Request alone, so `serve` puts the connection's info on the
// request for the key to read: one property store per request, on every route, the price of
// keying by the socket's address here (Hono's fetch takes it as its env).
const PEER = Symbol("peer");
type WithPeer = Request & { [PEER]?: Deno.ServeHandlerInfo };

export const app = createApp(
  {},
  { clientAddress: (request) => (request as WithPeer)[PEER]?.remoteAddr.hostname },
);

/** Deno.serve's handler: app.fetch, with the connection's info kept on the request. */
export function serve(request: Request, info: Deno.ServeHandlerInfo) {
  (request as WithPeer)[PEER] = info;
  return app.fetch(request);
}
