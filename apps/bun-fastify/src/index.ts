import { serveApp } from "@bench/fastify-app";
import { app } from "./app.ts";

// Bun's node:http; with workers each listens with reusePort (packages/fastify-app, serveApp).
serveApp("bun-fastify", app);
