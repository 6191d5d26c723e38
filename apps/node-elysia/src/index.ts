import { getApp } from "@bench/contract";
import { app } from "./app.ts";

const { name, port } = getApp("node-elysia");
app.listen({ port, hostname: "127.0.0.1" }, () => {
  console.log(`${name} listening on http://127.0.0.1:${port}`);
});
