// Deno.serve with no framework: the baseline that deno-hono and deno-elysia are measured against.
// Deno.serve hands every request to one handler (Deno's docs route by hand or with URLPattern);
// this one routes by comparing the path, as node-bare does, which is the cheaper of the two.

import {
  apiPayload,
  type BodyRefusal,
  buildItems,
  ERRORS,
  errorBody,
  GREETING,
  invalidFieldError,
  jsonDocumentError,
  parseItemCount,
  parseUserFields,
  parseUserId,
  ROUTES,
  readJsonBody,
  selectUserFields,
  unknownFieldError,
  updatedUser,
  userById,
  validateUserUpdate,
} from "@bench/contract";

const fail = (status: number, message: string, headers?: Record<string, string>) =>
  Response.json(errorBody(message), { status, ...(headers ? { headers } : {}) });

const refuse = (refusal: BodyRefusal) =>
  fail(
    refusal.status,
    refusal.message,
    refusal.closeConnection ? { connection: "close" } : undefined,
  );

async function echo(request: Request): Promise<Response> {
  const read = await readJsonBody(request);
  if ("refusal" in read) return refuse(read.refusal);
  const refused = jsonDocumentError(read.value);
  return refused ? fail(400, refused) : Response.json(read.value);
}

function getUser(rawId: string, query: URLSearchParams): Response {
  const id = parseUserId(rawId);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  const selected = parseUserFields(query.get("fields"));
  if ("unknown" in selected) return fail(400, unknownFieldError(selected.unknown));
  return Response.json(selectUserFields(userById(id), selected.fields));
}

async function updateUser(request: Request, rawId: string): Promise<Response> {
  const read = await readJsonBody(request);
  if ("refusal" in read) return refuse(read.refusal);
  const checked = validateUserUpdate(read.value);
  if ("error" in checked) return fail(400, checked.error);
  const id = parseUserId(rawId);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  if (checked.update.id !== id) return fail(400, invalidFieldError("id"));
  return Response.json(updatedUser(checked.update));
}

function items(query: URLSearchParams): Response {
  const count = parseItemCount(query.get("count"));
  return count === undefined ? fail(400, ERRORS.badCount) : Response.json(buildItems(count));
}

const USERS_PREFIX = ROUTES.user.slice(0, ROUTES.user.indexOf(":id"));

/** Every request: Deno's request.url is absolute, so the path starts at the first "/" after "//". */
export function handler(request: Request): Response | Promise<Response> {
  const url = request.url;
  const q = url.indexOf("?");
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2), q === -1 ? undefined : q);
  const query = () => new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
  // "/api/users/<id>" with exactly one segment after the prefix.
  const userId =
    path.startsWith(USERS_PREFIX) && !path.includes("/", USERS_PREFIX.length)
      ? path.slice(USERS_PREFIX.length)
      : undefined;
  // HEAD is GET without the body (RFC 9110): Deno.serve drops the body of a HEAD response.
  const method = request.method;
  const read = method === "GET" || method === "HEAD";
  if (path === ROUTES.root && read) return new Response(GREETING);
  if (path === ROUTES.api && read) return Response.json(apiPayload("bare"));
  if (path === ROUTES.echo && method === "POST") return echo(request);
  if (userId && read) return getUser(userId, query());
  if (userId && method === "POST") return updateUser(request, userId);
  if (path === ROUTES.items && read) return items(query());
  return fail(404, ERRORS.notFound);
}

/** A bug in a handler costs that request a 500, not the process. */
export function onError(error: unknown): Response {
  console.error(error);
  return fail(500, ERRORS.internal);
}
