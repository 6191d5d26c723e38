import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { createApp } from "./app.ts";

const { name, port } = getApp("node-bare");
// node:cluster's primary accepts and hands out the connections, so no reusePort here.
serveWorkers(name, ({ host }, listening) => {
  createApp().listen(port, host, () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  });
});
