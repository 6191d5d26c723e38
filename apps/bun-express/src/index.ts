import { serveApp } from "@bench/express-app";
import { app } from "./app.ts";

// Bun's node:http; with workers each listens with reusePort (packages/express-app, serveApp).
serveApp("bun-express", app);
