// node:http with no framework: the baseline that node-hono and node-elysia are measured against.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type {
  Http2SecureServer,
  Http2Server,
  Http2ServerRequest,
  Http2ServerResponse,
} from "node:http2";
import {
  apiPayload,
  buildItems,
  DB_ROUTES,
  ERRORS,
  type ErrorMessage,
  errorBody,
  FORTUNES_CONTENT_TYPE,
  fortunesHtml,
  GREETING,
  invalidFieldError,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  parseItemCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  ROUTES,
  selectUserFields,
  type TlsPem,
  unknownFieldError,
  updatedUser,
  userById,
  validateUserUpdate,
  withValue,
  worldStore,
} from "@bench/contract";
import { acceptUpgrades, shouldUpgradeCallback } from "@bench/contract/ws-node";
import { middlewareRoute } from "./middleware.ts";
import { streamRoute } from "./streams.ts";
import { upgradeRequired } from "./websocket.ts";

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, message: ErrorMessage): void {
  sendJson(res, status, errorBody(message));
}

function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  // The rest of the body is never read: close the connection instead of draining it.
  res.setHeader("connection", "close");
  sendError(res, 413, ERRORS.tooLarge);
  req.resume();
}

/**
 * Reads a JSON body and hands the parsed value on, or answers the refusal itself: media type,
 * then size (counted as it arrives, never past the limit), then syntax.
 */
function readJson(
  req: IncomingMessage,
  res: ServerResponse,
  onValue: (value: unknown) => void,
): void {
  if (!isJsonContentType(req.headers["content-type"])) {
    sendError(res, 415, ERRORS.notJson);
    return;
  }
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    refuseTooLarge(req, res);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_BODY_BYTES) {
      req.off("data", onData);
      req.off("end", onEnd);
      refuseTooLarge(req, res);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(chunks, received).toString("utf8"));
    } catch {
      sendError(res, 400, ERRORS.malformedJson);
      return;
    }
    onValue(value);
  };
  // A client that vanishes mid-body must not take the server down with it.
  req.on("error", () => res.destroy());
  req.on("data", onData);
  req.on("end", () => guard(res, onEnd));
}

function echo(req: IncomingMessage, res: ServerResponse): void {
  readJson(req, res, (value) => {
    const refused = jsonDocumentError(value);
    if (refused) sendError(res, 400, refused);
    else sendJson(res, 200, value);
  });
}

function getUser(res: ServerResponse, rawId: string, query: URLSearchParams): void {
  const id = parseUserId(rawId);
  const selected = parseUserFields(query.get("fields"));
  if (id === undefined) sendError(res, 400, ERRORS.badUserId);
  else if ("unknown" in selected) sendError(res, 400, unknownFieldError(selected.unknown));
  else sendJson(res, 200, selectUserFields(userById(id), selected.fields));
}

function updateUser(req: IncomingMessage, res: ServerResponse, rawId: string): void {
  readJson(req, res, (value) => {
    const checked = validateUserUpdate(value);
    const id = parseUserId(rawId);
    if ("error" in checked) sendError(res, 400, checked.error);
    else if (id === undefined) sendError(res, 400, ERRORS.badUserId);
    else if (checked.update.id !== id) sendError(res, 400, invalidFieldError("id"));
    else sendJson(res, 200, updatedUser(checked.update));
  });
}

const USERS_PREFIX = ROUTES.user.slice(0, ROUTES.user.indexOf(":id"));

export function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = () => new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
  // "/api/users/<id>" with exactly one segment after the prefix.
  const userId =
    path.startsWith(USERS_PREFIX) && !path.includes("/", USERS_PREFIX.length)
      ? path.slice(USERS_PREFIX.length)
      : undefined;
  // HEAD is GET without the body (RFC 9110): node:http drops the body of a HEAD response.
  const read = req.method === "GET" || req.method === "HEAD";
  if (path === ROUTES.root && read) {
    res.writeHead(200, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": Buffer.byteLength(GREETING),
    });
    res.end(GREETING);
  } else if (path === ROUTES.api && read) {
    sendJson(res, 200, apiPayload("bare"));
  } else if (path === ROUTES.echo && req.method === "POST") {
    echo(req, res);
  } else if (userId && read) {
    getUser(res, userId, query());
  } else if (userId && req.method === "POST") {
    updateUser(req, res, userId);
  } else if (path === ROUTES.items && read) {
    const count = parseItemCount(query().get("count"));
    if (count === undefined) sendError(res, 400, ERRORS.badCount);
    else sendJson(res, 200, buildItems(count));
  } else {
    notMatched(req, res, path, query, read);
  }
}

