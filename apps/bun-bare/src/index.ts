import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { extraIterations, serveOptions } from "./app.ts";

const { name, port } = getApp("bun-bare");
serveWorkers(name, ({ reusePort, host }, listening) => {
  Bun.serve({ ...serveOptions, port, hostname: host, reusePort });
  console.log(`${name} listening on http://${host}:${port}`);
  if (extraIterations !== undefined) {
    console.log(`${name}: calibration: ${extraIterations} extra iterations per request`);
  }
  listening();
});
