import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { createApp, createH2cApp, createTlsApp } from "./app.ts";

const { name, port } = getApp("node-bare");
// node:cluster's primary accepts and hands out the connections, so no reusePort here. Given the
// run's certificate, the same handler over HTTPS too (node:http2's secure server, loaded then
// only), and asked for h2c, over cleartext HTTP/2 on a port of its own.
serveWorkers(name, ({ host }, listening) =>
  listenPlainAndTls(
    name,
    host,
    port,
    listening,
    async (at, tls, done) => {
      const server = tls ? await createTlsApp(tls) : createApp();
      server.listen(at, host, done);
    },
    async (at, done) => (await createH2cApp()).listen(at, host, done),
  ),
);
