import { getApp } from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import { handler, onError } from "./app.ts";

const { name, port } = getApp("deno-bare");
serveWorkers(name, ({ reusePort }, listening) => {
  const onListen = () => {
    console.log(`${name} listening on http://127.0.0.1:${port}`);
    listening();
  };
  Deno.serve({ port, hostname: "127.0.0.1", reusePort, onListen, onError }, handler);
});
