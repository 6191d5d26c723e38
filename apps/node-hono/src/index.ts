import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { honoApp } from "./app.ts";

const app = honoApp(getConnInfo);
const { name, port } = getApp("node-hono");
// node:cluster's primary accepts and hands out the connections, so no reusePort here.
serveWorkers(name, ({ host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  serve({ fetch: app.fetch, port, hostname: host }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  });
  // Given the run's certificate, HTTPS too: @hono/node-server's documented createServer option
  // with node:https (imported only then).
  if (tls) {
    import("node:https").then(({ createServer }) => {
      const options = { fetch: app.fetch, port: tlsPort(port), hostname: host, createServer };
      serve({ ...options, serverOptions: { cert: tls.cert, key: tls.key } }, () => {
        console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
        listened();
      });
    });
  }
});
