// Why node-elysia and deno-elysia serve no WebSocket (the contract's WS_UNSUPPORTED): each
// reason shown true today with Elysia's documented echo. When a test here fails, the reason is
// gone: serve the routes with .ws() on that runtime and drop its entry from WS_UNSUPPORTED.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { WS_UNSUPPORTED } from "@bench/contract/ws";

const ROOT = join(import.meta.dir, "../../..");
const NODE = join(ROOT, "apps/node-elysia/node_modules/.bin/node");
const DENO = join(ROOT, "apps/deno-elysia/node_modules/.bin/deno");
const fixture = (name: string) => join(import.meta.dir, "fixtures", name);

/** The fixture's last line, as JSON. */
function run(command: string[]): Record<string, unknown> {
  const done = spawnSync(command[0] as string, command.slice(1), {
    encoding: "utf8",
    timeout: 30_000,
  });
  const line = done.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`no result from ${command.join(" ")}: ${done.stdout}${done.stderr}`);
  }
}

test("through @elysiajs/node, a binary message comes back as text", () => {
  expect(WS_UNSUPPORTED["node-elysia"]).toContain("as text");
  const result = run([NODE, fixture("ws-on-node.mjs"), "38041"]);
  // Sent: binary 255 0 1. Back: a text frame, the 255 replaced (it is no UTF-8).
  expect(result.binary).toBe(false);
  expect(result.bytes).toEqual([0xef, 0xbf, 0xbd, 0, 1]);
}, 30_000);

test("under Deno, Elysia's web-standard adapter has no WebSocket: the opening request gets 404", () => {
  expect(WS_UNSUPPORTED["deno-elysia"]).toContain("web-standard adapter");
  const result = run([DENO, "run", "--allow-all", fixture("ws-on-deno.ts")]);
  expect(result).toEqual({ adapter: "web-standard", ws: "undefined", status: 404 });
}, 30_000);
