import { getApp, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { extraIterations, serveOptions } from "./app.ts";

const { name, port } = getApp("bun-bare");
serveWorkers(name, ({ reusePort, host }, listening) => {
  Bun.serve({ ...serveOptions, port, hostname: host, reusePort });
  console.log(`${name} listening on http://${host}:${port}`);
  // Given the run's certificate, the same routes over HTTPS too (Bun.serve's own TLS).
  const tls = tlsPem();
  if (tls) {
    Bun.serve({ ...serveOptions, port: tlsPort(port), hostname: host, reusePort, tls });
    console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
  }
  if (extraIterations !== undefined) {
    console.log(`${name}: calibration: ${extraIterations} extra iterations per request`);
  }
  listening();
});
