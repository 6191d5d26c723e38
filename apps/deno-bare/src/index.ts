import { getApp, headAnswer } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { handler, onError } from "./app.ts";

// HEAD's answer without GET's body: Deno.serve sends that body over HTTP/2 (serve/head.ts).
const serve = (request: Request, info: Deno.ServeHandlerInfo) =>
  request.method === "HEAD"
    ? Promise.resolve(handler(request, info)).then(headAnswer)
    : handler(request, info);

const { name, port } = getApp("deno-bare");
// Given the run's certificate, HTTPS too (Deno.serve's own TLS, which offers HTTP/2 by ALPN).
serveWorkers(name, ({ reusePort, host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, onListen) => {
    Deno.serve({ port: at, hostname: host, reusePort, onListen, onError, ...tls }, serve);
  }),
);
