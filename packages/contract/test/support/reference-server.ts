// A server that obeys the contract, for tests: bun-bare's own routes (the baseline app, which
// the end-to-end tests verify), answering GET /api/test as any framework's app would. The
// verifier's tests break one route at a time; the harness's tests run it as stand-in apps.

import { serveOptions } from "../../../../apps/bun-bare/src/app.ts";
import { apiPayload, type Framework, ROUTES } from "../../src/index.ts";

export type Handler = (req: Request) => Promise<Response> | Response;

/** Routes to replace, as Bun.serve's table: { "/": { GET: () => new Response("...") } }. */
export type Overrides = Record<string, Record<string, Handler>>;

export function referenceServe(framework: Framework, port: number, overrides: Overrides = {}) {
  return Bun.serve({
    ...serveOptions,
    port,
    hostname: "127.0.0.1",
    routes: {
      ...serveOptions.routes,
      [ROUTES.api]: { GET: () => Response.json(apiPayload(framework)) },
      ...overrides,
    },
  });
}
