// End to end: the protocols' bad-input cases (issue 48) against every app, one process, given
// the run's certificate and asked for h2c. 300 TLS clients stalled mid-handshake, an HTTP/2 reset
// storm of 20,000 cancelled streams (over TLS and in the clear, on the apps that serve each), and
// a WebSocket client that sends 64 MiB of messages to the echo route and reads none: while each
// bad client holds on, the app must answer others, and the memory it adds for each bad client
// (while the stalls and the never-reading client hold on, and once a storm is over) must stay
// bounded.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientHttp2Session } from "node:http2";
import { APPS, H2_UNSUPPORTED, H2C_ENV, H2C_UNSUPPORTED, h2cPort, tlsPort } from "@bench/contract";
import { appRssBytes, neverReads } from "@bench/contract/abuse";
import {
  checkAfterResetStorm,
  checkBesideStalledTls,
  openH2,
  openH2c,
  type Violation,
} from "@bench/contract/check";
import { WS_UNSUPPORTED } from "@bench/contract/ws";
import { checkWebSocket } from "@bench/contract/ws-check";
import { makeCertificate, type RunCertificate } from "../src/apps/certificate.ts";
import { portOpen } from "../src/apps/port-open.ts";
import { startApp } from "../src/index.ts";
import { SKIP_WITHOUT_OPENSSL } from "./support/openssl.ts";

const HOST = "127.0.0.1";
const MIB = 1024 * 1024;
/** What the never-reading client sends: 1,024 messages of 64 KiB. */
const FLOOD = { messages: 1024, bytes: 64 * 1024 };
/** The memory an app may add while it holds the never-reading client: half of what it sent. */
const FLOOD_RSS_BOUND = 32 * MIB;
/**
 * The memory an app may add while it holds 300 stalled handshakes: about 110 KiB each at most.
 * Measured (2026-11-29, every app): 2-19 MiB, Node's apps the most (about 60 KiB each).
 */
const STALL_RSS_BOUND = 32 * MIB;
/**
 * The memory an app may keep once a reset storm is over: 3.2 KiB for each of 20,000 streams (a
 * server that kept more than that of every reset stream fails). Measured (2026-11-29): Node's
 * apps reset 4,500-15,500 streams before they end the session and keep about 1.6 KiB each (up
 * to 22 MiB); Deno.serve's end it after 200-400.
 */
const STORM_RSS_BOUND = 64 * MIB;

/** A problem if the app's memory grew by more than `bound` since `before` (bytes). */
function grewBeyond(pid: number, before: number, bound: number, what: string): string[] {
  const grown = appRssBytes(pid) - before;
  if (grown <= bound) return [];
  return [`${what} grew the app by ${Math.round(grown / MIB)} MiB (at most ${bound / MIB} MiB)`];
}

const said = (violations: readonly Violation[]) => violations.map((v) => `${v.check}: ${v.detail}`);

/** The contract's check with 300 stalls, the app's memory read while they are held. */
async function stalledHandshakes(pid: number, port: number, ca: string): Promise<string[]> {
  const before = appRssBytes(pid);
  const memory = () =>
    grewBeyond(pid, before, STALL_RSS_BOUND, "300 stalled TLS handshakes").map((detail) => ({
      check: "memory",
      detail,
    }));
  return said(await checkBesideStalledTls(HOST, port, ca, 3000, 300, memory));
}

/**
 * The contract's check with a storm of 20,000 resets (over TLS, h2; in the clear, h2c at
 * `origin`): the server must serve on, and not keep the storm's memory.
 */
async function resetStormProblems(
  pid: number,
  open: () => Promise<ClientHttp2Session>,
  origin: string,
  label: string,
): Promise<string[]> {
  const before = appRssBytes(pid);
  const violations = await checkAfterResetStorm(open, origin, label, 3000, 20_000);
  return [
    ...said(violations),
    ...grewBeyond(pid, before, STORM_RSS_BOUND, `a storm of 20,000 reset ${label} streams`),
  ];
}

const h2Storm = (pid: number, port: number, ca: string) =>
  resetStormProblems(
    pid,
    () => openH2(HOST, port, ca, 3000),
    `https://${HOST}:${tlsPort(port)}`,
    "HTTP/2",
  );

const h2cStorm = (pid: number, at: number) =>
  resetStormProblems(pid, () => openH2c(HOST, at, 3000), `http://${HOST}:${at}`, "h2c");

async function neverReadingClient(pid: number, port: number): Promise<string[]> {
  const before = appRssBytes(pid);
  const flood = await neverReads(HOST, port, FLOOD.messages, FLOOD.bytes, 1000);
  try {
    await Bun.sleep(500);
    const problems = grewBeyond(
      pid,
      before,
      FLOOD_RSS_BOUND,
      `a WebSocket client that never reads (${flood.sentBytes / MIB} MiB sent)`,
    );
    const probe = await checkWebSocket({ host: HOST, port, timeoutMs: 3000 });
    const echo = probe.find((v) => v.check === "ws echo: text and binary messages");
    if (echo) problems.push(`meanwhile, another client's echo: ${echo.detail}`);
    return problems;
  } finally {
    flood.release();
  }
}

describe("every app against the protocols' bad clients", () => {
  let certificate: RunCertificate;
  beforeAll(() => {
    if (!SKIP_WITHOUT_OPENSSL) certificate = makeCertificate();
  });
  afterAll(() => certificate?.remove());
  for (const app of APPS) {
    const h2 = H2_UNSUPPORTED[app.name] === undefined;
    const h2c = H2C_UNSUPPORTED[app.name] === undefined;
    const ws = WS_UNSUPPORTED[app.name] === undefined;
    const bad = [
      "stalled TLS handshakes",
      ...(h2 ? ["an HTTP/2 reset storm"] : []),
      ...(h2c ? ["an h2c reset storm"] : []),
      ...(ws ? ["a WebSocket client that never reads"] : []),
    ];
    test.skipIf(SKIP_WITHOUT_OPENSSL)(
      `${app.name} serves others beside ${bad.join(", ")}`,
      async () => {
        const env = { ...certificate.env, [H2C_ENV]: "1" };
        const running = await startApp(app, { env, workers: 1 });
        try {
          expect(await portOpen(HOST, tlsPort(app.port), 10_000)).toBe(true);
          if (h2c) expect(await portOpen(HOST, h2cPort(app), 10_000)).toBe(true);
          const problems = [
            ...(await stalledHandshakes(running.pid, app.port, certificate.pem)),
            ...(h2 ? await h2Storm(running.pid, app.port, certificate.pem) : []),
            ...(h2c ? await h2cStorm(running.pid, h2cPort(app)) : []),
            ...(ws ? await neverReadingClient(running.pid, app.port) : []),
          ];
          expect(problems).toEqual([]);
          expect(running.hasExited()).toBe(false);
        } finally {
          await running.stop(900);
        }
      },
      60_000,
    );
  }
});
