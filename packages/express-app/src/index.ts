// The Express 5 app, written once and served by all three runtimes' node:http (apps/node-express
// on Node, apps/bun-express on Bun's node:http, apps/deno-express through Deno's Node
// compatibility), so a difference between their results is the runtime's, not the code's.
//
// Express's own way throughout: express.json() reads JSON bodies (its `limit` is the contract's,
// and it refuses a declared length over it before reading), res.json() answers, an error
// handler and a last middleware turn Express's errors and unmatched routes into the contract's
// JSON. Express validates nothing itself; the user update goes through the contract's validator.

import { createSecretKey } from "node:crypto";
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  apiPayload,
  buildItems,
  CORS,
  DB_ROUTES,
  ERRORS,
  type ErrorMessage,
  errorBody,
  fortunesHtml,
  GREETING,
  getApp,
  invalidFieldError,
  isClientGone,
  isJsonContentType,
  JWT_SECRET,
  jsonDocumentError,
  MAX_BODY_BYTES,
  MIDDLEWARE_ROUTES,
  parseByteCount,
  parseEventCount,
  parseItemCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  RATE_LIMIT,
  ROUTES,
  SSE_CONTENT_TYPE,
  STACK_ITEMS,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  selectUserFields,
  sseEvents,
  streamChunks,
  unknownFieldError,
  updatedUser,
  userById,
  validateUserUpdate,
  withValue,
  worldStore,
} from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { acceptUpgrades, shouldUpgradeCallback } from "@bench/contract/ws-node";
import compression from "compression";
import cors from "cors";
import express, { type NextFunction, type Request, type Response } from "express";
import { expressjwt, type Request as JwtRequest, UnauthorizedError } from "express-jwt";
import {
  type ClientRateLimitInfo,
  ipKeyGenerator,
  MemoryStore,
  rateLimit,
} from "express-rate-limit";
import { webSocketRoutes } from "./websocket.ts";

const fail = (res: Response, status: number, message: ErrorMessage | string) =>
  res.status(status).json(errorBody(message as ErrorMessage));

/**
 * express.json() reads a body of its media type under the limit; a declared length over it is
 * refused before reading (413), a chunked one as soon as it passes it. `strict: false`: a JSON
 * string or null parses, and the route says why it is refused (strict mode would call it
 * malformed). body-parser turns an empty body into {}; `verify` sees the raw bytes first.
 */
const jsonBody = express.json({
  limit: MAX_BODY_BYTES,
  strict: false,
  verify: (_req, _res, raw) => {
    if (raw.length === 0) throw Object.assign(new SyntaxError("empty body"), { status: 400 });
  },
});

function tooLarge(res: Response): void {
  // The rest of the body is left unread: this connection cannot carry another request.
  res.set("connection", "close");
  fail(res, 413, ERRORS.tooLarge);
}

/**
 * The 413 that express.json() gives only late: body-parser refuses an oversized body but first
 * reads it off to its end (so that the connection can carry another request), and a client that
 * never ends a chunked body never got an answer. A declared length over the limit is refused
 * here unread; a chunked body is counted as it arrives and refused the moment it passes the
 * limit. A declared length within it (the benchmark's requests) costs one header lookup.
 */
function limitBody(req: Request, res: Response, next: NextFunction): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && req.headers["transfer-encoding"] === undefined) {
    if (Number(declared) > MAX_BODY_BYTES) tooLarge(res);
    else next();
    return;
  }
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= MAX_BODY_BYTES) return;
    req.off("data", count);
    tooLarge(res);
  };
  req.on("data", count);
  next();
}

/** 415 before anything is read: express.json() leaves other media types unread. */
function requireJson(req: Request, res: Response, next: NextFunction): void {
  if (isJsonContentType(req.headers["content-type"])) next();
  else fail(res, 415, ERRORS.notJson);
}

/** A query parameter as one string; a repeated one (`?count=1&count=2`) is not one. */
const single = (value: unknown): string | undefined =>
  typeof value === "string" ? value : value === undefined ? undefined : "";

const answerApi = (_req: Request, res: Response) => {
  res.json(apiPayload("express"));
};

function answerItems(req: Request, res: Response): void {
  const count = parseItemCount(single(req.query.count));
  if (count === undefined) return void fail(res, 400, ERRORS.badCount);
  res.json(buildItems(count));
}

function routes(app: express.Express): void {
  app.get(ROUTES.root, (_req, res) => {
    res.type("text/plain").send(GREETING);
  });
  app.get(ROUTES.api, answerApi);
  app.post(ROUTES.echo, requireJson, limitBody, jsonBody, (req, res) => {
    const refused = jsonDocumentError(req.body);
    if (refused) fail(res, 400, refused);
    else res.json(req.body);
  });
  app.get(ROUTES.user, (req, res) => {
    const id = parseUserId(req.params.id as string);
    if (id === undefined) return void fail(res, 400, ERRORS.badUserId);
    const selected = parseUserFields(single(req.query.fields));
    if ("unknown" in selected) return void fail(res, 400, unknownFieldError(selected.unknown));
    res.json(selectUserFields(userById(id), selected.fields));
  });
  app.post(ROUTES.user, requireJson, limitBody, jsonBody, (req, res) => {
    const checked = validateUserUpdate(req.body);
    if ("error" in checked) return void fail(res, 400, checked.error);
    const id = parseUserId(req.params.id as string);
    if (id === undefined) return void fail(res, 400, ERRORS.badUserId);
    if (checked.update.id !== id) return void fail(res, 400, invalidFieldError("id"));
    res.json(updatedUser(checked.update));
  });
  app.get(ROUTES.items, answerItems);
  databaseRoutes(app);
  streamRoutes(app);
}

