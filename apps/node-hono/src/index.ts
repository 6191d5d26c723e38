import { getApp } from "@bench/contract";
import { serve } from "@hono/node-server";
import { app } from "./app.ts";

const { name, port } = getApp("node-hono");
serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => {
  console.log(`${name} listening on http://127.0.0.1:${port}`);
});
