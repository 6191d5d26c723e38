// A web-standard `fetch` on the runtime's own server, as Hono's and Elysia's guides serve it:
// Bun.serve, Deno.serve, or @hono/node-server on Node.

import { detectRuntime } from "@bench/contract";

export const runtime = detectRuntime().name;

export async function serveFetch(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  hostname = "127.0.0.1",
): Promise<void> {
  if (runtime === "bun") Bun.serve({ port, hostname, fetch });
  else if (runtime === "deno") Deno.serve({ port, hostname }, fetch);
  else (await import("@hono/node-server")).serve({ fetch, port, hostname });
}
