import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("node-elysia");
// @elysiajs/node listens with reusePort unless told otherwise, and reusePort: false makes srvx
// listen exclusively, which a second cluster worker cannot: every worker binds its own socket.
// srvx's own option, which @elysiajs/node passes through (Elysia's listen type omits it). Off,
// as the other Node apps have none: srvx's SIGTERM handler waits in whole seconds, so
// node-elysia took 1 s to exit with an idle keep-alive connection open.
const SRVX_OPTIONS = { gracefulShutdown: false };

serveWorkers(name, ({ host }, listening) => {
  app.listen({ port, hostname: host, ...SRVX_OPTIONS }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  });
});
