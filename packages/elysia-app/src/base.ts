// The Elysia instance every app of this package starts from: the main app, and the apps that
// answer the CORS routes (src/middleware.ts), so all answer errors the same way.

import { ERRORS, errorBody, invalidFieldError } from "@bench/contract";
import { Elysia, type ElysiaConfig, ElysiaCustomStatusResponse, status } from "elysia";

/**
 * `standardHostname: false`: Elysia (1.4) finds the path by searching for "/" from the 11th
 * character of the URL, which assumes a host of at least 4 characters ("http://a.bc"); with
 * `Host: api` (an upstream's name behind nginx or docker-compose) every route answered 404 on
 * the web-standard and Node adapters. The documented option searches from the 7th instead.
 * The CORS routes' apps see the same URLs, so they are built the same way.
 */
export function baseApp(config: ElysiaConfig<""> = {}) {
  return new Elysia({ ...config, handler: { standardHostname: false, ...config.handler } }).onError(
    ({ code, error }) => {
      // Elysia answers an unmatched method with NOT_FOUND too, which is what the contract asks.
      if (code === "NOT_FOUND") return status(404, errorBody(ERRORS.notFound));
      // A refusal thrown by a route's parser arrives wrapped as the parse error's cause.
      if (code === "PARSE" && error.cause instanceof ElysiaCustomStatusResponse) {
        return error.cause;
      }
      if (code === "VALIDATION") {
        // The first failing field, in schema order, as the contract words it.
        const field = error.valueError?.path.split("/")[1] ?? "body";
        return status(400, errorBody(invalidFieldError(field)));
      }
      console.error(error);
      return status(500, errorBody(ERRORS.internal));
    },
  );
}
