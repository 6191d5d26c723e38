import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { serve } from "./app.ts";

const { name, port } = getApp("deno-elysia");
// Elysia's Deno guide: Deno.serve(app.fetch), here through `serve` (src/app.ts), which hands the
// connection's info to the rate limiter. Off Bun, Elysia picks its web-standard adapter, and
// app.fetch compiles the routes on first use.
serveWorkers(name, ({ reusePort, host }, listening) => {
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen }, serve);
});
