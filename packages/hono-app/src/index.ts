// The Hono app, written once and served by all three runtimes (apps/bun-hono, apps/node-hono,
// apps/deno-hono), so a difference between their results is the runtime's, not the code's.

import {
  apiPayload,
  buildItems,
  CORS,
  DB_ROUTES,
  ERRORS,
  errorBody,
  fortunesHtml,
  GREETING,
  invalidFieldError,
  isClientGone,
  isJsonContentType,
  JWT_SECRET,
  jsonDocumentError,
  MAX_BODY_BYTES,
  MIDDLEWARE_ROUTES,
  NAME_MAX,
  parseByteCount,
  parseEventCount,
  parseItemCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  RATE_LIMIT,
  ROUTES,
  STACK_ITEMS,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  selectUserFields,
  sseData,
  streamChunks,
  unknownFieldError,
  updatedUser,
  userById,
  withValue,
  worldStore,
} from "@bench/contract";
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import type { GetConnInfo } from "hono/conninfo";
import { cors } from "hono/cors";
import { etag, RETAINED_304_HEADERS } from "hono/etag";
import { createMiddleware } from "hono/factory";
import type { HonoOptions } from "hono/hono-base";
import { HTTPException } from "hono/http-exception";
import { jwt } from "hono/jwt";
import { stream, streamSSE } from "hono/streaming";
import type { BlankEnv } from "hono/types";
import type { JSONValue } from "hono/utils/types";
import { getPath } from "hono/utils/url";
import { type ClientRateLimitInfo, MemoryStore, rateLimiter } from "hono-rate-limiter";
import { z } from "zod";
import { addWebSocketRoutes, refusedOpening, type WebSocketRoutes } from "./websocket.ts";

export {
  audienceEvents,
  echoEvents,
  type Message,
  type Send,
  type WebSocketRoutes,
} from "./websocket.ts";
export type { GetConnInfo };

const tooLarge = (c: Context) => {
  // The rest of the body is left unread, so this connection cannot carry another request:
  // say so, or a keep-alive client reuses it and gets a reset (seen with @hono/node-server).
  c.header("connection", "close");
  return c.json(errorBody(ERRORS.tooLarge), 413);
};

const limitStreamedBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });

/**
 * What a JSON route checks before its body is read: the media type (415), then the size (413).
 * The size is hono/body-limit's rule with its Content-Length check done first: bodyLimit starts
 * by reading `c.req.raw.body`, which on @hono/node-server builds a whole web Request and wraps
 * the Node stream in a web stream, so `c.req.json()` loses the adapter's direct read (node-hono's
 * echo ran at about half the speed of a plain one). A declared length is enforced by the HTTP
 * parser, so the header alone decides; only a body of unknown length (chunked) goes through
 * bodyLimit, which reads it under the limit and then calls `read`.
 */
function withJsonBody<R extends Response | undefined>(
  c: Context,
  read: () => Promise<R>,
): Response | Promise<Response | R> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return c.json(errorBody(ERRORS.notJson), 415);
  }
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined) {
    // bodyLimit answers with onError's response or with what `read` (its next) returns.
    return limitStreamedBody(c, read as () => Promise<void>) as Promise<Response | R>;
  }
  return Number(length) > MAX_BODY_BYTES ? tooLarge(c) : read();
}

/** The same checks as a middleware, for routes whose body a validator middleware reads. */
const jsonBody = createMiddleware(async (c, next) =>
  withJsonBody(c, async () => {
    await next();
    return undefined;
  }),
);

async function echo(c: Context): Promise<Response> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json(errorBody(ERRORS.malformedJson), 400);
  }
  const refused = jsonDocumentError(body);
  if (refused) return c.json(errorBody(refused), 400);
  return c.json(body as JSONValue);
}

const userUpdate = z.object({
  id: z.number().int(),
  name: z.string().min(1).max(NAME_MAX),
  surname: z.string().min(1).max(NAME_MAX),
  lastUpdate: z.iso.datetime({ offset: true }),
});

