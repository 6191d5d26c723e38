// Deno.serve's handler gets a second argument, the connection's info (lib.deno.d.ts:
// ServeHandlerInfo), which hono/deno's getConnInfo reads for the rate limiter's key. The
// project's packages/contract/src/deno.d.ts declares the handler with the request only; this
// adds Deno 2.9's full signature for this app.

declare namespace Deno {
  interface ServeHandlerInfo {
    readonly remoteAddr: NetAddr;
    readonly completed: Promise<void>;
  }
  function serve(
    options: ServeOptions,
    handler: (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>,
  ): HttpServer;
}
