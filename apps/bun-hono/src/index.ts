import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import type { Server } from "bun";
import { type BunWebSocketData, getConnInfo } from "hono/bun";
import { honoApp } from "./app.ts";
import { webSocketRoutes, websocket } from "./websocket.ts";

/**
 * Bun's requestIP knows only the request Bun received, not fetchWithHead's GET copy of a HEAD:
 * for that copy, hono/bun's getConnInfo (the rate limiter's key) asks about the original. A
 * HEAD upgrades nothing: on a WebSocket route, hono/bun's upgradeWebSocket finds no upgrade and
 * the route answers as to a GET without one (426); without `upgrade` here it threw (a 500).
 */
const headServer = (server: Server<BunWebSocketData>, received: Request) =>
  ({
    requestIP: () => server.requestIP(received),
    upgrade: () => false,
  }) as unknown as Server<BunWebSocketData>;

const app = honoApp(getConnInfo, webSocketRoutes);
const { name, port } = getApp("bun-hono");
// The server is fetch's second argument, as Hono's Bun guide passes it: getConnInfo and
// upgradeWebSocket read it.
const fetch = fetchWithHead(app, headServer);
serveWorkers(name, ({ reusePort, host }, listening) =>
  // Given the run's certificate, the same app over HTTPS too (Bun.serve's own TLS), its
  // WebSocket routes with it: without `websocket`, Bun's server.upgrade throws (a 500).
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    Bun.serve({ port: at, hostname: host, reusePort, fetch, websocket, ...(tls ? { tls } : {}) });
    done();
  }),
);