/** The first failing field, in schema order, as the contract words it. */
const validateUserUpdate = zValidator("json", userUpdate, (result, c) => {
  if (result.success) return;
  const field = result.error.issues[0]?.path[0];
  const message = field === undefined ? ERRORS.notObject : invalidFieldError(String(field));
  return c.json(errorBody(message), 400);
});

/** The claims /api/me and /api/stack/me answer, as the JWT middleware verified them. */
function tokenUser(c: Context): { sub: string; name: string } {
  const { sub, name } = c.get("jwtPayload") as { sub: string; name: string };
  return { sub, name };
}

/** GET /api/items' count rule, for the compressed and conditional copies of that route. */
function items(c: Context): Response {
  const count = parseItemCount(c.req.query("count"));
  if (count === undefined) return c.json(errorBody(ERRORS.badCount), 400);
  return c.json(buildItems(count));
}

/**
 * hono-rate-limiter's in-memory store with each count copied as it is taken. Its MemoryStore
 * returns the client's live record, and the middleware reads the count after an `await`:
 * requests that arrive together (pipelined ones, which @hono/node-server dispatches at once)
 * all read the last one's count, so a burst of 11 was 11 × 429 instead of 10 answers and one
 * 429 (hono-rate-limiter 0.5.4, the latest).
 */
class CountingMemoryStore extends MemoryStore {
  override increment(key: string): ClientRateLimitInfo {
    const { totalHits, resetTime } = super.increment(key);
    return { totalHits, resetTime: resetTime && new Date(resetTime) };
  }
}

/**
 * The production-middleware routes, each with Hono's own middleware scoped to its path, so the
 * routes above keep a single handler each (Hono's fast path: no compose). The rate-limited
 * route needs the runtime adapter's getConnInfo (the socket's address); without one (app.fetch
 * in-process, no server) it is left out rather than limiting every caller as one client.
 */
function addMiddlewareRoutes(app: Hono, getConnInfo: GetConnInfo | undefined): void {
  // HS256 with exp checked (Hono checks exp, nbf and iat by default). Its 401s, whatever their
  // reason, become the contract's JSON in onError.
  const auth = jwt({ secret: JWT_SECRET, alg: "HS256" });
  // Hono joins the lists with "," (no space), which is the contract's byte-exact value.
  const allowApp = cors({
    origin: CORS.allowedOrigin,
    allowMethods: [CORS.allowMethods],
    allowHeaders: CORS.allowHeaders.split(","),
    maxAge: CORS.maxAgeSec,
  });

  app.get(MIDDLEWARE_ROUTES.me, auth, (c) => c.json(tokenUser(c)));

  // app.use: the preflight (OPTIONS) is answered by cors() itself, which never calls next.
  app.use(MIDDLEWARE_ROUTES.public, allowApp);
  app.get(MIDDLEWARE_ROUTES.public, (c) => c.json(apiPayload("hono")));

  app.get(MIDDLEWARE_ROUTES.gzipItems, compress(), items);
  app.get(MIDDLEWARE_ROUTES.etagItems, etag(), items);

  if (getConnInfo) {
    const limit = rateLimiter({
      windowMs: RATE_LIMIT.windowSec * 1000,
      limit: RATE_LIMIT.max,
      // The socket's address; undefined only when the client is already gone.
      keyGenerator: (c) => getConnInfo(c).remote.address ?? "",
      // The default handler answers c.json(message) with the 429; the default draft-6 headers
      // include Retry-After on it. A spread copy: the option's type wants a plain record.
      message: { ...errorBody(ERRORS.tooManyRequests) },
      store: new CountingMemoryStore(),
    });
    app.get(MIDDLEWARE_ROUTES.limited, limit, (c) => c.json(apiPayload("hono")));
  }

  app.use(MIDDLEWARE_ROUTES.stackMe, allowApp);
  app.get(
    MIDDLEWARE_ROUTES.stackMe,
    auth,
    compress(),
    // Weak: compress() turns the 200's ETag into W/"…" but the 304 keeps the tag etag() made,
    // so a strong tag would come back different on the 304. The 304 keeps the CORS header too:
    // etag() drops every header not in its list, and cors() set it before the handler ran.
    etag({ weak: true, retainedHeaders: [...RETAINED_304_HEADERS, "access-control-allow-origin"] }),
    (c) => c.json({ ...tokenUser(c), items: buildItems(STACK_ITEMS) }),
  );
}

