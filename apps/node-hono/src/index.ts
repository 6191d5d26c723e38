import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { honoApp } from "./app.ts";

const app = honoApp(getConnInfo);
const { name, port } = getApp("node-hono");
// node:cluster's primary accepts and hands out the connections, so no reusePort here.
serveWorkers(name, ({ host }, listening) => {
  serve({ fetch: app.fetch, port, hostname: host }, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  });
});
