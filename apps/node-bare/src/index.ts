import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { createApp, createTlsApp } from "./app.ts";

const { name, port } = getApp("node-bare");
// node:cluster's primary accepts and hands out the connections, so no reusePort here. Given the
// run's certificate, the same handler over HTTPS too (node:https, loaded then only).
serveWorkers(name, ({ host }, listening) =>
  listenPlainAndTls(name, host, port, listening, async (at, tls, done) => {
    const server = tls ? await createTlsApp(tls) : createApp();
    server.listen(at, host, done);
  }),
);
