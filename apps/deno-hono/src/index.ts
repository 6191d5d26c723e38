import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { fetchWithHead } from "@bench/hono-app";
import { getConnInfo } from "hono/deno";
import { honoApp } from "./app.ts";

const app = honoApp(getConnInfo);
const { name, port } = getApp("deno-hono");
// Hono's Deno guide: Deno.serve(app.fetch), here with the address every app listens on. The
// handler's second argument (the connection's info) reaches hono/deno's getConnInfo as env.
serveWorkers(name, ({ reusePort, host }, listening) => {
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen }, fetchWithHead(app));
});
