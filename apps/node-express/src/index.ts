import { serveApp } from "@bench/express-app";
import { app } from "./app.ts";

// Node: node:cluster's primary hands out the connections (packages/express-app, serveApp).
serveApp("node-express", app);
