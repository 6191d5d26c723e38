import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import type { Server } from "bun";
import { getConnInfo } from "hono/bun";
import { honoApp } from "./app.ts";

/**
 * Bun's requestIP knows only the request Bun received, not fetchWithHead's GET copy of a HEAD:
 * for that copy, hono/bun's getConnInfo (the rate limiter's key) asks about the original.
 */
const headServer = (server: Server<undefined>, received: Request) =>
  ({ requestIP: () => server.requestIP(received) }) as unknown as Server<undefined>;

const app = honoApp(getConnInfo);
const { name, port } = getApp("bun-hono");
// The server is fetch's second argument, as Hono's Bun guide passes it: getConnInfo reads it.
const fetch = fetchWithHead(app, headServer);
serveWorkers(name, ({ reusePort, host }, listening) =>
  // Given the run's certificate, the same app over HTTPS too (Bun.serve's own TLS).
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    Bun.serve({ port: at, hostname: host, reusePort, fetch, ...(tls ? { tls } : {}) });
    done();
  }),
);
