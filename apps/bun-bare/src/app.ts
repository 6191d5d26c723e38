// Bun.serve with no framework: the baseline that bun-hono and bun-elysia are measured against.
// Routing uses Bun's built-in `routes` table, as Bun's own documentation writes a server; the
// handlers are packages/fetch-bare's, which deno-bare routes with Deno.serve.

import { DB_ROUTES, ERRORS, MIDDLEWARE_ROUTES, ROUTES, STREAM_ROUTES } from "@bench/contract";
import {
  api,
  echo,
  fail,
  fortunes,
  getUser,
  greeting,
  internalError,
  items,
  sse,
  stream,
  updates,
  updateUser,
  world,
  worlds,
} from "@bench/fetch-bare";
import { EXTRA_WORK_ENV, extraWork, withExtraWork } from "@bench/fetch-bare/extra-work";
import {
  etagItems,
  gzipItems,
  limited,
  me,
  preflight,
  publicApi,
  rateLimiter,
  stackMe,
} from "@bench/fetch-bare/middleware";
import type { FixedWindowLimiter } from "@bench/fetch-bare/rate-limit";
import type { BunRequest, Server } from "bun";
import { type SocketData, webSocketRoutes, websocket } from "./websocket.ts";

type UserRequest = BunRequest<typeof ROUTES.user>;

/**
 * ./benchmark.sh --calibrate only: a fixed CPU cost in front of every handler (unset: none,
 * and the handlers are Bun.serve's own, unwrapped).
 */
export const extraIterations = extraWork(process.env[EXTRA_WORK_ENV]);
const w = <A extends unknown[], R>(handler: (...args: A) => R) =>
  withExtraWork(extraIterations, handler);

const user = w((request: UserRequest) => getUser(request, request.params.id));
// The rate limit's key is the socket's address, which only the server knows. One store per
// server: a process serves once, but the tests start many servers from these options (the
// contract's reference server is this app), and each must start with the whole allowance.
const limiters = new WeakMap<Server<SocketData>, FixedWindowLimiter>();
const limit = w((request: Request, server: Server<SocketData>) => {
  let limiter = limiters.get(server);
  if (limiter === undefined) {
    limiter = rateLimiter();
    limiters.set(server, limiter);
  }
  return limited(limiter, server.requestIP(request)?.address);
});

/** Everything Bun.serve needs except where to listen. */
export const serveOptions = {
  // HEAD is GET without the body (RFC 9110). Bun 1.4 answers HEAD from a GET route by itself;
  // Bun 1.2 and 1.3 answer it 404 unless the route names HEAD, so it does (./benchmark.sh
  // --bun 1.3 runs this app on them). Bun sends no body for a HEAD request either way.
  routes: {
    [ROUTES.root]: { GET: w(greeting), HEAD: w(greeting) },
    [ROUTES.api]: { GET: w(api), HEAD: w(api) },
    [ROUTES.echo]: { POST: w(echo) },
    [ROUTES.user]: {
      GET: user,
      HEAD: user,
      POST: w((request: UserRequest) => updateUser(request, request.params.id)),
    },
    [ROUTES.items]: { GET: w(items), HEAD: w(items) },
    // The production-middleware routes: each handler does its own middleware's work, so these
    // entries add nothing to the routes above (Bun matches an exact path in one lookup).
    [MIDDLEWARE_ROUTES.me]: { GET: w(me), HEAD: w(me) },
    [MIDDLEWARE_ROUTES.public]: { GET: w(publicApi), HEAD: w(publicApi), OPTIONS: w(preflight) },
    [MIDDLEWARE_ROUTES.gzipItems]: { GET: w(gzipItems), HEAD: w(gzipItems) },
    [MIDDLEWARE_ROUTES.etagItems]: { GET: w(etagItems), HEAD: w(etagItems) },
    [MIDDLEWARE_ROUTES.limited]: { GET: limit, HEAD: limit },
    [MIDDLEWARE_ROUTES.stackMe]: { GET: w(stackMe), HEAD: w(stackMe), OPTIONS: w(preflight) },
    // The database routes (the contract's store over bun:sqlite).
    [DB_ROUTES.db]: { GET: w(world), HEAD: w(world) },
    [DB_ROUTES.queries]: { GET: w(worlds), HEAD: w(worlds) },
    [DB_ROUTES.fortunes]: { GET: w(fortunes), HEAD: w(fortunes) },
    [DB_ROUTES.updates]: { GET: w(updates) },
    // The streamed routes (a ReadableStream pulled chunk by chunk).
    [STREAM_ROUTES.sse]: { GET: w(sse) },
    [STREAM_ROUTES.stream]: { GET: w(stream) },
    // The WebSocket routes (websocket.ts): the upgrade, and 426 or 400 when there is none.
    ...webSocketRoutes,
  },
  websocket,
  // Unmatched paths, and known paths with another method, fall through to here.
  fetch: () => fail(404, ERRORS.notFound),
  error: internalError,
};
