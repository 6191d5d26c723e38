import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { app, tlsApp } from "./app.ts";

const { name, port } = getApp("bun-elysia");
serveWorkers(name, ({ reusePort, host }, listening) =>
  // Given the run's certificate, HTTPS too: Elysia's listen with `tls` (Bun.serve's), on a
  // second instance of the app, since an instance listens once.
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    const options = { port: at, hostname: host, reusePort };
    if (tls) tlsApp().listen({ ...options, tls }, done);
    else app.listen(options, done);
  }),
);
