import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { handler, onError } from "./app.ts";

const { name, port } = getApp("deno-bare");
serveWorkers(name, ({ reusePort, host }, listening) => {
  const onListen = () => {
    console.log(`${name} listening on http://${host}:${port}`);
    listening();
  };
  Deno.serve({ port, hostname: host, reusePort, onListen, onError }, handler);
});
