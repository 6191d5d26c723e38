// Why the Express apps serve no HTTP/2 (the contract's H2_UNSUPPORTED and H2C_UNSUPPORTED):
// Express on node:http2's compatibility API answers HTTP/1.1 but the first request over HTTP/2,
// with TLS or in the clear, throws inside Express's request object and ends the process. When a
// test here fails, Express serves HTTP/2: serve the Express apps' HTTPS (or h2c) with node:http2
// and drop their entries.
import { afterAll, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect } from "node:http2";
import { join } from "node:path";
import {
  pemOf,
  SKIP_WITHOUT_OPENSSL,
  type TestCertificate,
  testCertificate,
} from "../../contract/test/support/certificate.ts";

// The Node the node-express app runs on (its package.json pins it).
const NODE = join(import.meta.dir, "../../../apps/node-express/node_modules/.bin/node");
let child: ChildProcess | undefined;
let stderr = "";
let made: TestCertificate | undefined;
afterAll(() => {
  child?.kill("SIGKILL");
  if (made) rmSync(made.dir, { recursive: true, force: true });
});

/** The fixture over TLS given `cert`, else in the clear; its port once it listens. */
function start(cert?: TestCertificate): Promise<number> {
  const fixture = join(import.meta.dir, "fixtures/express-over-h2.ts");
  const files = cert ? [cert.cert, cert.key] : [];
  stderr = "";
  child = spawn(NODE, [fixture, ...files], { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  return new Promise((resolve, reject) => {
    child?.stdout?.on("data", (data: Buffer) => {
      const listening = /listening (\d+)/.exec(data.toString());
      if (listening) resolve(Number(listening[1]));
    });
    child?.on("exit", (code) => reject(new Error(`node exited (${code}) before listening`)));
  });
}

/** The status of GET /api/test over HTTP/2 (h2c without `ca`), or what went wrong. */
function overH2(port: number, ca?: string): Promise<string> {
  return new Promise((resolve) => {
    const scheme = ca ? "https" : "http";
    const session = connect(`${scheme}://127.0.0.1:${port}`, ca ? { ca } : {});
    session.on("error", (error) => resolve(`failed: ${error.message}`));
    const stream = session.request({ ":path": "/api/test" });
    stream.on("response", (head) => resolve(String(head[":status"])));
    stream.on("error", (error) => resolve(`failed: ${error.message}`));
    stream.on("close", () => resolve("closed without an answer"));
    setTimeout(() => resolve("no answer in 5 s"), 5000);
  });
}

test.skipIf(SKIP_WITHOUT_OPENSSL)(
  "Express over node:http2: HTTP/1.1 answers, the first HTTP/2 request ends the process",
  async () => {
    made = testCertificate("express-h2-");
    const { cert } = pemOf(made);
    const port = await start(made);
    const h1 = await fetch(`https://127.0.0.1:${port}/api/test`, {
      tls: { ca: cert },
    } as RequestInit);
    expect(await h1.json()).toEqual({ served: true });
    const exited = new Promise<number | null>((resolve) => child?.on("exit", resolve));
    expect(await overH2(port, cert)).not.toBe("200");
    // The process is gone: an uncaught TypeError in the request object Express reads.
    expect(await exited).not.toBe(0);
    expect(stderr).toContain("TypeError");
  },
  30_000,
);

test("Express over node:http2 in the clear (h2c): the first HTTP/2 request ends the process", async () => {
  child?.kill("SIGKILL");
  const port = await start();
  const exited = new Promise<number | null>((resolve) => child?.on("exit", resolve));
  expect(await overH2(port)).not.toBe("200");
  expect(await exited).not.toBe(0);
  expect(stderr).toContain("TypeError");
}, 30_000);
