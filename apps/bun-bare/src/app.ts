// Bun.serve with no framework: the baseline that bun-hono and bun-elysia are measured against.
// Routing uses Bun's built-in `routes` table, as Bun's own documentation writes a server.

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
import type { BunRequest } from "bun";

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

/** The query string's parameters: Bun's routes give the path's, and a whole URL is not needed. */
function query(request: Request): URLSearchParams {
  const url = request.url;
  const q = url.indexOf("?");
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
}

function getUser(request: BunRequest<typeof ROUTES.user>): Response {
  const id = parseUserId(request.params.id);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  const selected = parseUserFields(query(request).get("fields"));
  if ("unknown" in selected) return fail(400, unknownFieldError(selected.unknown));
  return Response.json(selectUserFields(userById(id), selected.fields));
}

async function updateUser(request: BunRequest<typeof ROUTES.user>): Promise<Response> {
  const read = await readJsonBody(request);
  if ("refusal" in read) return refuse(read.refusal);
  const checked = validateUserUpdate(read.value);
  if ("error" in checked) return fail(400, checked.error);
  const id = parseUserId(request.params.id);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  if (checked.update.id !== id) return fail(400, invalidFieldError("id"));
  return Response.json(updatedUser(checked.update));
}

function items(request: Request): Response {
  const count = parseItemCount(query(request).get("count"));
  return count === undefined ? fail(400, ERRORS.badCount) : Response.json(buildItems(count));
}

const greeting = () => new Response(GREETING);
const api = () => Response.json(apiPayload("bare"));

/** Everything Bun.serve needs except where to listen. */
export const serveOptions = {
  // HEAD is GET without the body (RFC 9110). Bun 1.4 answers HEAD from a GET route by itself;
  // Bun 1.2 and 1.3 answer it 404 unless the route names HEAD, so it does (./benchmark.sh
  // --bun 1.3 runs this app on them). Bun sends no body for a HEAD request either way.
  routes: {
    [ROUTES.root]: { GET: greeting, HEAD: greeting },
    [ROUTES.api]: { GET: api, HEAD: api },
    [ROUTES.echo]: { POST: echo },
    [ROUTES.user]: { GET: getUser, HEAD: getUser, POST: updateUser },
    [ROUTES.items]: { GET: items, HEAD: items },
  },
  // Unmatched paths, and known paths with another method, fall through to here.
  fetch: () => fail(404, ERRORS.notFound),
  error(error: Error) {
    console.error(error);
    return fail(500, ERRORS.internal);
  },
};
