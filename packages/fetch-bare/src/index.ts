// The no-framework handlers on the Fetch API's Request and Response, written once and routed by
// each runtime's own server: bun-bare through Bun.serve's routes table, deno-bare through
// Deno.serve's one handler. A difference between the two baselines is then the runtime's, not
// the code's, as with packages/hono-app and packages/elysia-app. (node-bare speaks node:http.)

import {
  apiPayload,
  type BodyRefusal,
  buildItems,
  ERRORS,
  errorBody,
  FORTUNES_CONTENT_TYPE,
  fortunesHtml,
  GREETING,
  invalidFieldError,
  jsonDocumentError,
  parseByteCount,
  parseEventCount,
  parseItemCount,
  parseQueries,
  parseUserFields,
  parseUserId,
  readJsonBody,
  SSE_CONTENT_TYPE,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
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

export const fail = (status: number, message: string, headers?: Record<string, string>) =>
  Response.json(errorBody(message), { status, ...(headers ? { headers } : {}) });

const refuse = (refusal: BodyRefusal) =>
  fail(
    refusal.status,
    refusal.message,
    refusal.closeConnection ? { connection: "close" } : undefined,
  );

export const greeting = () => new Response(GREETING);

export const api = () => Response.json(apiPayload("bare"));

export async function echo(request: Request): Promise<Response> {
  const read = await readJsonBody(request);
  if ("refusal" in read) return refuse(read.refusal);
  const refused = jsonDocumentError(read.value);
  return refused ? fail(400, refused) : Response.json(read.value);
}

/** The query string's parameters: the path is the router's business, a whole URL is not needed. */
export function query(request: Request): URLSearchParams {
  const url = request.url;
  const q = url.indexOf("?");
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
}

export function getUser(request: Request, rawId: string): Response {
  const id = parseUserId(rawId);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  const selected = parseUserFields(query(request).get("fields"));
  if ("unknown" in selected) return fail(400, unknownFieldError(selected.unknown));
  return Response.json(selectUserFields(userById(id), selected.fields));
}

export async function updateUser(request: Request, rawId: string): Promise<Response> {
  const read = await readJsonBody(request);
  if ("refusal" in read) return refuse(read.refusal);
  const checked = validateUserUpdate(read.value);
  if ("error" in checked) return fail(400, checked.error);
  const id = parseUserId(rawId);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  if (checked.update.id !== id) return fail(400, invalidFieldError("id"));
  return Response.json(updatedUser(checked.update));
}

export function items(request: Request): Response {
  const count = parseItemCount(query(request).get("count"));
  return count === undefined ? fail(400, ERRORS.badCount) : Response.json(buildItems(count));
}

/** A bug in a handler costs that request a JSON 500, not the process. */
export function internalError(error: unknown): Response {
  console.error(error);
  return fail(500, ERRORS.internal);
}

/**
 * The database routes over the contract's store: the runtime's own SQLite, prepared statements,
 * answered at once; or PostgreSQL, answered when the rows come (a rejection reaches the server's
 * error handler: a 500).
 */
export const world = () => withValue(worldStore().world(), (row) => Response.json(row));

export const worlds = (request: Request) =>
  withValue(worldStore().worlds(parseQueries(query(request).get("queries"))), (rows) =>
    Response.json(rows),
  );

export const fortunes = () =>
  withValue(
    worldStore().fortunes(),
    (rows) =>
      new Response(fortunesHtml(rows), { headers: { "content-type": FORTUNES_CONTENT_TYPE } }),
  );

export const updates = (request: Request) =>
  withValue(worldStore().updated(parseQueries(query(request).get("queries"))), (rows) =>
    Response.json(rows),
  );

/** A body that makes each piece when the reader asks for it (pull), so nothing is built whole. */
function pulled<T>(pieces: Iterator<T>, encode: (piece: T) => Uint8Array): ReadableStream {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encode(next.value));
    },
  });
}

const encoder = new TextEncoder();

/** GET /sse?events=N: each event one chunk, `data: <i>` and a blank line. */
export function sse(request: Request): Response {
  const events = parseEventCount(query(request).get("events"));
  if (events === undefined) return fail(400, STREAM_ERRORS.badEvents);
  return new Response(
    pulled(sseEvents(events), (event) => encoder.encode(event)),
    { headers: { "content-type": SSE_CONTENT_TYPE, "cache-control": "no-cache" } },
  );
}

/** GET /stream?bytes=N: the contract's 16 KiB chunk, again and again. */
export function stream(request: Request): Response {
  const bytes = parseByteCount(query(request).get("bytes"));
  if (bytes === undefined) return fail(400, STREAM_ERRORS.badBytes);
  return new Response(
    pulled(streamChunks(bytes), (chunk) => chunk),
    { headers: { "content-type": STREAM_CONTENT_TYPE } },
  );
}
