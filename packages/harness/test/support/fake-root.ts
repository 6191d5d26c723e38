// Throw-away repository roots holding stand-in apps, for testing what the harness does with
// apps that misbehave (break the contract, ignore SIGTERM, crash under load) without touching
// the real ones. Each stand-in is started the real way: `bun run start` in apps/<name>.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const CONTRACT = join(import.meta.dir, "../../../contract/src/index.ts");
const REFERENCE = join(import.meta.dir, "../../../contract/test/support/reference-server.ts");

/**
 * A root whose apps/<name> runs the given server source through `bun run start`. The source
 * sees CONTRACT (the contract module), APP (the app's registry entry) and serve(overrides),
 * which serves the reference (conforming) routes on the app's port, some replaced. The root is
 * made by `temp` (the calling file's tempDirs(), which removes it after the file's tests).
 */
export function fakeRoot(apps: Record<string, string>, temp: (prefix: string) => string): string {
  const root = temp("bench-fake-");
  for (const [name, server] of Object.entries(apps)) {
    const dir = join(root, "apps", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name, private: true, scripts: { start: "bun server.ts" } }),
    );
    writeFileSync(
      join(dir, "server.ts"),
      [
        `import * as CONTRACT from ${JSON.stringify(CONTRACT)};`,
        `import { referenceServe, type Overrides } from ${JSON.stringify(REFERENCE)};`,
        `const APP = CONTRACT.getApp(${JSON.stringify(name)});`,
        "const serve = (overrides: Overrides = {}) => referenceServe(APP.framework, APP.port, overrides);",
        server,
      ].join("\n"),
    );
  }
  return root;
}

/** Obeys the contract. */
export const CONFORMING = "serve();";

/** Obeys the contract except that GET / answers the wrong text. */
export const WRONG_GREETING = `serve({ "/": { GET: () => new Response("Goodbye") } });`;

/** Obeys the contract, then exits (code 7) at its 3,000th GET /api/test: inside any trial. */
export const CRASHES_UNDER_LOAD = `
let requests = 0;
serve({
  "/api/test": {
    GET: () => {
      if (++requests > 3000) process.exit(7);
      return Response.json(CONTRACT.apiPayload(APP.framework));
    },
  },
});`;

/**
 * Obeys the contract (verify sends only a few requests), then answers every 50th GET /api/test
 * with a 500 once past its 3,000th: 2% failed requests in any trial, while the app stays up.
 */
export const ERRORS_UNDER_LOAD = `
let requests = 0;
serve({
  "/api/test": {
    GET: () =>
      ++requests > 3000 && requests % 50 === 0
        ? Response.json({ error: "Internal Server Error" }, { status: 500 })
        : Response.json(CONTRACT.apiPayload(APP.framework)),
  },
});`;

/** Obeys the contract, but only starts listening 400 ms after it was started. */
export const SLOW_START = "await Bun.sleep(400);\nserve();";

/**
 * Requests per second above which LATENCY_JUMPS answers late. Low enough for any machine (and its
 * load generator's own p99) to offer it with time to spare. The closed-loop trial the search
 * starts from is then held by the stand-in itself: bursts of about 200 requests (the window's
 * worth) between 50 ms pauses, at most about 4,300 req/s however fast the machine (4,289 read
 * here), so its lowest level (1/64 of that) stays below the jump and the search within its
 * trials. At 2,000 req/s the start, the lowest level and oha's own p99 at the jump all moved
 * with the machine's speed.
 */
export const JUMP_RATE = 400;

/**
 * Obeys the contract, but once more than JUMP_RATE GET /api/test arrived per second over the
 * last 500 ms of a trial, answers each 50 ms late: a capacity at any p99 budget below 50 ms of exactly
 * JUMP_RATE, for an open loop that offers a steady rate.
 */
export const LATENCY_JUMPS = `
const WINDOW_MS = 500;
let arrivals: number[] = [];
let head = 0;
serve({
  "/api/test": {
    GET: async () => {
      const now = performance.now();
      // A pause of 20 ms (none within a trial at 100 req/s or more) starts a new trial: what
      // the previous one sent must not count against this one.
      if (now - (arrivals.at(-1) ?? now) > 20) {
        arrivals = [];
        head = 0;
      }
      arrivals.push(now);
      while ((arrivals[head] ?? now) < now - WINDOW_MS) head++;
      if (head > 100_000) {
        arrivals = arrivals.slice(head);
        head = 0;
      }
      if ((arrivals.length - head) / (WINDOW_MS / 1000) > ${JUMP_RATE}) await Bun.sleep(50);
      return Response.json(CONTRACT.apiPayload(APP.framework));
    },
  },
});`;
