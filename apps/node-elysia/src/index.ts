import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app, tlsApp } from "./app.ts";

const { name, port } = getApp("node-elysia");
// @elysiajs/node listens with reusePort unless told otherwise, and reusePort: false makes srvx
// listen exclusively, which a second cluster worker cannot: every worker binds its own socket.
// srvx's own option, which @elysiajs/node passes through (Elysia's listen type omits it). Off,
// as the other Node apps have none: srvx's SIGTERM handler waits in whole seconds, so
// node-elysia took 1 s to exit with an idle keep-alive connection open.
const SRVX_OPTIONS = { gracefulShutdown: false };

serveWorkers(name, ({ host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  app.listen({ port, hostname: host, ...SRVX_OPTIONS }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  });
  // Given the run's certificate, HTTPS too: srvx's `tls` option, which serves it with
  // node:http2's secure server and HTTP/1.1 by ALPN (allowHTTP1), on a second instance.
  if (tls) {
    tlsApp().listen({ port: tlsPort(port), hostname: host, tls, ...SRVX_OPTIONS }, () => {
      console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
      listened();
    });
  }
});