/**
 * The database routes, each a single handler (Hono's fast path) over the contract's store: the
 * runtime's own SQLite with prepared statements (world-store.ts), answered at once, or
 * PostgreSQL, answered when the rows come. c.html sends the page as text/html; charset=UTF-8.
 */
function addDatabaseRoutes(app: Hono): void {
  app.get(DB_ROUTES.db, (c) => withValue(worldStore().world(), (row) => c.json(row)));
  app.get(DB_ROUTES.queries, (c) =>
    withValue(worldStore().worlds(parseQueries(c.req.query("queries"))), (rows) => c.json(rows)),
  );
  app.get(DB_ROUTES.fortunes, (c) =>
    withValue(worldStore().fortunes(), (rows) => c.html(fortunesHtml(rows))),
  );
  app.get(DB_ROUTES.updates, (c) =>
    withValue(worldStore().updated(parseQueries(c.req.query("queries"))), (rows) => c.json(rows)),
  );
}

/**
 * The streamed routes with Hono's streaming helper: streamSSE writes each event as it is made
 * (`data: <i>` and a blank line) and sets text/event-stream (and Connection and Transfer-Encoding,
 * removed below); stream() sends each chunk as it is
 * written, awaiting the reader (backpressure). A bad count is refused before the stream starts.
 */
function addStreamRoutes(app: Hono): void {
  app.get(STREAM_ROUTES.sse, (c) => {
    const events = parseEventCount(c.req.query("events"));
    if (events === undefined) return c.json(errorBody(STREAM_ERRORS.badEvents), 400);
    const answer = streamSSE(c, async (sse) => {
      for (let i = 1; i <= events; i++) await sse.writeSSE({ data: sseData(i) });
    });
    // streamSSE sets Connection: keep-alive, a hop-by-hop header that is the server's to set:
    // asked to close, @hono/node-server kept the connection open until Node's keep-alive timeout
    // (5 s), and Bun and Deno said keep-alive while closing. Transfer-Encoding too: HTTP/2 has
    // none, and node:http2 throws on it, which ended node-hono's process on the first /sse over
    // HTTP/2. Removed, the server decides (HTTP/1.1 servers chunk a body of unknown length).
    answer.headers.delete("connection");
    answer.headers.delete("transfer-encoding");
    return answer;
  });
  app.get(STREAM_ROUTES.stream, (c) => {
    const bytes = parseByteCount(c.req.query("bytes"));
    if (bytes === undefined) return c.json(errorBody(STREAM_ERRORS.badBytes), 400);
    c.header("content-type", STREAM_CONTENT_TYPE);
    return stream(c, async (body) => {
      for (const chunk of streamChunks(bytes)) await body.write(chunk);
    });
  });
}

/**
 * `getConnInfo` is the runtime adapter's (hono/bun, hono/deno, @hono/node-server/conninfo): the
 * rate limiter keys on the address it gives. The other routes do not need it. `webSocket`: the
 * WebSocket routes, made with the runtime adapter's upgradeWebSocket (websocket.ts); without
 * them (app.fetch in-process, no server to upgrade on) the routes are left out.
 */
