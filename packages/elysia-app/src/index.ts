// The Elysia app, written once and served by both runtimes (apps/bun-elysia on Bun's native
// server, apps/node-elysia through @elysiajs/node), so a difference between those two results
// is the runtime's and its adapter's, not the code's.

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
import { type Context, Elysia, type ElysiaConfig, status } from "elysia";

/**
 * Elysia's own JSON parser accepts text/plain bodies and has no size limit, so the echo route
 * skips it (`parse: "none"`) and reads the raw request: media type first, then at most the
 * contract's limit, then JSON.
 */
async function echo(request: Request, set: Context["set"]) {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return status(415, errorBody(ERRORS.notJson));
  }
  const text = await readBodyText(request);
  if (text === TOO_LARGE) {
    // The rest of the body is left unread: this connection cannot carry another request.
    set.headers.connection = "close";
    return status(413, errorBody(ERRORS.tooLarge));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return status(400, errorBody(ERRORS.malformedJson));
  }
  const refused = jsonDocumentError(value);
  if (refused) return status(400, errorBody(refused));
  return value;
}

export function createApp(config: ElysiaConfig<""> = {}) {
  return new Elysia(config)
    .onError(({ code, error }) => {
      // Elysia answers an unmatched method with NOT_FOUND too, which is what the contract asks.
      if (code === "NOT_FOUND") return status(404, errorBody(ERRORS.notFound));
      console.error(error);
      return status(500, errorBody(ERRORS.internal));
    })
    .get(ROUTES.root, () => GREETING)
    .get(ROUTES.api, () => apiPayload("elysia"))
    .post(ROUTES.echo, ({ request, set }) => echo(request, set), { parse: "none" });
}
