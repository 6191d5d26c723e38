import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { honoApp } from "./app.ts";
import { shouldUpgradeCallback, webSocketRoutes, websocket } from "./websocket.ts";

const app = honoApp(getConnInfo, webSocketRoutes);
const { name, port } = getApp("node-hono");
// node:cluster's primary accepts and hands out the connections, so no reusePort here. The
// plain port serves the WebSocket routes too (websocket.ts). Given the run's certificate,
// HTTPS too: @hono/node-server's documented createServer option with node:http2's secure
// server (imported only then), HTTP/1.1 and HTTP/2 by ALPN (allowHTTP1).
serveWorkers(name, ({ host }, listening) =>
  listenPlainAndTls(name, host, port, listening, async (at, tls, done) => {
    const options = { fetch: app.fetch, port: at, hostname: host };
    if (!tls) {
      serve({ ...options, websocket: websocket(), serverOptions: { shouldUpgradeCallback } }, done);
      return;
    }
    const { createSecureServer: createServer } = await import("node:http2");
    const serverOptions = { cert: tls.cert, key: tls.key, allowHTTP1: true };
    serve({ ...options, createServer, serverOptions }, done);
  }),
);
