// HTTP/2 (issue 48): the `h2` scenario sends the api route over HTTP/2 with TLS, negotiated by
// ALPN on the app's TLS port (spec/tls.ts), HTTP/1.1 and HTTP/2 on the one port; the `h2c`
// scenario over cleartext HTTP/2 with prior knowledge (RFC 9113 §3.3), on the app's plain port
// where its server tells the two apart by the connection preface (Deno.serve), else on a port of
// its own, port + 2000, opened only when the harness asks (BENCH_H2C). An app whose runtime or
// framework cannot serve one says why here; the harness shows the reason in place of a figure,
// and verify() checks that the app indeed does not serve it (so the cell changes the day its
// runtime or framework gains it). Each reason has a test of its own too.

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

/** Why an app serves no HTTP/2 over TLS, for each app that cannot. */
export const H2_UNSUPPORTED: Readonly<Partial<Record<AppName, string>>> = {
  "bun-hono": BUN_SERVE,
  "bun-elysia": BUN_SERVE,
  "bun-bare": BUN_SERVE,
  "node-express": EXPRESS,
  "bun-express": EXPRESS,
  "deno-express": EXPRESS,
  "deno-fastify": DENO_NODE_HTTP2,
};

const BUN_SERVE_H2C =
  "Bun.serve speaks HTTP/1.1 only: a connection that opens with HTTP/2's preface gets no HTTP/2 answer (Bun.serve is what Bun's own apps and their frameworks serve with)";
const EXPRESS_H2C =
  "Express cannot serve over node:http2 (its compatibility API), cleartext or not: the first request over HTTP/2 throws inside Express's request object and ends the process";
const DENO_NODE_H2C =
  "Deno's node:http2 cleartext server ends the process (SIGSEGV) when a client closes an HTTP/2 session with streams in flight, as a load generator does at the end of its window";
const SRVX_H2C =
  'srvx, which @elysiajs/node serves with, offers node:http2 with TLS only: its serve() throws "node.http2 option requires tls certificate!" without one';

/** Why an app serves no cleartext HTTP/2 (h2c), for each app that cannot. */
export const H2C_UNSUPPORTED: Readonly<Partial<Record<AppName, string>>> = {
  "bun-hono": BUN_SERVE_H2C,
  "bun-elysia": BUN_SERVE_H2C,
  "bun-bare": BUN_SERVE_H2C,
  "node-elysia": SRVX_H2C,
  "node-express": EXPRESS_H2C,
  "bun-express": EXPRESS_H2C,
  "deno-express": EXPRESS_H2C,
  "deno-fastify": DENO_NODE_H2C,
};

/**
 * The apps whose server speaks h2c with prior knowledge on their plain port beside HTTP/1.1,
 * telling the two apart by the connection's first bytes: Deno.serve's. The others that serve h2c
 * do so on a port of their own (h2cPort), as node:http2's cleartext server speaks nothing else.
 */
export const H2C_ON_PLAIN_PORT: readonly AppName[] = ["deno-hono", "deno-elysia", "deno-bare"];

/** Set to "1" by the harness for a run of the h2c scenario: the apps open their h2c port. */
export const H2C_ENV = "BENCH_H2C";

export const H2C_PORT_OFFSET = 2000;

/** The port `app` serves h2c on: its plain port (H2C_ON_PLAIN_PORT), else port + 2000. */
export function h2cPort(app: { readonly name: string; readonly port: number }): number {
  const shared = (H2C_ON_PLAIN_PORT as readonly string[]).includes(app.name);
  return shared ? app.port : app.port + H2C_PORT_OFFSET;
}

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
