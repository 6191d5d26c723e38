// The Hono app, written once and served by both runtimes (apps/bun-hono, apps/node-hono), so a
// difference between those two results is the runtime's, not the code's.

import {
  apiPayload,
  ERRORS,
  errorBody,
  GREETING,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  ROUTES,
} from "@bench/contract";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { JSONValue } from "hono/utils/types";

const requireJson = createMiddleware(async (c, next) => {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return c.json(errorBody(ERRORS.notJson), 415);
  }
  await next();
});

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => {
    // The rest of the body is left unread, so this connection cannot carry another request:
    // say so, or a keep-alive client reuses it and gets a reset (seen with @hono/node-server).
    c.header("connection", "close");
    return c.json(errorBody(ERRORS.tooLarge), 413);
  },
});

export function createApp(): Hono {
  const app = new Hono();

  app.get(ROUTES.root, (c) => c.text(GREETING));

  app.get(ROUTES.api, (c) => c.json(apiPayload("hono")));

  app.post(ROUTES.echo, requireJson, limitBody, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(errorBody(ERRORS.malformedJson), 400);
    }
    const refused = jsonDocumentError(body);
    if (refused) return c.json(errorBody(refused), 400);
    return c.json(body as JSONValue);
  });

  // Hono answers an unmatched method with 404 too, which is what the contract asks.
  app.notFound((c) => c.json(errorBody(ERRORS.notFound), 404));

  app.onError((error, c) => {
    console.error(error);
    return c.json(errorBody(ERRORS.internal), 500);
  });

  return app;
}