/**
 * The streamed routes, Node's way: the pieces as a Readable piped into the response (each
 * written as it comes, with backpressure); with no Content-Length node:http sends it chunked.
 * A client gone mid-stream ends the pipeline with an error nobody needs to hear of.
 */
function streamRoutes(app: express.Express): void {
  const send = (res: Response, pieces: Iterable<string | Uint8Array>) => {
    pipeline(Readable.from(pieces), res).catch(() => {});
  };
  app.get(STREAM_ROUTES.sse, (req, res) => {
    const events = parseEventCount(single(req.query.events));
    if (events === undefined) return fail(res, 400, STREAM_ERRORS.badEvents);
    res.set({ "content-type": SSE_CONTENT_TYPE, "cache-control": "no-cache" });
    send(res, sseEvents(events));
  });
  app.get(STREAM_ROUTES.stream, (req, res) => {
    const bytes = parseByteCount(single(req.query.bytes));
    if (bytes === undefined) return fail(res, 400, STREAM_ERRORS.badBytes);
    res.set("content-type", STREAM_CONTENT_TYPE);
    send(res, streamChunks(bytes));
  });
}

/**
 * The database routes over the contract's store (the runtime's own SQLite, prepared
 * statements, or PostgreSQL: Express 5 passes a rejected promise to its error handler);
 * res.type("html") with a string is sent as text/html; charset=utf-8.
 */
function databaseRoutes(app: express.Express): void {
  const queries = (req: Request) => parseQueries(single(req.query.queries));
  app.get(DB_ROUTES.db, (_req, res) => {
    return withValue(worldStore().world(), (row) => res.json(row));
  });
  app.get(DB_ROUTES.queries, (req, res) => {
    return withValue(worldStore().worlds(queries(req)), (rows) => res.json(rows));
  });
  app.get(DB_ROUTES.fortunes, (_req, res) => {
    return withValue(worldStore().fortunes(), (rows) => res.type("html").send(fortunesHtml(rows)));
  });
  app.get(DB_ROUTES.updates, (req, res) => {
    return withValue(worldStore().updated(queries(req)), (rows) => res.json(rows));
  });
}

/**
 * CORS for one origin. The origin goes in as a one-element list: cors answers a string origin
 * to every caller as it is, so another origin would be allowed too; a list is compared with the
 * request's Origin and the header left out when it differs. Methods and headers are the
 * contract's strings, sent as they are.
 */
const corsPolicy = cors({
  origin: [CORS.allowedOrigin],
  methods: CORS.allowMethods,
  allowedHeaders: CORS.allowHeaders,
  maxAge: CORS.maxAgeSec,
});

/**
 * HS256 with `exp` checked (jsonwebtoken's default). The secret is a KeyObject made once:
 * jsonwebtoken turns a string secret into one on every verify, after first trying, and failing,
 * to read it as a public key. Its errors reach onError as UnauthorizedError (401).
 */
const authenticate = expressjwt({
  secret: createSecretKey(Buffer.from(JWT_SECRET)),
  algorithms: ["HS256"],
});

/**
 * Answers `body` for the user the verified token names. A token whose sub or name is not a
 * string (signed with the secret all the same) names no one: 401.
 */
const answerUser =
  (body: (user: { sub: string; name: string }) => object) => (req: Request, res: Response) => {
    const { sub, name } = (req as JwtRequest).auth ?? {};
    if (typeof sub !== "string" || typeof name !== "string") {
      return void fail(res, 401, ERRORS.unauthorized);
    }
    res.json(body({ sub, name }));
  };

/**
 * express-rate-limit's in-memory store (its default), answering a copy of the count. The store
 * answers the client's live record, and the limiter reads the count from it only after an await:
 * requests pipelined on one connection were all counted before the first was judged, so the
 * first of eleven read 11 and was refused too. The copy is taken before anything else can count.
 */
class MemoryStoreCopy extends MemoryStore {
  override async increment(key: string): Promise<ClientRateLimitInfo> {
    // MemoryStore's increment() has no await: the hit is counted when the call returns.
    void super.increment(key);
    const { totalHits, resetTime } = this.current.get(key) as ClientRateLimitInfo;
    return { totalHits, resetTime };
  }
}

