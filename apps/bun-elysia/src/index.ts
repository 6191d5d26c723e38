import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { app } from "./app.ts";

const { name, port } = getApp("bun-elysia");
serveWorkers(name, ({ reusePort }, listening) => {
  app.listen({ port, hostname: "127.0.0.1", reusePort }, () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
