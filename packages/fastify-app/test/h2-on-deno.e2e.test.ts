// Why deno-fastify serves no HTTP/2 (the contract's H2_UNSUPPORTED and H2C_UNSUPPORTED): Deno's
// node:http2 server, with TLS or in the clear, ends its process when a client closes sessions
// with requests in flight, as a load generator does when its window ends; Node's survives the
// same client. When a Deno half fails, Deno's node:http2 holds there: serve deno-fastify's HTTPS
// (or h2c) with Fastify's http2 option and drop its entry.
import { afterAll, expect, test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  SKIP_WITHOUT_OPENSSL,
  type TestCertificate,
  testCertificate,
} from "../../contract/test/support/certificate.ts";

const APPS = join(import.meta.dir, "../../../apps");
// The runtimes the apps run on (their package.json pin them).
const DENO = join(APPS, "deno-fastify/node_modules/deno/deno");
const NODE = join(APPS, "node-fastify/node_modules/.bin/node");
const fixture = (name: string) => join(import.meta.dir, "fixtures", name);

const children: ChildProcess[] = [];
let made: TestCertificate | undefined;
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  if (made) rmSync(made.dir, { recursive: true, force: true });
});

/** The fixture server on `command` (h2c without `cert`), its port once it listens, how it ended. */
function serve(command: string[], cert?: TestCertificate) {
  const [program, ...args] = command;
  const files = cert ? [cert.cert, cert.key] : [];
  const child = spawn(program as string, [...args, fixture("h2-server.ts"), ...files], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const ended = new Promise<string>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      const listening = /listening (\d+)/.exec(data.toString());
      if (listening) resolve(Number(listening[1]));
    });
    void ended.then((how) => reject(new Error(`the server ended (${how}) before listening`)));
  });
  return { child, port, ended };
}

/** Node's HTTP/2 client closing 200 sessions with requests in flight: what it printed. */
function closeInFlight(port: number, clear = false): string {
  const mode = clear ? ["h2c"] : [];
  const client = spawnSync(NODE, [fixture("h2-close-in-flight.ts"), String(port), ...mode], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return client.stdout.trim();
}

test.skipIf(SKIP_WITHOUT_OPENSSL)(
  "Deno's node:http2 server ends when sessions close with requests in flight; Node's serves on",
  async () => {
    made = testCertificate("fastify-h2-");
    const deno = serve([DENO, "run", "--allow-all"], made);
    closeInFlight(await deno.port);
    // Gone by a signal (SIGABRT from nghttp2's assertion, or SIGSEGV), not by a clean exit.
    expect(await Promise.race([deno.ended, Bun.sleep(5000).then(() => "still running")])).toMatch(
      /^SIG(ABRT|SEGV)$/,
    );
    const node = serve([NODE], made);
    expect(closeInFlight(await node.port)).toBe("closed 200");
    expect(node.child.exitCode).toBeNull();
  },
  90_000,
);

test("Deno's node:http2 cleartext server (h2c) ends the same way; Node's serves on", async () => {
  const deno = serve([DENO, "run", "--allow-all"]);
  closeInFlight(await deno.port, true);
  expect(await Promise.race([deno.ended, Bun.sleep(5000).then(() => "still running")])).toMatch(
    /^SIG(ABRT|SEGV)$/,
  );
  const node = serve([NODE]);
  expect(closeInFlight(await node.port, true)).toBe("closed 200");
  expect(node.child.exitCode).toBeNull();
}, 90_000);
