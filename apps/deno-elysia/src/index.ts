import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { serve, serveTls } from "./app.ts";

const { name, port } = getApp("deno-elysia");
// Elysia's Deno guide: Deno.serve(app.fetch), here through `serve` (src/app.ts), which hands the
// connection's info to the rate limiter. Off Bun, Elysia picks its web-standard adapter, and
// app.fetch compiles the routes on first use.
serveWorkers(name, ({ reusePort, host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen }, serve);
  // Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
  if (tls) {
    const onTlsListen = () => {
      console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
      listened();
    };
    Deno.serve(
      { port: tlsPort(port), hostname: host, reusePort, onListen: onTlsListen, ...tls },
      serveTls,
    );
  }
});
