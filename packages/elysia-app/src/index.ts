// The Elysia app, written once and served by all three runtimes (apps/bun-elysia on Bun's native
// server, apps/node-elysia through @elysiajs/node, apps/deno-elysia on Deno.serve through
// app.fetch), so a difference between their results is the runtime's and its adapter's, not the
// code's.

import {
  apiPayload,
  buildItems,
  DB_ROUTES,
  ERRORS,
  errorBody,
  FORTUNES_CONTENT_TYPE,
  fortunesHtml,
  GREETING,
  invalidFieldError,
  jsonDocumentError,
  NAME_MAX,
  parseByteCount,
  parseEventCount,
  parseItemCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  ROUTES,
  readJsonBody,
  SSE_CONTENT_TYPE,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  selectUserFields,
  sseEvents,
  streamChunks,
  unknownFieldError,
  updatedUser,
  userById,
  withValue,
  worldStore,
} from "@bench/contract";
import { type Context, type ElysiaConfig, status, t } from "elysia";
import { baseApp } from "./base.ts";
import { type ClientAddress, middlewareRoutes } from "./middleware.ts";

export { WEBSOCKET_LIMITS, webSocketRoutes, webSocketUnsupported } from "./websocket.ts";

/**
 * Elysia's own JSON parser accepts text/plain bodies and has no size limit, so JSON routes read
 * the raw request with the contract's reader (media type, then at most the limit, then JSON)
 * and turn its refusal into Elysia's status response.
 */
async function readJson(request: Request, set: Context["set"]) {
  const read = await readJsonBody(request);
  if (!("refusal" in read)) return read;
  const { status: code, message, closeConnection } = read.refusal;
  if (closeConnection) set.headers.connection = "close";
  return { refusal: status(code, errorBody(message)) };
}

async function echo(request: Request, set: Context["set"]) {
  const read = await readJson(request, set);
  if ("refusal" in read) return read.refusal;
  const refused = jsonDocumentError(read.value);
  return refused ? status(400, errorBody(refused)) : read.value;
}

/**
 * The validate route's parser: the contract's reader, and an object for the schema to check.
 * Exported for packages/fast-path, which measures what this parser costs on its own.
 */
export async function parseJsonObject({ request, set }: Pick<Context, "request" | "set">) {
  const read = await readJson(request, set);
  if ("refusal" in read) throw read.refusal;
  // Elysia turns a non-object body into {} before validating it: refuse it here.
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw status(400, errorBody(ERRORS.notObject));
  }
  return value;
}

/** Elysia's schema for a user update: the contract's rules in TypeBox (`t`). */
export const userUpdate = t.Object({
  // Elysia's t.Integer() also accepts numeric strings ("42"); a JSON number that is whole is
  // what the contract asks for.
  id: t.Number({ multipleOf: 1 }),
  name: t.String({ minLength: 1, maxLength: NAME_MAX }),
  surname: t.String({ minLength: 1, maxLength: NAME_MAX }),
  lastUpdate: t.String({ format: "date-time" }),
});

const encoder = new TextEncoder();

export interface AppOptions {
  /**
   * The rate limiter's key. By default the app's own server's `requestIP()`, which Bun's server
   * has; node-elysia and deno-elysia pass their runtime's.
   */
  clientAddress?: ClientAddress;
}

export function createApp(config: ElysiaConfig<""> = {}, options: AppOptions = {}) {
  const app = baseApp(config)
    .get(ROUTES.root, () => GREETING)
    .get(ROUTES.api, () => apiPayload("elysia"))
    .post(ROUTES.echo, ({ request, set }) => echo(request, set), { parse: "none" })
    // Path ids follow the contract's own parser, so every app refuses exactly the same ids.
    .get(ROUTES.user, ({ params, query }) => {
      const id = parseUserId(params.id);
      if (id === undefined) return status(400, errorBody(ERRORS.badUserId));
      const selected = parseUserFields(query.fields);
      if ("unknown" in selected) {
        return status(400, errorBody(unknownFieldError(selected.unknown)));
      }
      return selectUserFields(userById(id), selected.fields);
    })
    .post(
      ROUTES.user,
      ({ params, body }) => {
        const id = parseUserId(params.id);
        if (id === undefined) return status(400, errorBody(ERRORS.badUserId));
        if (body.id !== id) return status(400, errorBody(invalidFieldError("id")));
        return updatedUser(body);
      },
      {
        body: userUpdate,
        parse: parseJsonObject,
      },
    )
    .get(ROUTES.items, ({ query }) => {
      const count = parseItemCount(query.count);
      return count === undefined ? status(400, errorBody(ERRORS.badCount)) : buildItems(count);
    })
    // The database routes over the contract's store (the runtime's own SQLite, prepared
    // statements, or PostgreSQL: Elysia awaits a promise). The page is a Response: a string
    // with set.headers' content type went out as text/plain through @elysiajs/node 1.4.5
    // (node-elysia).
    .get(DB_ROUTES.db, () => worldStore().world())
    .get(DB_ROUTES.queries, ({ query }) => worldStore().worlds(parseQueries(query.queries)))
    .get(DB_ROUTES.fortunes, () =>
      withValue(
        worldStore().fortunes(),
        (rows) =>
          new Response(fortunesHtml(rows), {
            headers: { "content-type": FORTUNES_CONTENT_TYPE },
          }),
      ),
    )
    .get(DB_ROUTES.updates, ({ query }) => worldStore().updated(parseQueries(query.queries)))
    // The streamed routes as Elysia streams: a generator, each yield sent as it comes; a
    // refusal returned before the first yield is an ordinary answer. The events are yielded as
    // bytes under Elysia's text/event-stream, not through its sse() helper: Elysia 1.4.30
    // enqueues sse()'s strings into the web stream as they are, which Bun encodes but Deno
    // refuses (the answer breaks off empty: elysiajs/elysia#1845, open;
    // test/sse-on-deno.e2e.test.ts shows it), and one code serves all three runtimes.
    .get(STREAM_ROUTES.sse, function* ({ query, set }) {
      const events = parseEventCount(query.events);
      if (events === undefined) return status(400, errorBody(STREAM_ERRORS.badEvents));
      set.headers["content-type"] = SSE_CONTENT_TYPE;
      set.headers["cache-control"] = "no-cache";
      for (const event of sseEvents(events)) yield encoder.encode(event);
    })
    .get(STREAM_ROUTES.stream, function* ({ query, set }) {
      const bytes = parseByteCount(query.bytes);
      if (bytes === undefined) return status(400, errorBody(STREAM_ERRORS.badBytes));
      // Elysia calls a stream of objects JSON unless told otherwise.
      set.headers["content-type"] = STREAM_CONTENT_TYPE;
      yield* streamChunks(bytes);
    });
  const clientAddress =
    options.clientAddress ?? ((request: Request) => app.server?.requestIP(request)?.address);
  return app.use(middlewareRoutes(clientAddress));
}
