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
// server (imported only then), HTTP/1.1 and HTTP/2 by ALPN (allowHTTP1); asked for h2c, the same
// option with node:http2's cleartext server ("unencrypted HTTP/2" in Node's words), on a port
// of its own.
serveWorkers(name, ({ host }, listening) => {
  const options = (at: number) => ({ fetch: app.fetch, port: at, hostname: host });
  listenPlainAndTls(
    name,
    host,
    port,
    listening,
    async (at, tls, done) => {
      if (!tls) {
        const ws = { websocket: websocket(), serverOptions: { shouldUpgradeCallback } };
        serve({ ...options(at), ...ws }, done);
        return;
      }
      const { createSecureServer: createServer } = await import("node:http2");
      const serverOptions = { cert: tls.cert, key: tls.key, allowHTTP1: true };
      serve({ ...options(at), createServer, serverOptions }, done);
    },
    async (at, done) => {
      const { createServer } = await import("node:http2");
      serve({ ...options(at), createServer }, done);
    },
  );
});
