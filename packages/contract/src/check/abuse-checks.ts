// The protocols' bad clients (abuse.ts) judged, as verify() runs them in a tls, h2 or h2c run:
// while TLS handshakes are stalled an HTTPS request is answered, and after a reset storm a new
// HTTP/2 session is. Smaller than in packages/harness/test/abuse.e2e.test.ts (which bounds the
// memory each adds, with 300 stalls and 20,000 resets), since the process verify() checks is
// the one then measured: these leave little behind (Node keeps about 1.6 KiB a reset stream).

import type { ClientHttp2Session } from "node:http2";
import { ROUTES } from "../spec/endpoints.ts";
import { tlsPort } from "../spec/tls.ts";
import { resetStorm, stallTlsHandshakes } from "./abuse.ts";
import { h2Fetcher } from "./h2-checks.ts";
import { describeError } from "./payloads.ts";
import type { Violation } from "./violation.ts";

/** The TLS handshakes verify() stalls while it asks for an answer over HTTPS. */
export const VERIFY_STALLS = 100;
/** The streams verify() opens and resets on one HTTP/2 session before it opens another. */
export const VERIFY_RESETS = 1000;

/** GET /api/test over HTTPS, trusting `ca`: undefined when answered 200, else what happened. */
async function httpsProblem(host: string, port: number, ca: string, timeoutMs: number) {
  try {
    const answer = await fetch(`https://${host}:${tlsPort(port)}${ROUTES.api}`, {
      signal: AbortSignal.timeout(timeoutMs),
      tls: { ca },
    } as RequestInit);
    await answer.arrayBuffer();
    return answer.status === 200 ? undefined : `status ${answer.status}`;
  } catch (error) {
    return `request failed: ${describeError(error)}`;
  }
}

/**
 * `count` connections to the app's TLS port stalled after the first bytes of a ClientHello;
 * meanwhile GET /api/test over HTTPS must be answered 200, and `whileHeld` (a caller's own
 * checks, memory say) runs. The stalls are released before it returns.
 */
export async function checkBesideStalledTls(
  host: string,
  port: number,
  ca: string,
  timeoutMs: number,
  count = VERIFY_STALLS,
  whileHeld: () => Violation[] = () => [],
): Promise<Violation[]> {
  const check = `over HTTPS: answered beside ${count} stalled handshakes`;
  let stall: Awaited<ReturnType<typeof stallTlsHandshakes>>;
  try {
    stall = await stallTlsHandshakes(host, tlsPort(port), count, timeoutMs);
  } catch (error) {
    return [{ check, detail: `stalling them: ${describeError(error)}` }];
  }
  try {
    const problem = await httpsProblem(host, port, ca, timeoutMs);
    return [...(problem === undefined ? [] : [{ check, detail: problem }]), ...whileHeld()];
  } finally {
    stall.release();
  }
}

/**
 * `streams` requests for GET /api/test on a session of `open`'s, each reset as soon as it is
 * sent (until the server ends the session), then the same request on a new session: it must be
 * answered 200. `label` names the protocol (h2, h2c), `origin` the session's.
 */
export async function checkAfterResetStorm(
  open: () => Promise<ClientHttp2Session>,
  origin: string,
  label: string,
  timeoutMs: number,
  streams = VERIFY_RESETS,
): Promise<Violation[]> {
  const check = `over ${label}: answered after a reset storm`;
  let reset = 0;
  let fresh: ClientHttp2Session | undefined;
  try {
    const session = await open();
    try {
      reset = (await resetStorm(session, ROUTES.api, streams)).reset;
    } finally {
      session.destroy();
    }
    fresh = await open();
    const answer = await h2Fetcher(fresh, timeoutMs)(new Request(`${origin}${ROUTES.api}`));
    if (answer.status === 200) return [];
    return [{ check, detail: `after ${reset} reset streams, a new session got ${answer.status}` }];
  } catch (error) {
    return [{ check, detail: `after ${reset} reset streams: ${describeError(error)}` }];
  } finally {
    fresh?.close();
  }
}