export function createApp(
  options: HonoOptions<BlankEnv> = {},
  getConnInfo?: GetConnInfo,
  webSocket?: WebSocketRoutes,
): Hono {
  const app = new Hono(options);

  app.get(ROUTES.root, (c) => c.text(GREETING));

  app.get(ROUTES.api, (c) => c.json(apiPayload("hono")));

  // One handler, no middleware: a route with a single handler stays on Hono's fast path
  // (no compose); with the checks as a middleware, node-hono's echo ran ~15% slower.
  app.post(ROUTES.echo, (c) => withJsonBody(c, () => echo(c)));

  // The id is checked in the handler, not in a middleware: a route with a single handler stays
  // on Hono's fast path (no compose, no Promise), which a middleware here would cost.
  app.get(ROUTES.user, (c) => {
    const id = parseUserId(c.req.param("id"));
    if (id === undefined) return c.json(errorBody(ERRORS.badUserId), 400);
    const selected = parseUserFields(c.req.query("fields"));
    if ("unknown" in selected) return c.json(errorBody(unknownFieldError(selected.unknown)), 400);
    return c.json(selectUserFields(userById(id), selected.fields));
  });

  app.post(ROUTES.user, jsonBody, validateUserUpdate, (c) => {
    const update = c.req.valid("json");
    const id = parseUserId(c.req.param("id"));
    if (id === undefined) return c.json(errorBody(ERRORS.badUserId), 400);
    if (update.id !== id) return c.json(errorBody(invalidFieldError("id")), 400);
    return c.json(updatedUser(update));
  });

  app.get(ROUTES.items, (c) => {
    const count = parseItemCount(c.req.query("count"));
    if (count === undefined) return c.json(errorBody(ERRORS.badCount), 400);
    return c.json(buildItems(count));
  });

  addMiddlewareRoutes(app, getConnInfo);
  addDatabaseRoutes(app);
  addStreamRoutes(app);
  if (webSocket) addWebSocketRoutes(app, webSocket);

  // Hono answers an unmatched method with 404 too, which is what the contract asks.
  app.notFound((c) => c.json(errorBody(ERRORS.notFound), 404));

  app.onError((error, c) => {
    // The json validator's answer to a body that does not parse.
    if (error instanceof HTTPException && error.status === 400) {
      return c.json(errorBody(ERRORS.malformedJson), 400);
    }
    // The JWT middleware's refusal (no, malformed, expired or forged token): the contract's
    // body, with the middleware's WWW-Authenticate challenge (RFC 6750 asks for it on a 401).
    if (error instanceof HTTPException && error.status === 401) {
      const challenge = error.res?.headers.get("www-authenticate");
      const headers = challenge ? { "www-authenticate": challenge } : undefined;
      return c.json(errorBody(ERRORS.unauthorized), 401, headers);
    }
    // The client left mid-body (bodyLimit or the validator was reading it): not our failure.
    if (isClientGone(error)) return c.json(errorBody(ERRORS.bodyUnreadable), 400);
    // A WebSocket opening request the runtime threw on (Deno.upgradeWebSocket): the client's.
    const refused = refusedOpening(error, c);
    if (refused) return refused;
    console.error(error);
    return c.json(errorBody(ERRORS.internal), 500);
  });

  return app;
}

/**
 * Hono's getPath for Bun: Bun's `request.url` is only the path ("/api/test") when an HTTP/1.0
 * request comes without a Host header, and Hono's getPath, which skips "scheme://host" by
 * position, cut the first segment off (404 on every route). An absolute URL is left to Hono's.
 */
export function bunGetPath(request: Request): string {
  const url = request.url;
  if (url.charCodeAt(0) !== 47) return getPath(request);
  return getPath({ url: `http://localhost${url}` } as Request);
}

/**
 * `app.fetch` for Bun.serve and Deno.serve, with HEAD dispatched as GET. Hono answers HEAD with
 * `new Response(null, answerToGet)`, and both servers then send `Content-Length: 0`, which
 * RFC 9110 (8.6) forbids when GET's body is longer. Given GET's answer, the server leaves the
 * body off the wire itself and sends its real length. Costs one comparison per request.
 * `env` (Bun's server, Deno's connection info) is passed on for the adapter's getConnInfo;
 * `headEnv` gives the GET copy of a HEAD the env it needs, where that env knows only the
 * request the server received (Bun's requestIP). `headOf` makes the HEAD answer of GET's where
 * the server does not leave its body off (Deno.serve over HTTP/2: @bench/contract's headAnswer).
 */
export function fetchWithHead<E>(
  app: Hono,
  headEnv: (env: E, received: Request) => E = (env) => env,
  headOf?: (get: Response) => Promise<Response>,
): (request: Request, env: E) => Response | Promise<Response> {
  const asGet = (request: Request, env: E) =>
    app.fetch(new Request(request, { method: "GET" }), headEnv(env, request));
  return (request, env) => {
    if (request.method !== "HEAD") return app.fetch(request, env);
    return headOf ? Promise.resolve(asGet(request, env)).then(headOf) : asGet(request, env);
  };
}
