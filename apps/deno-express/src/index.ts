import { createServer } from "node:http";
import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("deno-express");
// Deno's node:http (its Node compatibility): with workers, the processes the primary starts
// each listen with reusePort.
serveWorkers(name, ({ reusePort }, listening) => {
  // What app.listen() does, with the listen options it does not pass on.
  createServer(app).listen({ port, host: "127.0.0.1", reusePort }, () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
