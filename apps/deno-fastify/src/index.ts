import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("deno-fastify");
// Deno's node:http (its Node compatibility): with workers, the processes the primary starts
// each listen with reusePort.
serveWorkers(name, ({ reusePort }, listening) => {
  // Fastify hands these to node:http's listen(); its type leaves reusePort out.
  const options = { port, host: "127.0.0.1", reusePort };
  app.listen(options, (error) => {
    if (error) throw error;
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
