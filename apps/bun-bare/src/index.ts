import { getApp } from "@bench/contract";
import { serveOptions } from "./app.ts";

const { name, port } = getApp("bun-bare");
Bun.serve({ ...serveOptions, port, hostname: "127.0.0.1" });
console.log(`${name} listening on http://127.0.0.1:${port}`);
