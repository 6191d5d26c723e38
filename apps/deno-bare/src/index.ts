import { getApp, listeningAfter, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { handler, onError } from "./app.ts";

const { name, port } = getApp("deno-bare");
serveWorkers(name, ({ reusePort, host }, listening) => {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listened();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen, onError }, handler);
  // Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
  if (tls) {
    const onTlsListen = () => {
      console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
      listened();
    };
    const options = { port: tlsPort(port), hostname: host, reusePort, onError, ...tls };
    Deno.serve({ ...options, onListen: onTlsListen }, handler);
  }
});
