import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("node-elysia");
// @elysiajs/node listens with reusePort unless told otherwise, and reusePort: false makes srvx
// listen exclusively, which a second cluster worker cannot: every worker binds its own socket.
serveWorkers(name, (_options, listening) => {
  app.listen({ port, hostname: "127.0.0.1" }, () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
