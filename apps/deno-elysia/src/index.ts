import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { serve, serveTls } from "./app.ts";

const { name, port } = getApp("deno-elysia");
// Elysia's Deno guide: Deno.serve(app.fetch), here through `serve` (src/app.ts), which hands the
// connection's info to the rate limiter. Off Bun, Elysia picks its web-standard adapter, and
// app.fetch compiles the routes on first use. Given the run's certificate, HTTPS too (Deno.serve's
// own TLS, which offers HTTP/2 by ALPN), through an instance of its own (`serveTls`).
serveWorkers(name, ({ reusePort, host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, onListen) => {
    Deno.serve({ port: at, hostname: host, reusePort, onListen, ...tls }, tls ? serveTls : serve);
  }),
);
