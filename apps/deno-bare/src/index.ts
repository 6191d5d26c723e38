import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { handler, onError } from "./app.ts";

const { name, port } = getApp("deno-bare");
// Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
serveWorkers(name, ({ reusePort, host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, onListen) => {
    Deno.serve({ port: at, hostname: host, reusePort, onListen, onError, ...tls }, handler);
  }),
);
