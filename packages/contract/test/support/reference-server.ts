// A minimal server that obeys the contract, for tests: the verifier's tests break one route at
// a time, and the harness's tests run it as stand-in apps that misbehave on purpose.

import {
  apiPayload,
  ERRORS,
  errorBody,
  type Framework,
  GREETING,
  isJsonContentType,
  jsonDocumentError,
  ROUTES,
  readBodyText,
  TOO_LARGE,
} from "../../src/index.ts";

export type Handler = (req: Request) => Promise<Response> | Response;

const json = (value: unknown, status = 200) => Response.json(value, { status });

/** A fetch handler for `framework`'s app; `overrides` replace routes ("GET /", ...). */
export function referenceHandler(
  framework: Framework,
  overrides: Record<string, Handler> = {},
): (req: Request) => Promise<Response> | Response {
  const handlers: Record<string, Handler> = {
    [`GET ${ROUTES.root}`]: () => new Response(GREETING),
    [`GET ${ROUTES.api}`]: () => json(apiPayload(framework)),
    [`POST ${ROUTES.echo}`]: async (req) => {
      if (!isJsonContentType(req.headers.get("content-type"))) {
        return json(errorBody(ERRORS.notJson), 415);
      }
      const text = await readBodyText(req);
      if (text === TOO_LARGE) return json(errorBody(ERRORS.tooLarge), 413);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return json(errorBody(ERRORS.malformedJson), 400);
      }
      const refused = jsonDocumentError(value);
      return refused ? json(errorBody(refused), 400) : json(value);
    },
    ...overrides,
  };
  return (req) => {
    const handler = handlers[`${req.method} ${new URL(req.url).pathname}`];
    return handler ? handler(req) : json(errorBody(ERRORS.notFound), 404);
  };
}
