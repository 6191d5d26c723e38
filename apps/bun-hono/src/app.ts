import { bunGetPath, createApp, type GetConnInfo } from "@bench/hono-app";

/**
 * The app. src/index.ts passes the runtime adapter's getConnInfo (hono/bun), whose socket
 * address the rate limiter keys on; the in-process tests have no socket and pass none.
 */
export const honoApp = (getConnInfo?: GetConnInfo) =>
  createApp({ getPath: bunGetPath }, getConnInfo);
