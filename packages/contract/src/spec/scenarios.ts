// What the harness can measure: one request each, sent identically by every load generator.
// The request of a scenario is also a contract case, so verify() has checked its answer
// before any load is applied.

import { ITEMS_DEFAULT, USER_UPDATE_FIXTURE } from "./data.ts";
import { DB_ROUTES, SCENARIO_QUERIES } from "./db.ts";
import { ROUTES, userPath } from "./endpoints.ts";
import { ECHO_BODY } from "./fixtures.ts";
import { H2_STREAMS, H2_UNSUPPORTED, H2C_PORT_OFFSET, H2C_UNSUPPORTED } from "./http2.ts";
import {
  bearer,
  CORS,
  MIDDLEWARE_PATHS,
  MIDDLEWARE_ROUTES,
  RATE_LIMIT,
  STACK_HEADERS,
  TOKENS,
} from "./middleware.ts";
import type { AppName, AppSpec } from "./registry.ts";
import { SCENARIO_BYTES, SCENARIO_EVENTS, STREAM_CHUNK_BYTES, STREAM_ROUTES } from "./streams.ts";
import {
  WS_BROADCAST_IN_FLIGHT,
  WS_MESSAGE_SIZES,
  WS_ROUTES,
  WS_UNSUPPORTED,
} from "./websocket.ts";

export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly method: "GET" | "POST" | "OPTIONS";
  readonly path: string;
  readonly contentType?: string;
  readonly body?: string;
  /** Request headers every load generator sends (names in lower case). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The status every answer must have; 200 when absent. Any other is a failed request. */
  readonly status?: number;
  /** Send the route's current ETag as If-None-Match (fetched after the app is verified). */
  readonly conditional?: true;
  /** A production-middleware stage: reported against the same app's `api` scenario. */
  readonly middleware?: true;
  /** Served from the app's database (db.ts): the harness gives each process a seeded copy. */
  readonly database?: true;
  /** Run only when named: `-s all` leaves it out (the protocols beyond a short answer). */
  readonly onRequest?: true;
  /**
   * Sent over HTTPS to the app's TLS port (spec/tls.ts), the harness giving every app process
   * the run's certificate; connections are kept alive, each shaking hands once, when the
   * sample's generator opens it (so a sample's window holds its connections' handshakes).
   */
  readonly tls?: true;
  /**
   * With `tls`: every request on a new connection, its own full TLS handshake (no session
   * resumed), the request sent with Connection: close: what a new client costs a TLS server.
   * Loaded by ws-load's handshake mode (loadedByWsLoad): wrk and oha resume sessions.
   */
  readonly handshake?: true;
  /**
   * Sent over HTTP/2 (with `tls`: negotiated by ALPN on the TLS port; without: cleartext with
   * prior knowledge, to h2cPort), the scenario's in-flight requests spread over connections of
   * several streams each (spec/http2.ts); an app that cannot serve it says why (H2_UNSUPPORTED,
   * H2C_UNSUPPORTED) and is shown so, not measured.
   */
  readonly http2?: true;
  /**
   * A WebSocket scenario (spec/websocket.ts), loaded by ws-load (tools/ws-load, the one generator
   * here that speaks WebSocket), every connection opened before the window. `echo`: each
   * connection sends a text message of `bytes` and waits for its echo before the next (one
   * "request" is a message and its echo). `broadcast`: one more connection publishes messages of
   * `bytes` to the others, `inFlight` at a time (one "request" is a delivery to one subscriber;
   * the latency is until the last subscriber has it). An app that cannot serve WebSocket says
   * why (WS_UNSUPPORTED) and is shown so, not measured.
   */
  readonly websocket?: {
    readonly mode: "echo" | "broadcast";
    readonly bytes: number;
    /** Messages the publisher keeps in flight (broadcast; ws-load's -p). */
    readonly inFlight?: number;
  };
  /**
   * Answers of another status that are right too, up to `perWindow` per server process and
   * window begun: a rate limiter lets a client's first requests of each window through.
   */
  readonly allowance?: {
    readonly status: number;
    readonly perWindow: number;
    readonly windowSec: number;
  };
}

