import { serveApp } from "@bench/express-app";
import { app } from "./app.ts";

// Deno's node:http, through its Node compatibility; with workers each listens with reusePort
// (packages/express-app, serveApp).
serveApp("deno-express", app);
