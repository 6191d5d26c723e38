import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("bun-elysia");
serveWorkers(name, ({ reusePort, host }, listening) => {
  app.listen({ port, hostname: host, reusePort }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  });
});
