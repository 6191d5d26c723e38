// verify()'s HTTP/2 step, end to end: given the run's certificate and `http2`, it sends every case
// over HTTP/2 too, so an app that should serve HTTP/2 but whose TLS port offers HTTP/1.1 only
// fails; without `http2` the same app conforms. bun-fastify's own app in-process, on ports no app
// uses (fixed, hence an end-to-end test). The steps themselves are tested in http2.test.ts.
import { afterAll, afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
// From the repository root: the same path from the package and from a mutation sandbox.
import { createApp } from "../../../packages/fastify-app/src/index.ts";
import { verify } from "../src/check.ts";
import { tlsPort } from "../src/index.ts";
import {
  pemOf,
  SKIP_WITHOUT_OPENSSL,
  type TestCertificate,
  testCertificate,
} from "./support/certificate.ts";

const PORT = 38_021;
let made: TestCertificate | undefined;
let running: ReturnType<typeof createApp>[] = [];
afterEach(async () => {
  await Promise.all(running.map((app) => app.close()));
  running = [];
});
afterAll(() => {
  if (made) rmSync(made.dir, { recursive: true, force: true });
});

/** A fresh app on PORT (a fresh rate limiter) and its HTTPS instance on the TLS port. */
async function serve(pem: { cert: string; key: string }, http2: boolean): Promise<void> {
  const plain = createApp();
  const secure = createApp(pem, http2);
  running = [plain, secure];
  await plain.listen({ port: PORT, host: "127.0.0.1" });
  await secure.listen({ port: tlsPort(PORT), host: "127.0.0.1" });
}

const check = (ca: string, http2?: boolean) =>
  verify(`http://127.0.0.1:${PORT}`, "bun-fastify", { tlsCa: ca, ...(http2 ? { http2 } : {}) });

test.skipIf(SKIP_WITHOUT_OPENSSL)(
  "an app whose TLS port offers no h2 conforms over HTTPS, and fails verify() asked for HTTP/2",
  async () => {
    made = testCertificate("contract-verify-h2-");
    const pem = pemOf(made);
    await serve(pem, false);
    expect(await check(pem.cert)).toEqual([]);
    await Promise.all(running.map((app) => app.close()));
    await serve(pem, false);
    const violations = await check(pem.cert, true);
    expect(violations.map((v) => v.check)).toEqual(["over HTTP/2: an h2 session by ALPN"]);
  },
  60_000,
);

test.skipIf(SKIP_WITHOUT_OPENSSL)(
  "the same app serving HTTP/2 by ALPN passes verify() with every case over HTTP/2",
  async () => {
    made ??= testCertificate("contract-verify-h2-");
    const pem = pemOf(made);
    await serve(pem, true);
    expect(await check(pem.cert, true)).toEqual([]);
  },
  60_000,
);
