// The Express 5 app, written once and served by all three runtimes' node:http (apps/node-express
// on Node, apps/bun-express on Bun's node:http, apps/deno-express through Deno's Node
// compatibility), so a difference between their results is the runtime's, not the code's.
//
// Express's own way throughout: express.json() reads JSON bodies (its `limit` is the contract's,
// and it refuses a declared length over it before reading), res.json() answers, an error
// handler and a last middleware turn Express's errors and unmatched routes into the contract's
// JSON. Express validates nothing itself; the user update goes through the contract's validator.

import { createServer } from "node:http";
import {
  apiPayload,
  buildItems,
  ERRORS,
  type ErrorMessage,
  errorBody,
  GREETING,
  getApp,
  invalidFieldError,
  isClientGone,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  parseItemCount,
  parseUserFields,
  parseUserId,
  ROUTES,
  selectUserFields,
  unknownFieldError,
  updatedUser,
  userById,
  validateUserUpdate,
} from "@bench/contract";
import { serveWorkers } from "@bench/contract/workers";
import express, { type NextFunction, type Request, type Response } from "express";

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

function routes(app: express.Express): void {
  app.get(ROUTES.root, (_req, res) => {
    res.type("text/plain").send(GREETING);
  });
  app.get(ROUTES.api, (_req, res) => {
    res.json(apiPayload("express"));
  });
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
  app.get(ROUTES.items, (req, res) => {
    const count = parseItemCount(single(req.query.count));
    if (count === undefined) return void fail(res, 400, ERRORS.badCount);
    res.json(buildItems(count));
  });
}

/** body-parser's and the router's errors, in the contract's words; anything else is a 500. */
function onError(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  // limitBody answered 413 already; body-parser reports the same body when it stops reading.
  if (res.headersSent) return;
  const { type, status } = error as { type?: string; status?: number };
  if (type === "entity.too.large") tooLarge(res);
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
  serveWorkers(name, ({ reusePort }, listening) => {
    createServer(app).listen({ port, host: "127.0.0.1", reusePort }, () => {
      console.log(`${name} listening on http://127.0.0.1:${port}`);
      listening();
    });
  });
}
