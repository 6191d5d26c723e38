import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import { getConnInfo } from "hono/deno";
import { honoApp } from "./app.ts";

const app = honoApp(getConnInfo);
const { name, port } = getApp("deno-hono");
// Hono's Deno guide: Deno.serve(app.fetch), here with the address every app listens on. The
// handler's second argument (the connection's info) reaches hono/deno's getConnInfo as env.
serveWorkers(name, ({ reusePort, host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  const handler = fetchWithHead(app);
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen }, handler);
  // Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
  if (tls) {
    const onTlsListen = () => {
      console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
      listened();
    };
    Deno.serve(
      { port: tlsPort(port), hostname: host, reusePort, onListen: onTlsListen, ...tls },
      handler,
    );
  }
});
