import { getApp, headAnswer } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import { getConnInfo } from "hono/deno";
import { honoApp } from "./app.ts";
import { webSocketRoutes } from "./websocket.ts";

const app = honoApp(getConnInfo, webSocketRoutes);
const { name, port } = getApp("deno-hono");
// HEAD's answer without GET's body: Deno.serve sends that body over HTTP/2 (serve/head.ts).
const handler = fetchWithHead(app, (env) => env, headAnswer);
// Hono's Deno guide: Deno.serve(app.fetch), here with the address every app listens on. The
// handler's second argument (the connection's info) reaches hono/deno's getConnInfo as env.
// Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
serveWorkers(name, ({ reusePort, host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, onListen) => {
    Deno.serve({ port: at, hostname: host, reusePort, onListen, ...tls }, handler);
  }),
);