/**
 * Per client address: the socket's, never a header. The default key, req.ip, would follow
 * X-Forwarded-For once `trust proxy` is set, and logs an error the first time the header comes
 * while it is not; ipKeyGenerator is the library's helper, which keys an IPv6 client by its /56.
 * Retry-After is only sent with rate-limit headers; the draft-7 ones cost least (two headers, no
 * hash of the key as draft-8 makes, no Date as the legacy X-RateLimit-* set). The default
 * handler sends `message` as JSON, with the status 429.
 */
const limiter = rateLimit({
  windowMs: RATE_LIMIT.windowSec * 1000,
  limit: RATE_LIMIT.max,
  keyGenerator: (req) => ipKeyGenerator(req.socket.remoteAddress ?? ""),
  standardHeaders: "draft-7",
  legacyHeaders: false,
  store: new MemoryStoreCopy(),
  message: errorBody(ERRORS.tooManyRequests),
});

/**
 * Express makes ETags in res.send from an app setting, off in this app so that no existing route
 * is hashed. A conditional route is therefore a sub-app of its own, mounted on its path, where
 * the setting keeps its default: a weak ETag of the body, and 304 when req.fresh (If-None-Match
 * matches). The sub-app's errors go on to this app's onError.
 */
function conditional(...handlers: express.RequestHandler[]): express.Express {
  const sub = express();
  sub.set("x-powered-by", false);
  sub.get("/", ...handlers);
  return sub;
}

/** The production-middleware routes, each with its middleware and only there. */
function middlewareRoutes(app: express.Express): void {
  const gzip = compression();
  const me = answerUser((user) => user);
  app.get(MIDDLEWARE_ROUTES.me, authenticate, me);
  app.options(MIDDLEWARE_ROUTES.public, corsPolicy);
  app.get(MIDDLEWARE_ROUTES.public, corsPolicy, answerApi);
  app.get(MIDDLEWARE_ROUTES.gzipItems, gzip, answerItems);
  app.use(MIDDLEWARE_ROUTES.etagItems, conditional(answerItems));
  app.get(MIDDLEWARE_ROUTES.limited, limiter, answerApi);
  // CORS first, so that a refused token's 401 carries the CORS header too. A browser sends
  // this route's Authorization only after a preflight, which CORS answers as on /api/public.
  const stack = answerUser((user) => ({ ...user, items: buildItems(STACK_ITEMS) }));
  const stackApp = conditional(corsPolicy, authenticate, gzip, stack);
  stackApp.options("/", corsPolicy);
  app.use(MIDDLEWARE_ROUTES.stackMe, stackApp);
}

/** body-parser's and the router's errors, in the contract's words; anything else is a 500. */
function onError(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  // limitBody answered 413 already; body-parser reports the same body when it stops reading.
  if (res.headersSent) return;
  const { type, status } = error as { type?: string; status?: number };
  // express-jwt's answer for a missing, malformed, expired or forged token.
  if (error instanceof UnauthorizedError) fail(res, 401, ERRORS.unauthorized);
  else if (type === "entity.too.large") tooLarge(res);
  else if (type === "request.aborted" || isClientGone(error)) {
    fail(res, 400, ERRORS.bodyUnreadable);
  } else if (type === "entity.parse.failed" || type === "entity.verify.failed") {
    fail(res, 400, ERRORS.malformedJson);
  } else if (type === "charset.unsupported" || type === "encoding.unsupported") {
    fail(res, 415, ERRORS.notJson);
  } else if (error instanceof URIError || status === 404) {
    // A path the router cannot decode (a broken percent-encoding) names no route.
    fail(res, 404, ERRORS.notFound);
  } else if (status !== undefined && status >= 400 && status < 500) {
    fail(res, 400, ERRORS.malformedJson);
  } else {
    console.error(error);
    fail(res, 500, ERRORS.internal);
  }
}

export function createApp(): express.Express {
  const app = express();
  // No framework of this comparison hashes every answer for an ETag or names itself in a
  // header: Express does both by default (the documented settings turn them off).
  app.set("etag", false);
  app.set("x-powered-by", false);
  routes(app);
  middlewareRoutes(app);
  webSocketRoutes(app);
  app.use((_req: Request, res: Response) => fail(res, 404, ERRORS.notFound));
  app.use(onError);
  return app;
}

/**
 * Serves `app` as the registry's `name` on node:http, in one process or BENCH_WORKERS of them:
 * what app.listen() does, with the listen options it does not pass on. node:cluster's primary
 * hands out the connections on Node (reusePort false); on Bun and Deno every worker listens
 * with reusePort on its own socket.
 */
export function serveApp(name: string, app: express.Express): void {
  const { port } = getApp(name);
  // Given the run's certificate, HTTPS too: Express's way, the app on node:https (imported
  // only then). WebSocket on the plain port only: ws on the server (@bench/contract/ws-node).
  serveWorkers(name, ({ reusePort, host }, listening) =>
    listenPlainAndTls(name, host, port, listening, async (at, tls, done) => {
      const server = tls
        ? (await import("node:https")).createServer({ cert: tls.cert, key: tls.key }, app)
        : acceptUpgrades(createServer({ shouldUpgradeCallback }, app));
      server.listen({ port: at, host, reusePort }, done);
    }),
  );
}