/**
 * Every other path: the database, streamed, WebSocket and production-middleware routes (so
 * they add nothing to the routes above), then the 404.
 */
function notMatched(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: () => URLSearchParams,
  read: boolean,
): void {
  if (read && (databaseRoute(res, path, query) || streamRoute(res, path, query))) return;
  if (read && upgradeRequired(res, path)) return;
  const route = middlewareRoute(path, req.method, read);
  if (route === undefined) {
    sendError(res, 404, ERRORS.notFound);
    return;
  }
  const answer = route(req, res, query);
  if (answer instanceof Promise) answer.catch((error: unknown) => failInternal(res, error));
}

/**
 * The database routes (the contract's store over node:sqlite, answered at once, or PostgreSQL,
 * answered when the rows come); false when `path` is none.
 */
function databaseRoute(res: ServerResponse, path: string, query: () => URLSearchParams): boolean {
  const count = () => parseQueries(query().get("queries"));
  const json = (rows: unknown) => sendJson(res, 200, rows);
  let answer: unknown;
  if (path === DB_ROUTES.db) answer = withValue(worldStore().world(), json);
  else if (path === DB_ROUTES.queries) answer = withValue(worldStore().worlds(count()), json);
  else if (path === DB_ROUTES.updates) answer = withValue(worldStore().updated(count()), json);
  else if (path === DB_ROUTES.fortunes) {
    answer = withValue(worldStore().fortunes(), (rows) => sendPage(res, fortunesHtml(rows)));
  } else return false;
  if (answer instanceof Promise) answer.catch((error: unknown) => failInternal(res, error));
  return true;
}

function sendPage(res: ServerResponse, page: string): void {
  res.writeHead(200, {
    "content-type": FORTUNES_CONTENT_TYPE,
    "content-length": Buffer.byteLength(page),
  });
  res.end(page);
}

/** A bug in a handler costs that request a 500, not the process. */
function failInternal(res: ServerResponse, error: unknown): void {
  console.error(error);
  if (!res.headersSent) sendError(res, 500, ERRORS.internal);
}

/** Runs a later step of a handler (a body's end) under the same rule. */
function guard(res: ServerResponse, step: () => void): void {
  try {
    step();
  } catch (error) {
    failInternal(res, error);
  }
}

type CompatHandler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

/** Every request, with a bug in a handler costing that request a 500. */
function serve(req: IncomingMessage, res: ServerResponse): void {
  try {
    handle(req, res);
  } catch (error) {
    failInternal(res, error);
  }
}

export function createApp(): Server {
  // No closure or listener per request on the hot path: node:http emits a request's 'error'
  // to listeners only, and only a body being read (readJson) needs one. The WebSocket routes'
  // upgrades go to ws (@bench/contract/ws-node); any other asking to upgrade is a request.
  return acceptUpgrades(createServer({ shouldUpgradeCallback }, serve));
}

/**
 * The same handler over HTTPS, HTTP/1.1 and HTTP/2 by ALPN on one port: node:http2's secure
 * server with allowHTTP1 (imported only when a run gives a certificate). Over HTTP/2 the handler
 * gets node:http2's compatibility request and response, which carry the same API it uses (and
 * drop the connection headers HTTP/2 has none of).
 */
export async function createTlsApp(tls: TlsPem): Promise<Http2SecureServer> {
  const { createSecureServer } = await import("node:http2");
  const options = { cert: tls.cert, key: tls.key, allowHTTP1: true };
  return createSecureServer(options, serve as unknown as CompatHandler);
}

/**
 * The same handler over cleartext HTTP/2 with prior knowledge (the h2c scenario): node:http2's
 * server without TLS, which speaks HTTP/2 only, on a port of its own (imported only when the run
 * asks for it).
 */
export async function createH2cApp(): Promise<Http2Server> {
  const { createServer } = await import("node:http2");
  return createServer(serve as unknown as CompatHandler);
}
