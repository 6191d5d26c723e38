// HTTP/2 (issue 48): the `h2` scenario sends the api route over HTTP/2 with TLS, negotiated by
// ALPN on the app's TLS port (spec/tls.ts), HTTP/1.1 and HTTP/2 on the one port. An app whose
// runtime or framework cannot serve HTTP/2 says why here; the harness shows the reason in place
// of a figure, and verify() checks that the app indeed offers no h2 (so the cell changes the
// day its runtime or framework gains it). Each reason has a test of its own too.

import type { AppName } from "./registry.ts";

/**
 * Streams a connection carries at once under the h2 scenario's load: the scenario's in-flight
 * requests (its connection count) go over connections ÷ streams connections.
 */
export const H2_STREAMS = 10;

/** The ALPN protocol name of HTTP/2 over TLS. */
export const H2_ALPN = "h2";

const BUN_SERVE =
  "Bun.serve speaks HTTP/1.1 only: its TLS offers no h2 by ALPN (Bun.serve is what Bun's own apps and their frameworks serve with)";
const EXPRESS =
  "Express cannot serve over node:http2 (its compatibility API): the first request over HTTP/2 throws inside Express's request object and ends the process; so the app serves HTTPS with node:https, HTTP/1.1 only";

const DENO_NODE_HTTP2 =
  "Deno's node:http2 server ends the process (an nghttp2 assertion, SIGABRT or SIGSEGV) when a client closes an HTTP/2 session with streams in flight, as a load generator does at the end of its window; so the app serves HTTPS with Fastify's https option, HTTP/1.1 only";

/** Why an app serves no HTTP/2, for each app that cannot. */
export const H2_UNSUPPORTED: Readonly<Partial<Record<AppName, string>>> = {
  "bun-hono": BUN_SERVE,
  "bun-elysia": BUN_SERVE,
  "bun-bare": BUN_SERVE,
  "node-express": EXPRESS,
  "bun-express": EXPRESS,
  "deno-express": EXPRESS,
  "deno-fastify": DENO_NODE_HTTP2,
};

/**
 * The h2 scenario's `connections` in-flight requests as connections × streams each: the most
 * streams (up to H2_STREAMS) that divide the count evenly, so every request in flight is one
 * the generator keeps going.
 */
export function h2Split(connections: number): { connections: number; streams: number } {
  for (let streams = Math.min(H2_STREAMS, connections); streams > 1; streams--) {
    if (connections % streams === 0) return { connections: connections / streams, streams };
  }
  return { connections, streams: 1 };
}
