// Bun.serve with no framework: the baseline that bun-hono and bun-elysia are measured against.
// Routing uses Bun's built-in `routes` table, as Bun's own documentation writes a server.

import {
  apiPayload,
  buildItems,
  ERRORS,
  errorBody,
  GREETING,
  invalidFieldError,
  isJsonContentType,
  jsonDocumentError,
  parseItemCount,
  parseUserFields,
  parseUserId,
  ROUTES,
  readBodyText,
  selectUserFields,
  TOO_LARGE,
  unknownFieldError,
  updatedUser,
  userById,
  validateUserUpdate,
} from "@bench/contract";
import type { BunRequest } from "bun";

const fail = (status: number, message: string, headers?: Record<string, string>) =>
  Response.json(errorBody(message), { status, ...(headers ? { headers } : {}) });

/** The parsed JSON body, or the refusal to send: media type, then size, then syntax. */
async function readJson(request: Request): Promise<{ value: unknown } | { refusal: Response }> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return { refusal: fail(415, ERRORS.notJson) };
  }
  const text = await readBodyText(request);
  // The rest of the body is left unread: this connection cannot carry another request.
  if (text === TOO_LARGE) return { refusal: fail(413, ERRORS.tooLarge, { connection: "close" }) };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { refusal: fail(400, ERRORS.malformedJson) };
  }
}

async function echo(request: Request): Promise<Response> {
  const read = await readJson(request);
  if ("refusal" in read) return read.refusal;
  const refused = jsonDocumentError(read.value);
  return refused ? fail(400, refused) : Response.json(read.value);
}

function getUser(request: BunRequest<typeof ROUTES.user>): Response {
  const id = parseUserId(request.params.id);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  const selected = parseUserFields(new URL(request.url).searchParams.get("fields"));
  if ("unknown" in selected) return fail(400, unknownFieldError(selected.unknown));
  return Response.json(selectUserFields(userById(id), selected.fields));
}

async function updateUser(request: BunRequest<typeof ROUTES.user>): Promise<Response> {
  const read = await readJson(request);
  if ("refusal" in read) return read.refusal;
  const checked = validateUserUpdate(read.value);
  if ("error" in checked) return fail(400, checked.error);
  const id = parseUserId(request.params.id);
  if (id === undefined) return fail(400, ERRORS.badUserId);
  if (checked.update.id !== id) return fail(400, invalidFieldError("id"));
  return Response.json(updatedUser(checked.update));
}

function items(request: Request): Response {
  const count = parseItemCount(new URL(request.url).searchParams.get("count"));
  return count === undefined ? fail(400, ERRORS.badCount) : Response.json(buildItems(count));
}

/** Everything Bun.serve needs except where to listen. */
export const serveOptions = {
  routes: {
    [ROUTES.root]: { GET: () => new Response(GREETING) },
    [ROUTES.api]: { GET: () => Response.json(apiPayload("bare")) },
    [ROUTES.echo]: { POST: echo },
    [ROUTES.user]: { GET: getUser, POST: updateUser },
    [ROUTES.items]: { GET: items },
  },
  // Unmatched paths, and known paths with another method, fall through to here.
  fetch: () => fail(404, ERRORS.notFound),
  error(error: Error) {
    console.error(error);
    return fail(500, ERRORS.internal);
  },
};