export const SCENARIOS = [
  {
    name: "hello",
    description: "GET / — a fixed text greeting: HTTP plumbing and little else",
    method: "GET",
    path: ROUTES.root,
  },
  {
    name: "api",
    description: "GET /api/test — a small JSON object built per request",
    method: "GET",
    path: ROUTES.api,
  },
  {
    name: "echo",
    description: "POST /api/echo — parse and re-serialize a ~1 KB JSON body",
    method: "POST",
    path: ROUTES.echo,
    contentType: "application/json",
    body: ECHO_BODY,
  },
  {
    name: "params",
    description:
      "GET /api/users/42?fields=name,email — path parameter, query string, field selection",
    method: "GET",
    path: `${userPath(42)}?fields=name,email`,
  },
  {
    name: "validate",
    description:
      "POST /api/users/42 — ~100-byte user validated by the framework's schema validator",
    method: "POST",
    path: userPath(USER_UPDATE_FIXTURE.id),
    contentType: "application/json",
    body: JSON.stringify(USER_UPDATE_FIXTURE),
  },
  {
    name: "large",
    description: `GET /api/items?count=${ITEMS_DEFAULT} — serialize a ~22 KB JSON array`,
    method: "GET",
    path: `${ROUTES.items}?count=${ITEMS_DEFAULT}`,
  },
  {
    name: "auth",
    description:
      "GET /api/me with a bearer JWT — the framework's JWT middleware verifies HS256 and exp",
    method: "GET",
    path: MIDDLEWARE_ROUTES.me,
    headers: { authorization: bearer(TOKENS.valid) },
    middleware: true,
  },
  {
    name: "cors",
    description:
      "OPTIONS /api/public — a CORS preflight answered by the framework's CORS middleware",
    method: "OPTIONS",
    path: MIDDLEWARE_ROUTES.public,
    headers: { origin: CORS.allowedOrigin, "access-control-request-method": "GET" },
    status: 204,
    middleware: true,
  },
  {
    name: "gzip",
    description: `GET ${MIDDLEWARE_PATHS.gzip} — the large payload through the compression middleware`,
    method: "GET",
    path: MIDDLEWARE_PATHS.gzip,
    headers: { "accept-encoding": "gzip" },
    middleware: true,
  },
  {
    name: "etag",
    description: `GET ${MIDDLEWARE_PATHS.etag} with a matching If-None-Match — 304 from the ETag middleware`,
    method: "GET",
    path: MIDDLEWARE_PATHS.etag,
    status: 304,
    conditional: true,
    middleware: true,
  },
  {
    name: "ratelimit",
    description:
      "GET /api/limited, flooded — the rate limiter's 429, the answer a limiter under attack gives",
    method: "GET",
    path: MIDDLEWARE_ROUTES.limited,
    status: 429,
    middleware: true,
    allowance: { status: 200, perWindow: RATE_LIMIT.max, windowSec: RATE_LIMIT.windowSec },
  },
  {
    name: "stack",
    description: "GET /api/stack/me — CORS, JWT auth, gzip and ETag on one route, in that order",
    method: "GET",
    path: MIDDLEWARE_ROUTES.stackMe,
    headers: STACK_HEADERS,
    middleware: true,
  },
  {
    name: "db",
    description: "GET /db — one random row of World read from the database",
    method: "GET",
    path: DB_ROUTES.db,
    database: true,
  },
  {
    name: "queries",
    description: `GET /queries?queries=${SCENARIO_QUERIES} — ${SCENARIO_QUERIES} random rows, one query each`,
    method: "GET",
    path: `${DB_ROUTES.queries}?queries=${SCENARIO_QUERIES}`,
    database: true,
  },
  {
    name: "fortunes",
    description: "GET /fortunes — every Fortune row plus one, sorted, escaped into an HTML page",
    method: "GET",
    path: DB_ROUTES.fortunes,
    database: true,
  },
  {
    name: "updates",
    description: `GET /updates?queries=${SCENARIO_QUERIES} — ${SCENARIO_QUERIES} random rows read, renumbered and written back`,
    method: "GET",
    path: `${DB_ROUTES.updates}?queries=${SCENARIO_QUERIES}`,
    database: true,
  },
  {
    name: "tls",
    description:
      "GET /api/test over HTTPS (HTTP/1.1, keep-alive) on the app's port + 1000: what TLS costs per request (on request)",
    method: "GET",
    path: ROUTES.api,
    tls: true,
    onRequest: true,
  },
  {
    name: "tls-handshake",
    description:
      "GET /api/test over HTTPS on the app's port + 1000, a new connection and a full TLS handshake for each request (none resumed): what a new client costs (on request)",
    method: "GET",
    path: ROUTES.api,
    tls: true,
    handshake: true,
    onRequest: true,
  },
  {
    name: "h2",
    description: `GET /api/test over HTTP/2 with TLS (ALPN h2) on the app's port + 1000, ${H2_STREAMS} streams per connection: what HTTP/2 costs or saves per request (on request)`,
    method: "GET",
    path: ROUTES.api,
    tls: true,
    http2: true,
    onRequest: true,
  },
  {
    name: "h2c",
    description: `GET /api/test over cleartext HTTP/2 (h2c, prior knowledge) on the app's port + ${H2C_PORT_OFFSET}, or its plain port where its server shares it, ${H2_STREAMS} streams per connection: HTTP/2 without TLS (on request)`,
    method: "GET",
    path: ROUTES.api,
    http2: true,
    onRequest: true,
  },
  {
    name: "sse",
    description: `GET /sse?events=${SCENARIO_EVENTS} — ${SCENARIO_EVENTS} server-sent events per request, each written as it is made (on request)`,
    method: "GET",
    path: `${STREAM_ROUTES.sse}?events=${SCENARIO_EVENTS}`,
    onRequest: true,
  },
  {
    name: "stream",
    description: `GET /stream?bytes=${SCENARIO_BYTES} — 1 MiB streamed in ${STREAM_CHUNK_BYTES / 1024} KiB chunks (on request)`,
    method: "GET",
    path: `${STREAM_ROUTES.stream}?bytes=${SCENARIO_BYTES}`,
    onRequest: true,
  },
  {
    name: "ws-echo",
    description: `GET ${WS_ROUTES.echo}, a WebSocket — ${WS_MESSAGE_SIZES[0]}-byte text messages, each echoed before the connection sends the next (req/s: messages echoed per second) (on request)`,
    method: "GET",
    path: WS_ROUTES.echo,
    websocket: { mode: "echo", bytes: WS_MESSAGE_SIZES[0] },
    onRequest: true,
  },
  {
    name: "ws-echo-4k",
    description: `GET ${WS_ROUTES.echo}, a WebSocket — ${WS_MESSAGE_SIZES[1] / 1024} KiB text messages, each echoed before the connection sends the next (req/s: messages echoed per second) (on request)`,
    method: "GET",
    path: WS_ROUTES.echo,
    websocket: { mode: "echo", bytes: WS_MESSAGE_SIZES[1] },
    onRequest: true,
  },
  {
    name: "ws-broadcast",
    description: `GET ${WS_ROUTES.broadcast}, a WebSocket — one more connection publishes ${WS_MESSAGE_SIZES[0]}-byte text messages, ${WS_BROADCAST_IN_FLIGHT} in flight, to all the others (req/s: deliveries per second; latency: until the last one has it) (on request)`,
    method: "GET",
    path: WS_ROUTES.broadcast,
    websocket: { mode: "broadcast", bytes: WS_MESSAGE_SIZES[0], inFlight: WS_BROADCAST_IN_FLIGHT },
    onRequest: true,
  },
] as const satisfies readonly Scenario[];

