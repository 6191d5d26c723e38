import { getApp } from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { app, tlsApp } from "./app.ts";

const { name, port } = getApp("node-elysia");
// @elysiajs/node listens with reusePort unless told otherwise, and reusePort: false makes srvx
// listen exclusively, which a second cluster worker cannot: every worker binds its own socket.
// srvx's own option, which @elysiajs/node passes through (Elysia's listen type omits it). Off,
// as the other Node apps have none: srvx's SIGTERM handler waits in whole seconds, so
// node-elysia took 1 s to exit with an idle keep-alive connection open.
const SRVX_OPTIONS = { gracefulShutdown: false };

// Elysia marks every streamed answer Transfer-Encoding: chunked, a header of HTTP/1.1 framing
// that srvx copies onto node:http2's response, which throws on it: the first /sse over HTTP/2
// ended node-elysia's process. srvx's middleware drops it on the TLS instance (Node's HTTP/1.1
// server chunks a body of unknown length by itself).
const withoutFraming = async (_request: Request, next: () => Response | Promise<Response>) => {
  const answer = await next();
  answer.headers.delete("transfer-encoding");
  return answer;
};

// Given the run's certificate, HTTPS too: srvx's `tls` option, which serves it with
// node:http2's secure server and HTTP/1.1 by ALPN (allowHTTP1), on a second instance.
serveWorkers(name, ({ host }, listening) =>
  listenPlainAndTls(name, host, port, listening, (at, tls, done) => {
    const options = { port: at, hostname: host, ...SRVX_OPTIONS };
    // srvx's option, passed through as SRVX_OPTIONS is (Elysia's listen type omits it).
    const secure = { ...options, tls, middleware: [withoutFraming] };
    if (tls) tlsApp().listen(secure, done);
    else app.listen(options, done);
  }),
);
