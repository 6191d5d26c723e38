import { createServer } from "node:http";
import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("node-express");
// node:cluster's primary accepts and hands out the connections (reusePort is false here);
// on Bun and Deno every worker listens with reusePort on its own socket.
serveWorkers(name, ({ reusePort }, listening) => {
  // What app.listen() does, with the listen options it does not pass on.
  createServer(app).listen({ port, host: "127.0.0.1", reusePort }, () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
