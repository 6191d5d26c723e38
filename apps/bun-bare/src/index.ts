import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { extraIterations, serveOptions } from "./app.ts";

const { name, port } = getApp("bun-bare");
serveWorkers(name, ({ reusePort }, listening) => {
  Bun.serve({ ...serveOptions, port, hostname: "127.0.0.1", reusePort });
  console.log(`${name} listening on http://127.0.0.1:${port}`);
  if (extraIterations !== undefined) {
    console.log(`${name}: calibration: ${extraIterations} extra iterations per request`);
  }
  listening();
});
