// The Fastify 5 app, written once and served by all three runtimes' node:http (apps/node-fastify
// on Node, apps/bun-fastify on Bun's node:http, apps/deno-fastify through Deno's Node
// compatibility), so a difference between their results is the runtime's, not the code's.
//
// Fastify's fastest documented path: its own JSON body parser (with `bodyLimit`, which refuses a
// declared length over the limit before reading), a JSON schema for the user update (Ajv,
// compiled once) and response schemas for every 200 answer (fast-json-stringify). An error
// handler and a not-found handler answer the contract's JSON. The production-middleware routes
// (middleware.ts) live in scopes of their own: their plugins run on no route of this file.

import { Readable } from "node:stream";
import {
  type AppName,
  apiPayload,
  DB_ROUTES,
  ERRORS,
  FORTUNES_CONTENT_TYPE,
  fortunesHtml,
  GREETING,
  getApp,
  H2_UNSUPPORTED,
  H2C_UNSUPPORTED,
  invalidFieldError,
  isClientGone,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  parseByteCount,
  parseEventCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  ROUTES,
  SSE_CONTENT_TYPE,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  selectUserFields,
  sseEvents,
  streamChunks,
  type TlsPem,
  type UserUpdate,
  unknownFieldError,
  updatedUser,
  userById,
  withValue,
  worldStore,
} from "@bench/contract";
import { listenPlainAndTls } from "@bench/contract/listen";
import { serveWorkers } from "@bench/contract/workers";
import { shouldUpgradeCallback } from "@bench/contract/ws-node";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { fail, items, type Query, single } from "./answers.ts";
import { middlewareRoutes } from "./middleware.ts";
import { SCHEMAS } from "./schemas.ts";
import { webSocketRoutes } from "./websocket.ts";

type WithId = { Params: { id: string } } & Query;

function routes(app: FastifyInstance): void {
  app.get(ROUTES.root, (_req, reply) => reply.type("text/plain").send(GREETING));
  app.get(ROUTES.api, { schema: SCHEMAS.api }, () => apiPayload("fastify"));
  app.post(ROUTES.echo, (req, reply) => {
    // Fastify parses only the media types it has a parser for; a body with none is 415 already.
    if (!isJsonContentType(req.headers["content-type"])) return fail(reply, 415, ERRORS.notJson);
    const refused = jsonDocumentError(req.body);
    return refused ? fail(reply, 400, refused) : reply.send(req.body);
  });
  app.get<WithId>(ROUTES.user, { schema: SCHEMAS.user }, (req, reply) => {
    const id = parseUserId(req.params.id);
    if (id === undefined) return fail(reply, 400, ERRORS.badUserId);
    const selected = parseUserFields(single(req.query.fields));
    if ("unknown" in selected) return fail(reply, 400, unknownFieldError(selected.unknown));
    return selectUserFields(userById(id), selected.fields);
  });
  app.post<WithId & { Body: UserUpdate }>(
    ROUTES.user,
    { schema: SCHEMAS.userUpdate },
    (req, reply) => {
      const id = parseUserId(req.params.id);
      if (id === undefined) return fail(reply, 400, ERRORS.badUserId);
      if (req.body.id !== id) return fail(reply, 400, invalidFieldError("id"));
      return updatedUser(req.body);
    },
  );
  app.get<Query>(ROUTES.items, { schema: SCHEMAS.items }, items);
  databaseRoutes(app);
  streamRoutes(app);
}

/**
 * The streamed routes as Fastify streams: reply.send() of a Readable pipes it into the answer
 * (each piece written as it comes, with backpressure; chunked, as no length is known).
 */
function streamRoutes(app: FastifyInstance): void {
  app.get<Query>(STREAM_ROUTES.sse, (req, reply) => {
    const events = parseEventCount(single(req.query.events));
    if (events === undefined) return fail(reply, 400, STREAM_ERRORS.badEvents);
    return reply
      .type(SSE_CONTENT_TYPE)
      .header("cache-control", "no-cache")
      .send(Readable.from(sseEvents(events)));
  });
  app.get<Query>(STREAM_ROUTES.stream, (req, reply) => {
    const bytes = parseByteCount(single(req.query.bytes));
    if (bytes === undefined) return fail(reply, 400, STREAM_ERRORS.badBytes);
    return reply.type(STREAM_CONTENT_TYPE).send(Readable.from(streamChunks(bytes)));
  });
}

/**
 * The database routes over the contract's store (the runtime's own SQLite, prepared
 * statements), their rows serialized by fast-json-stringify from the World schema; the page is
 * sent as a string with its content type.
 */
function databaseRoutes(app: FastifyInstance): void {
  const queries = (req: FastifyRequest<Query>) => parseQueries(single(req.query.queries));
  app.get(DB_ROUTES.db, { schema: SCHEMAS.world }, () => worldStore().world());
  app.get<Query>(DB_ROUTES.queries, { schema: SCHEMAS.worlds }, (req) =>
    worldStore().worlds(queries(req)),
  );
  app.get(DB_ROUTES.fortunes, (_req, reply) =>
    withValue(worldStore().fortunes(), (rows) =>
      reply.type(FORTUNES_CONTENT_TYPE).send(fortunesHtml(rows)),
    ),
  );
  app.get<Query>(DB_ROUTES.updates, { schema: SCHEMAS.worlds }, (req) =>
    worldStore().updated(queries(req)),
  );
}

