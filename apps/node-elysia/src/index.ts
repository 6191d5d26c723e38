import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { app, tlsApp } from "./app.ts";

const { name, port } = getApp("node-elysia");
// @elysiajs/node listens with reusePort unless told otherwise, and reusePort: false makes srvx
// listen exclusively, which a second cluster worker cannot: every worker binds its own socket.
// srvx's own option, which @elysiajs/node passes through (Elysia's listen type omits it). Off,
// as the other Node apps have none: srvx's SIGTERM handler waits in whole seconds, so
// node-elysia took 1 s to exit with an idle keep-alive connection open.
const SRVX_OPTIONS = { gracefulShutdown: false };

// Given the run's certificate, HTTPS too: srvx's `tls` option, which serves it with
// node:http2's secure server and HTTP/1.1 by ALPN (allowHTTP1), on a second instance.
serveWorkers(name, ({ host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    const options = { port: at, hostname: host, ...SRVX_OPTIONS };
    if (tls) tlsApp().listen({ ...options, tls }, done);
    else app.listen(options, done);
  }),
);
