import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { extraIterations, serveOptions } from "./app.ts";

const { name, port } = getApp("bun-bare");
serveWorkers(name, ({ reusePort, host }, listening) => {
  if (extraIterations !== undefined) {
    console.log(`${name}: calibration: ${extraIterations} extra iterations per request`);
  }
  // Given the run's certificate, the same routes over HTTPS too (Bun.serve's own TLS).
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    Bun.serve({ ...serveOptions, port: at, hostname: host, reusePort, ...(tls ? { tls } : {}) });
    done();
  });
});