export type ScenarioName = (typeof SCENARIOS)[number]["name"];

export const DEFAULT_SCENARIO: ScenarioName = "api";

/** What `-s all` runs: every scenario but those run only when named. */
export const STANDARD_SCENARIOS: readonly Scenario[] = (SCENARIOS as readonly Scenario[]).filter(
  (s) => s.onRequest !== true,
);

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/**
 * A stage set against the same app's `api` in the same run (its cost, the production tax): a
 * production-middleware scenario, or `tls`, `tls-handshake`, `h2` and `h2c` (the same answer
 * through TLS, with a new connection each, over HTTP/2, and over HTTP/2 in the clear).
 */
export function isStage(scenario: Scenario): boolean {
  return scenario.middleware === true || scenario.tls === true || scenario.http2 === true;
}

/**
 * Loaded by ws-load (tools/ws-load), whatever the run's HTTP tool: the WebSocket scenarios, and
 * the new TLS connection per request, which the HTTP tools do not open (they resume sessions).
 */
export function loadedByWsLoad(scenario: Scenario): boolean {
  return scenario.websocket !== undefined || scenario.handshake === true;
}

/** Cleartext HTTP/2 with prior knowledge (the h2c scenario): HTTP/2 without TLS. */
export function isH2c(scenario: Scenario): boolean {
  return scenario.http2 === true && scenario.tls !== true;
}

/** Why `app` cannot serve `scenario` (the contract's reason); undefined when it can. */
export function notSupported(app: AppSpec, scenario: Scenario): string | undefined {
  const name = app.name as AppName;
  if (scenario.websocket !== undefined) return WS_UNSUPPORTED[name];
  if (isH2c(scenario)) return H2C_UNSUPPORTED[name];
  return scenario.http2 === true ? H2_UNSUPPORTED[name] : undefined;
}

/** The status a scenario's answers must have. */
export function expectedStatus(scenario: Scenario): number {
  return scenario.status ?? 200;
}

/**
 * How many answers of the allowance's status a load run of `durationSec` against
 * `processes` server processes may rightly get: each process's limiter may begin a window
 * (and let `perWindow` through) at most once per window length, plus the one it is in.
 */
export function allowedOtherAnswers(
  scenario: Scenario,
  durationSec: number,
  processes = 1,
): { readonly status: number; readonly upTo: number } | undefined {
  const a = scenario.allowance;
  if (!a) return undefined;
  const windows = Math.floor(durationSec / a.windowSec) + 1;
  return { status: a.status, upTo: a.perWindow * processes * windows };
}
