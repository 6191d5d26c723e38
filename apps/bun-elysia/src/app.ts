import { createApp } from "@bench/elysia-app";

export const app = createApp();

/** The HTTPS server's own instance (src/index.ts): an Elysia instance serves one listen. */
export const tlsApp = () => createApp();
