// Deno.serve with no framework: the baseline that deno-hono and deno-elysia are measured against.
// Deno.serve hands every request to one handler (Deno's docs route by hand or with URLPattern);
// this one routes by comparing the path, as node-bare does, which is the cheaper of the two. The
// handlers are packages/fetch-bare's, which bun-bare routes with Bun.serve's routes table.

import { DB_ROUTES, ERRORS, MIDDLEWARE_ROUTES, ROUTES, STREAM_ROUTES } from "@bench/contract";
import { WS_ROUTES } from "@bench/contract/ws";
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
import { webSocket } from "./websocket.ts";

const USERS_PREFIX = ROUTES.user.slice(0, ROUTES.user.indexOf(":id"));

/** Every request: Deno's request.url is absolute, so the path starts at the first "/" after "//". */
export function handler(
  request: Request,
  info: Deno.ServeHandlerInfo,
): Response | Promise<Response> {
  const url = request.url;
  const q = url.indexOf("?");
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2), q === -1 ? undefined : q);
  // "/api/users/<id>" with exactly one segment after the prefix.
  const userId =
    path.startsWith(USERS_PREFIX) && !path.includes("/", USERS_PREFIX.length)
      ? path.slice(USERS_PREFIX.length)
      : undefined;
  // HEAD is GET without the body (RFC 9110): Deno.serve drops the body of a HEAD answer over
  // HTTP/1.1, and index.ts makes it body-less for HTTP/2.
  const method = request.method;
  const read = method === "GET" || method === "HEAD";
  if (path === ROUTES.root && read) return greeting();
  if (path === ROUTES.api && read) return api();
  if (path === ROUTES.echo && method === "POST") return echo(request);
  if (userId && read) return getUser(request, userId);
  if (userId && method === "POST") return updateUser(request, userId);
  if (path === ROUTES.items && read) return items(request);
  const database = read ? databaseRoute(request, path) : undefined;
  return database ?? middlewareRoute(request, info, path, method, read);
}

/** The database, streamed and WebSocket routes, reached once the routes above have not matched. */
function databaseRoute(request: Request, path: string): Response | Promise<Response> | undefined {
  switch (path) {
    case DB_ROUTES.db:
      return world();
    case DB_ROUTES.queries:
      return worlds(request);
    case DB_ROUTES.fortunes:
      return fortunes();
    case DB_ROUTES.updates:
      return updates(request);
    case STREAM_ROUTES.sse:
      return sse(request);
    case STREAM_ROUTES.stream:
      return stream(request);
    case WS_ROUTES.echo:
      return webSocket(request, false);
    case WS_ROUTES.broadcast:
      return webSocket(request, true);
    default:
      return undefined;
  }
}

/** GET /api/limited's store: one Deno.serve per process, so one store. */
const limiter = rateLimiter();

/**
 * The production-middleware routes, reached only once every route above has not matched: they
 * add nothing to those. Each handler does its own middleware's work.
 */
function middlewareRoute(
  request: Request,
  info: Deno.ServeHandlerInfo,
  path: string,
  method: string,
  read: boolean,
): Response | Promise<Response> {
  switch (path) {
    case MIDDLEWARE_ROUTES.me:
      if (read) return me(request);
      break;
    case MIDDLEWARE_ROUTES.public:
      if (read) return publicApi(request);
      if (method === "OPTIONS") return preflight(request);
      break;
    case MIDDLEWARE_ROUTES.gzipItems:
      if (read) return gzipItems(request);
      break;
    case MIDDLEWARE_ROUTES.etagItems:
      if (read) return etagItems(request);
      break;
    case MIDDLEWARE_ROUTES.limited:
      // The socket's address, never a header a client could forge.
      if (read) return limited(limiter, info.remoteAddr.hostname);
      break;
    case MIDDLEWARE_ROUTES.stackMe:
      if (read) return stackMe(request);
      if (method === "OPTIONS") return preflight(request);
      break;
  }
  return fail(404, ERRORS.notFound);
}

/** A bug in a handler costs that request a JSON 500, not the process. */
export const onError = internalError;
