import { createApp, type GetConnInfo } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (hono/deno), whose socket
 * address the rate limiter keys on; the in-process tests have no socket and pass none (and
 * could not import hono/deno under Bun: it reads `Deno` as it loads).
 */
export const honoApp = (getConnInfo?: GetConnInfo) => createApp({}, getConnInfo);
