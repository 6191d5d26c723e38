import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import { app } from "./app.ts";

const { name, port } = getApp("bun-hono");
serveWorkers(name, ({ reusePort }, listening) => {
  Bun.serve({ port, hostname: "127.0.0.1", reusePort, fetch: fetchWithHead(app) });
  console.log(`${name} listening on http://127.0.0.1:${port}`);
  listening();
});
