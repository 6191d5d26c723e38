import { createServer } from "node:http";
import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("bun-express");
// Bun's node:http: with workers, each listens with reusePort (Bun's node:cluster cannot pass
// sockets between processes).
serveWorkers(name, ({ reusePort }, listening) => {
  // What app.listen() does, with the listen options it does not pass on.
  createServer(app).listen({ port, host: "127.0.0.1", reusePort }, () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
