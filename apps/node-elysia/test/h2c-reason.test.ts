// Why node-elysia serves no cleartext HTTP/2 (the contract's H2C_UNSUPPORTED): srvx, which
// @elysiajs/node serves with, builds node:http2's server only with TLS, and its serve() throws
// when asked for HTTP/2 without a certificate. When this test fails, srvx serves h2c: give
// node-elysia an h2c port as node-hono has one and drop its entry.

import { expect, test } from "bun:test";
import { createRequire } from "node:module";
import { H2C_UNSUPPORTED } from "@bench/contract";

// srvx as @elysiajs/node resolves it (a dependency of that package, not of this app).
const fromAdapter = createRequire(createRequire(import.meta.url).resolve("@elysiajs/node"));
type Serve = (options: {
  fetch: (request: Request) => Response;
  port: number;
  hostname: string;
  node: { http2: boolean };
  manual: boolean;
}) => unknown;
const { serve } = (await import(fromAdapter.resolve("srvx/node"))) as { serve: Serve };

test("srvx's serve() with node:http2 and no certificate throws the contract's words", () => {
  const start = () =>
    serve({
      fetch: () => new Response("h2c"),
      port: 0,
      hostname: "127.0.0.1",
      node: { http2: true },
      manual: true,
    });
  expect(start).toThrow("node.http2 option requires tls certificate!");
  expect(H2C_UNSUPPORTED["node-elysia"]).toContain('"node.http2 option requires tls certificate!"');
});
