// A server that obeys the contract, for tests: bun-bare's own routes (the baseline app, which
// the end-to-end tests verify), answering GET /api/test as any framework's app would, and so
// the two middleware routes that answer its payload. The verifier's tests break one route at a
// time; the harness's tests run it as stand-in apps.

import type { Server } from "bun";
import { serveOptions } from "../../../../apps/bun-bare/src/app.ts";
import type { SocketData } from "../../../../apps/bun-bare/src/websocket.ts";
import { apiPayload, type Framework, MIDDLEWARE_ROUTES, ROUTES } from "../../src/index.ts";

export type Handler = (req: Request, server: Server<SocketData>) => Promise<Response> | Response;

/** Routes to replace, as Bun.serve's table: { "/": { GET: () => new Response("...") } }. */
export type Overrides = Record<string, Record<string, Handler>>;

/** bun-bare's handler of `path`, with a 200's payload answered as `framework`'s app would. */
function asFramework(path: string, framework: Framework): Handler {
  const bare = (serveOptions.routes as unknown as Overrides)[path]?.GET as Handler;
  return async (request, server) => {
    const answer = await bare(request, server);
    if (answer.status !== 200) return answer;
    const headers = new Headers(answer.headers);
    headers.delete("content-length");
    return Response.json(apiPayload(framework), { headers });
  };
}

export function referenceServe(framework: Framework, port: number, overrides: Overrides = {}) {
  const publicRoute = (serveOptions.routes as unknown as Overrides)[MIDDLEWARE_ROUTES.public];
  return Bun.serve({
    ...serveOptions,
    port,
    hostname: "127.0.0.1",
    routes: {
      ...serveOptions.routes,
      [ROUTES.api]: { GET: () => Response.json(apiPayload(framework)) },
      [MIDDLEWARE_ROUTES.public]: {
        ...publicRoute,
        GET: asFramework(MIDDLEWARE_ROUTES.public, framework),
      },
      [MIDDLEWARE_ROUTES.limited]: { GET: asFramework(MIDDLEWARE_ROUTES.limited, framework) },
      ...overrides,
    },
  });
}
