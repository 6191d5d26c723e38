import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { createApp } from "./app.ts";

const { name, port } = getApp("node-bare");
// node:cluster's primary accepts and hands out the connections, so no reusePort here.
serveWorkers(name, (_options, listening) => {
  createApp().listen(port, "127.0.0.1", () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  });
});
