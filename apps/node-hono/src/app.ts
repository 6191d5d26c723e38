import { createApp, type GetConnInfo } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (@hono/node-server/conninfo),
 * whose socket address the rate limiter keys on; the in-process tests have no socket and pass
 * none.
 */
export const honoApp = (getConnInfo?: GetConnInfo) => createApp({}, getConnInfo);
