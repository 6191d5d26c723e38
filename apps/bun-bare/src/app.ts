// Bun.serve with no framework: the baseline that bun-hono and bun-elysia are measured against.
// Routing uses Bun's built-in `routes` table, as Bun's own documentation writes a server.

import {
  apiPayload,
  ERRORS,
  errorBody,
  GREETING,
  isJsonContentType,
  jsonDocumentError,
  ROUTES,
  readBodyText,
  TOO_LARGE,
} from "@bench/contract";

const notFound = () => Response.json(errorBody(ERRORS.notFound), { status: 404 });

async function echo(request: Request): Promise<Response> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return Response.json(errorBody(ERRORS.notJson), { status: 415 });
  }
  const text = await readBodyText(request);
  if (text === TOO_LARGE) {
    // The rest of the body is left unread: this connection cannot carry another request.
    return Response.json(errorBody(ERRORS.tooLarge), {
      status: 413,
      headers: { connection: "close" },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return Response.json(errorBody(ERRORS.malformedJson), { status: 400 });
  }
  const refused = jsonDocumentError(value);
  if (refused) return Response.json(errorBody(refused), { status: 400 });
  return Response.json(value);
}

/** Everything Bun.serve needs except where to listen. */
export const serveOptions = {
  routes: {
    [ROUTES.root]: { GET: () => new Response(GREETING) },
    [ROUTES.api]: { GET: () => Response.json(apiPayload("bare")) },
    [ROUTES.echo]: { POST: echo },
  },
  // Unmatched paths, and known paths with another method, fall through to here.
  fetch: notFound,
  error(error: Error) {
    console.error(error);
    return Response.json(errorBody(ERRORS.internal), { status: 500 });
  },
};
