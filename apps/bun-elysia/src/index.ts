import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app, tlsApp } from "./app.ts";

const { name, port } = getApp("bun-elysia");
serveWorkers(name, ({ reusePort, host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  app.listen({ port, hostname: host, reusePort }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  });
  // Given the run's certificate, HTTPS too: Elysia's listen with `tls` (Bun.serve's), on a
  // second instance of the app, since an instance listens once.
  if (tls) {
    tlsApp().listen({ port: tlsPort(port), hostname: host, reusePort, tls }, () => {
      console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
      listened();
    });
  }
});
