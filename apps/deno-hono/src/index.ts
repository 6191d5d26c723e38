import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import { app } from "./app.ts";

const { name, port } = getApp("deno-hono");
// Hono's Deno guide: Deno.serve(app.fetch), here with the address every app listens on.
serveWorkers(name, ({ reusePort }, listening) => {
  const onListen = () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  };
  Deno.serve({ port, hostname: "127.0.0.1", reusePort, onListen }, fetchWithHead(app));
});
