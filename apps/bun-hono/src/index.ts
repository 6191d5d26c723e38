import { getApp } from "@bench/contract";
import { app } from "./app.ts";

const { name, port } = getApp("bun-hono");
Bun.serve({ port, hostname: "127.0.0.1", fetch: app.fetch });
console.log(`${name} listening on http://127.0.0.1:${port}`);