/** The first failing field of a user update, in the contract's words. */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  const field =
    (first?.params as { missingProperty?: string } | undefined)?.missingProperty ??
    first?.instancePath.split("/")[1];
  return field ? invalidFieldError(field) : ERRORS.notObject;
}

/** Fastify's errors (its body parser, the schema) in the contract's words; else a 500. */
function onError(error: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  if (error.validation) return fail(reply, 400, validationMessage(error));
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      // The rest of the body is left unread: this connection cannot carry another request.
      reply.header("connection", "close");
      return fail(reply, 413, ERRORS.tooLarge);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return fail(reply, 415, ERRORS.notJson);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return fail(reply, 400, ERRORS.malformedJson);
  }
  if (isClientGone(error)) return fail(reply, 400, ERRORS.bodyUnreadable);
  // JSON.parse's own SyntaxError, and secure-json-parse's refusal of __proto__, carry a 400.
  if (error.statusCode === 400) return fail(reply, 400, ERRORS.malformedJson);
  console.error(error);
  return fail(reply, 500, ERRORS.internal);
}

/**
 * The app on a server of `server`'s kind (Fastify's server options), with the WebSocket routes
 * where `webSocket` says (the plain HTTP port only: the contract asks no more).
 */
function build(server: object, webSocket: boolean): FastifyInstance {
  // Fastify's types follow the server: over node:http2 the instance types its request and reply
  // with http2's; the handlers use only what both have.
  const app = Fastify({
    ...server,
    bodyLimit: MAX_BODY_BYTES,
    // Fastify's Ajv coerces types by default ("42" would pass as the integer 42); the contract
    // wants the JSON types as sent. Unknown properties are dropped (removeAdditional).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: true, allErrors: false } },
  });
  // Fastify reads text/plain bodies as strings; the contract refuses them (415) unread.
  app.removeContentTypeParser("text/plain");
  app.setErrorHandler(onError);
  app.setNotFoundHandler((_req, reply) => fail(reply, 404, ERRORS.notFound));
  routes(app);
  middlewareRoutes(app);
  if (webSocket) webSocketRoutes(app);
  return app;
}

/**
 * The app; given `https` (the run's certificate), an instance served over HTTPS by Fastify, with
 * HTTP/1.1 and HTTP/2 by ALPN on one port (its `http2` option and node:http2's allowHTTP1), or
 * HTTP/1.1 only with `http2` false (where the contract says the app cannot serve HTTP/2).
 */
export function createApp(https?: TlsPem, http2 = true): FastifyInstance {
  if (!https) {
    // Plain HTTP, the one with the WebSocket routes: node:http's createServer option (Node
    // 24.9; Bun and Deno honour it) sends only their upgrades to the plugin's 'upgrade'
    // listener, which routes every upgrade it gets through Fastify. Any other request that
    // asks to upgrade (h2c, say) is served as a request, as without the listener.
    return build({ http: { shouldUpgradeCallback } }, true);
  }
  const pem = { cert: https.cert, key: https.key };
  return build(http2 ? { http2, https: { ...pem, allowHTTP1: true } } : { https: pem }, false);
}

/**
 * The app over cleartext HTTP/2 with prior knowledge (the h2c scenario): Fastify's `http2`
 * option without `https`, node:http2's cleartext server, which speaks HTTP/2 only.
 */
export function createH2cApp(): FastifyInstance {
  return build({ http2: true }, false);
}

/**
 * Serves `app` as the registry's `name`, in one process or BENCH_WORKERS of them: node:cluster's
 * primary hands out the connections on Node (reusePort false); on Bun and Deno every worker
 * listens with reusePort on its own socket.
 */
export function serveApp(name: string, app: FastifyInstance): void {
  const { port } = getApp(name);
  // HTTP/2 unless the contract says this app cannot serve it (Fastify on Deno: spec/http2.ts).
  const h2 = H2_UNSUPPORTED[name as AppName] === undefined;
  const h2c = H2C_UNSUPPORTED[name as AppName] === undefined;
  const listen =
    (instance: FastifyInstance, at: number, host: string, reusePort: boolean) =>
    (done: () => void) => {
      // Fastify hands these to node:http's listen(); its type leaves reusePort out.
      const options = { port: at, host, reusePort };
      instance.listen(options, (error) => {
        if (error) throw error;
        done();
      });
    };
  // Given the run's certificate, HTTPS too: Fastify's `https` option, which takes an instance
  // of its own (the option is the server's, fixed when the instance is made); asked for h2c,
  // cleartext HTTP/2 on a port and instance of its own.
  serveWorkers(name, ({ reusePort, host }, listening) =>
    listenPlainAndTls(
      name,
      host,
      port,
      listening,
      (at, tls, done) => listen(tls ? createApp(tls, h2) : app, at, host, reusePort)(done),
      h2c ? (at, done) => listen(createH2cApp(), at, host, reusePort)(done) : undefined,
    ),
  );
}
