import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { getApp, listeningAfter, TLS_ENV, tlsPem, tlsPort } from "@bench/contract";
import { checkOverTls } from "@bench/contract/check";
import { serveOptions } from "../../../apps/bun-bare/src/app.ts";
import { SKIP_WITHOUT_OPENSSL, testCertificate } from "./support/certificate.ts";
import { portBase } from "./support/ports.ts";

const SKIP = SKIP_WITHOUT_OPENSSL;
const certificate = () => testCertificate("contract-tls-");

type Made = ReturnType<typeof certificate>;
let ours: Made;
let theirs: Made;
const servers: { stop: (force: boolean) => void }[] = [];
beforeAll(() => {
  if (SKIP) return;
  ours = certificate();
  theirs = certificate();
});
afterAll(() => {
  for (const server of servers) server.stop(true);
  for (const made of [ours, theirs]) {
    if (made) rmSync(made.dir, { recursive: true, force: true });
  }
});

describe("the TLS port and the certificate's variables", () => {
  test("HTTPS is the app's port + 1000", () => {
    expect(tlsPort(3000)).toBe(4000);
    expect(tlsPort(getApp("deno-fastify").port)).toBe(4014);
  });

  test.skipIf(SKIP)("neither variable: plain HTTP only; both: the two PEM texts", () => {
    expect(tlsPem({})).toBeUndefined();
    const pem = tlsPem({ [TLS_ENV.cert]: ours.cert, [TLS_ENV.key]: ours.key });
    expect(pem?.cert).toBe(readFileSync(ours.cert, "utf8"));
    expect(pem?.key).toStartWith("-----BEGIN PRIVATE KEY-----");
  });

  test.skipIf(SKIP)("one without the other is an error naming both", () => {
    const message = "BENCH_TLS_CERT and BENCH_TLS_KEY are set together";
    expect(() => tlsPem({ [TLS_ENV.cert]: ours.cert })).toThrow(message);
    expect(() => tlsPem({ [TLS_ENV.key]: ours.key })).toThrow(message);
  });

  test("listeningAfter says listening once, after the last of the servers", () => {
    let said = 0;
    const listened = listeningAfter(2, () => said++);
    listened();
    expect(said).toBe(0);
    listened();
    expect(said).toBe(1);
    const one = listeningAfter(1, () => said++);
    one();
    expect(said).toBe(2);
  });
});

describe("checkOverTls", () => {
  /** bun-bare's routes over HTTPS on `port`'s TLS port, with the given certificate. */
  function serveTls(port: number, pem: { cert: string; key: string }) {
    const tls = { cert: readFileSync(pem.cert, "utf8"), key: readFileSync(pem.key, "utf8") };
    const server = Bun.serve({ ...serveOptions, port: tlsPort(port), hostname: "127.0.0.1", tls });
    servers.push(server);
  }
  const app = getApp("bun-bare");
  // Ports no app of the contract uses (the TLS ports are the apps' + 1000).
  // This process's own ports (checks add 1000 for the TLS port): two runs at once do not collide.
  const [good, plain] = [portBase() + 3, portBase() + 4];

  test.skipIf(SKIP)(
    "every case answered over HTTPS: no violation",
    async () => {
      serveTls(good, ours);
      const violations = await checkOverTls(
        "127.0.0.1",
        good,
        app,
        readFileSync(ours.cert, "utf8"),
        5000,
      );
      expect(violations).toEqual([]);
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "a certificate the checker was not given is refused, every case named as over HTTPS",
    async () => {
      const violations = await checkOverTls(
        "127.0.0.1",
        good,
        app,
        readFileSync(theirs.cert, "utf8"),
        5000,
      );
      expect(violations.length).toBeGreaterThan(50);
      for (const v of violations) {
        expect(v.check).toStartWith("over HTTPS: ");
        expect(v.detail).toStartWith("request failed: ");
      }
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "an answer without Content-Type over HTTPS is not taken for text/plain (the network's rule)",
    async () => {
      const tls = { cert: readFileSync(ours.cert, "utf8"), key: readFileSync(ours.key, "utf8") };
      const routes = { ...serveOptions.routes, "/": { GET: () => new Response(null) } };
      // A port the system gives: checkOverTls is told the plain port 1000 below it.
      const server = Bun.serve({ ...serveOptions, routes, port: 0, hostname: "127.0.0.1", tls });
      servers.push(server);
      const port = (server.port as number) - 1000;
      const violations = await checkOverTls("127.0.0.1", port, app, tls.cert, 5000);
      expect(violations.map((v) => `${v.check}: ${v.detail}`)).toContain(
        'over HTTPS: GET / answers the greeting as text/plain: content-type "", expected "text/plain"',
      );
    },
    30_000,
  );

  test.skipIf(SKIP)(
    "plain HTTP on the TLS port is not HTTPS",
    async () => {
      const server = Bun.serve({ ...serveOptions, port: tlsPort(plain), hostname: "127.0.0.1" });
      servers.push(server);
      const violations = await checkOverTls(
        "127.0.0.1",
        plain,
        app,
        readFileSync(ours.cert, "utf8"),
        5000,
      );
      expect(violations.length).toBeGreaterThan(50);
    },
    30_000,
  );
});
