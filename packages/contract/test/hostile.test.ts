// hostile() must catch a server that mishandles bad input, not only pass good ones: a 2xx or
// a 5xx answer to a request the contract refuses is a failure, and so is the CLI's exit code.
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { hostile, survived } from "../src/check.ts";
import { ERRORS, errorBody, ROUTES } from "../src/index.ts";
import { referenceServe } from "./support/reference-server.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

const CLI = join(import.meta.dir, "../src/cli.ts");
const attack = (s: ReturnType<typeof Bun.serve>) =>
  hostile(`http://127.0.0.1:${s.port}`, { count: 300, concurrency: 4, timeoutMs: 3000 });

describe("hostile", () => {
  test("a conforming server refuses every bad request with a 4xx and survives", async () => {
    server = referenceServe("bare", 0);
    const report = await attack(server);
    expect(report.failures).toBe(0);
    expect(report.serverErrors).toBe(0);
    expect(report.accepted).toBe(0);
    expect(Object.keys(report.statuses).every((code) => code.startsWith("4"))).toBe(true);
    expect(survived(report)).toBe(true);
  }, 30_000);

  test("an echo that answers 200 to anything: accepted input it should refuse", async () => {
    server = referenceServe("bare", 0, {
      [ROUTES.echo]: { POST: () => Response.json({ ok: true }) },
    });
    const report = await attack(server);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.statuses["200"]).toBe(report.accepted);
    expect(report.firstFailure).toContain("status 200");
    expect(survived(report)).toBe(false);
  }, 30_000);

  test("an echo that fails with 500 on bad input: server errors", async () => {
    server = referenceServe("bare", 0, {
      [ROUTES.echo]: {
        POST: () => Response.json(errorBody(ERRORS.internal), { status: 500 }),
      },
    });
    const report = await attack(server);
    expect(report.serverErrors).toBeGreaterThan(0);
    expect(report.firstFailure).toContain("status 500");
    expect(survived(report)).toBe(false);
  }, 30_000);
});

describe("the contract CLI's exit codes", () => {
  // Asynchronous: the server under test runs in this process's event loop.
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d;
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d;
      });
      child.on("close", (status) => done({ status, stdout, stderr }));
    });

  test("verify: 0 for a conforming server, 1 with the violations for a broken one", async () => {
    server = referenceServe("bare", 0);
    const ok = await cli("verify", "bun-bare", `http://127.0.0.1:${server.port}`);
    expect(ok.stderr).toContain("bun-bare: conforms to the contract");
    expect(ok.status).toBe(0);
    server.stop(true);
    server = referenceServe("bare", 0, { "/": { GET: () => new Response("Goodbye") } });
    const broken = await cli("verify", "bun-bare", `http://127.0.0.1:${server.port}`);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(
      'bun-bare: GET / answers the greeting as text/plain: body "Goodbye"',
    );
  }, 30_000);

  test("usage errors: 2", async () => {
    expect((await cli("verify", "deno-oak")).status).toBe(2);
    expect((await cli("frobnicate")).status).toBe(2);
  }, 30_000);
});
