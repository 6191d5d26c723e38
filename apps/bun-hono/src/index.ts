import { getApp, tlsPem, tlsPort } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import type { Server } from "bun";
import { getConnInfo } from "hono/bun";
import { honoApp } from "./app.ts";

/**
 * Bun's requestIP knows only the request Bun received, not fetchWithHead's GET copy of a HEAD:
 * for that copy, hono/bun's getConnInfo (the rate limiter's key) asks about the original.
 */
const headServer = (server: Server<undefined>, received: Request) =>
  ({ requestIP: () => server.requestIP(received) }) as unknown as Server<undefined>;

const app = honoApp(getConnInfo);
const { name, port } = getApp("bun-hono");
serveWorkers(name, ({ reusePort, host }, listening) => {
  // The server is fetch's second argument, as Hono's Bun guide passes it: getConnInfo reads it.
  const fetch = fetchWithHead(app, headServer);
  Bun.serve({ port, hostname: host, reusePort, fetch });
  console.log(`${name} listening on http://${host}:${port}`);
  // Given the run's certificate, the same app over HTTPS too (Bun.serve's own TLS).
  const tls = tlsPem();
  if (tls) {
    Bun.serve({ port: tlsPort(port), hostname: host, reusePort, fetch, tls });
    console.log(`${name} listening on https://${host}:${tlsPort(port)}`);
  }
  listening();
});
