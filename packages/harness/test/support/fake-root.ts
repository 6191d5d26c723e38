// A throw-away repository root holding one fake app, for testing what the harness does with
// apps that misbehave (break the contract, ignore SIGTERM, crash) without touching real apps.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CONTRACT = join(import.meta.dir, "../../../contract/src/index.ts");

/**
 * A root whose apps/<name> starts `server` (TypeScript run by Bun) through `bun run start`.
 * The server source can import the contract as CONTRACT.
 */
export function fakeRoot(name: string, server: string): string {
  const root = mkdtempSync(join(tmpdir(), "bench-fake-"));
  const dir = join(root, "apps", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, private: true, scripts: { start: "bun server.ts" } }),
  );
  writeFileSync(
    join(dir, "server.ts"),
    `import * as contract from ${JSON.stringify(CONTRACT)};\nconst CONTRACT = contract;\n${server}`,
  );
  return root;
}

/** A server that obeys the contract except that GET / answers the wrong text. */
export const WRONG_GREETING = `
const port = CONTRACT.getApp(process.env.FAKE_APP ?? "bun-bare").port;
Bun.serve({ port, hostname: "127.0.0.1", fetch: (req) =>
  new URL(req.url).pathname === "/" ? new Response("Goodbye") :
  Response.json(CONTRACT.errorBody(CONTRACT.ERRORS.notFound), { status: 404 }) });
`;
