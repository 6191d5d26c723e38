import { serveApp } from "@bench/fastify-app";
import { app } from "./app.ts";

// Node: node:cluster's primary hands out the connections (packages/fastify-app, serveApp).
serveApp("node-fastify", app);
