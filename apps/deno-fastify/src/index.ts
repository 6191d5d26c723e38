import { serveApp } from "@bench/fastify-app";
import { app } from "./app.ts";

// Deno's node:http, through its Node compatibility; with workers each listens with reusePort
// (packages/fastify-app, serveApp).
serveApp("deno-fastify", app);
