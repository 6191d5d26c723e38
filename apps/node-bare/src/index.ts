import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { createApp, createTlsApp } from "./app.ts";

const { name, port } = getApp("node-bare");
// node:cluster's primary accepts and hands out the connections, so no reusePort here.
serveWorkers(name, ({ host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  createApp().listen(port, host, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  });
  // Given the run's certificate, the same handler over HTTPS too (node:https, loaded then only).
  if (tls) {
    createTlsApp(tls).then((server) =>
      server.listen(tlsPort(port), host, () => {
        console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
        listened();
      }),
    );
  }
});
