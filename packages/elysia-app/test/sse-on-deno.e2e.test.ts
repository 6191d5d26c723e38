// Why packages/elysia-app serves /sse as bytes and not through Elysia's sse() helper: under Deno
// the helper's events never arrive (Elysia enqueues them as strings, which Deno's streams refuse:
// elysiajs/elysia#1845). When this test fails, the helper works on Deno: serve /sse with it.
import { afterAll, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

const DENO = join(import.meta.dir, "../../../apps/deno-elysia/node_modules/.bin/deno");
let port = 0;
let child: ChildProcess | undefined;
// node_modules/.bin/deno starts the Deno binary beneath it: the whole process group is stopped
// (killing the first process alone left that binary running after every test run).
afterAll(() => {
  if (child?.pid !== undefined) process.kill(-child.pid, "SIGKILL");
});

function start(): Promise<void> {
  const fixture = join(import.meta.dir, "fixtures/sse-on-deno.ts");
  child = spawn(DENO, ["run", "--allow-all", fixture], {
    detached: true, // a process group of its own, stopped whole
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    child?.stdout?.on("data", (data: Buffer) => {
      const listening = /listening (\d+)/.exec(data.toString());
      if (!listening) return;
      port = Number(listening[1]);
      resolve();
    });
    child?.on("exit", (code) => reject(new Error(`deno exited (${code}) before listening`)));
  });
}

/** The body as text, or what went wrong reading it. */
async function body(path: string): Promise<string> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, {
      signal: AbortSignal.timeout(5000),
    });
    return await answer.text();
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

test("under Deno, Elysia's sse() sends no event; the same events yielded as bytes arrive", async () => {
  await start();
  expect(await body("/bytes")).toBe("data: 1\n\ndata: 2\n\n");
  const helper = await body("/helper");
  expect(helper === "" || helper.startsWith("failed: ")).toBe(true);
}, 30_000);
