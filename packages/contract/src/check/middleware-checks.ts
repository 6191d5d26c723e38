// The middleware routes, checked over the raw wire: fetch() would decompress a gzip body and
// hide what was sent. Headers the contract fixes are compared byte for byte; a compressed body
// is decompressed and compared with the exact JSON. Run by verify() on a fresh app (the rate
// limit check spends the limit: the first RATE_LIMIT.max requests must be answered).

import { gunzipSync } from "node:zlib";
import { buildItems } from "../spec/data.ts";
import { ERRORS, errorBody, ROUTES } from "../spec/endpoints.ts";
import {
  CORS,
  MIDDLEWARE_ITEMS,
  MIDDLEWARE_PATHS,
  MIDDLEWARE_ROUTES,
  RATE_LIMIT,
  STACK_HEADERS,
  stackPayload,
} from "../spec/middleware.ts";
import type { AppSpec } from "../spec/registry.ts";
import { apiPayloadProblems, describeError, preview } from "./payloads.ts";
import { parseStrict, type StrictAnswer } from "./pipeline.ts";
import type { Violation } from "./violation.ts";
import { rawExchange, rawText } from "./wire.ts";

type Headers = Readonly<Record<string, string>>;
type Answer = StrictAnswer;

/** What one answer must be; a header given as null must be absent. */
export interface WireExpectation {
  /** Undefined: any status below 500. */
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string | RegExp | null>>;
  /** The exact JSON text, after gunzip when `gzip`. */
  readonly json?: string;
  /** The body must be gzip (Content-Encoding: gzip); otherwise it must not be encoded. */
  readonly gzip?: boolean;
  /** GET /api/test's payload for this app. */
  readonly api?: AppSpec;
  /** No body at all (204, 304). */
  readonly empty?: true;
}

const ETAG = /^(W\/)?"[^"]*"$/;
const VARY_ACCEPT_ENCODING = /(^|,)\s*accept-encoding\s*(,|$)/i;
const ITEMS_JSON = JSON.stringify(buildItems(MIDDLEWARE_ITEMS));

function bodyText(answer: Answer, gzip: boolean): string {
  const bytes = Buffer.from(answer.body, "latin1");
  return (gzip ? gunzipSync(bytes) : bytes).toString("utf8");
}

function headerProblems(answer: Answer, expect: WireExpectation): string[] {
  const problems: string[] = [];
  for (const [name, wanted] of Object.entries(expect.headers ?? {})) {
    const got = answer.headers.get(name);
    if (wanted === null) {
      if (got !== undefined) problems.push(`${name}: ${JSON.stringify(got)}, expected none`);
    } else if (got === undefined) {
      problems.push(`no ${name} header, expected ${String(wanted)}`);
    } else if (typeof wanted === "string" ? got !== wanted : !wanted.test(got)) {
      problems.push(`${name}: ${JSON.stringify(got)}, expected ${String(wanted)}`);
    }
  }
  return problems;
}

/** What is wrong with `answer`; empty when it is what `expect` says. */
export function wireProblems(answer: Answer, expect: WireExpectation): string[] {
  const problems: string[] = [];
  const statusOk =
    expect.status === undefined ? answer.status < 500 : answer.status === expect.status;
  if (!statusOk) problems.push(`status ${answer.status}, expected ${expect.status ?? "below 500"}`);
  problems.push(...headerProblems(answer, expect));
  const encoding = answer.headers.get("content-encoding");
  if (expect.gzip && encoding !== "gzip")
    problems.push(`content-encoding ${encoding ?? "none"}, expected gzip`);
  if (expect.gzip === false && encoding !== undefined)
    problems.push(`content-encoding ${encoding}, expected none`);
  if (expect.empty && answer.body.length > 0)
    problems.push(`a ${answer.body.length}-byte body, expected none`);
  // A body is judged only when the status is right: a 404's body says nothing more.
  if ((expect.json === undefined && expect.api === undefined) || !statusOk) return problems;
  let text: string;
  try {
    text = bodyText(answer, encoding === "gzip");
  } catch (error) {
    return [...problems, `body does not gunzip: ${describeError(error)}`];
  }
  const mediaType = answer.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json")
    problems.push(`content-type ${mediaType ?? "none"}, expected application/json`);
  if (expect.json !== undefined && text !== expect.json) {
    problems.push(`body ${preview(text)}, expected ${preview(expect.json)}`);
  }
  if (expect.api) problems.push(...apiPayloadProblems(text, expect.api));
  return problems;
}

/** One request on its own connection (Connection: close), read back strictly. */
export async function ask(
  host: string,
  port: number,
  method: string,
  path: string,
  headers: Headers,
  timeoutMs: number,
): Promise<Answer> {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}:${port}`, "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return rawExchange(host, port, lines.join("\r\n"), timeoutMs);
}

interface Step {
  readonly check: string;
  readonly method?: string;
  readonly path: string;
  readonly headers?: Headers;
  readonly expect: WireExpectation;
}

type Asker = (method: string, path: string, headers: Headers) => Promise<Answer>;

/** Runs `step`; its violations, and the answer when there was one. */
async function run(send: Asker, step: Step): Promise<[Violation[], Answer | undefined]> {
  try {
    const answer = await send(step.method ?? "GET", step.path, step.headers ?? {});
    const problems = wireProblems(answer, step.expect);
    return [problems.map((detail) => ({ check: step.check, detail })), answer];
  } catch (error) {
    return [[{ check: step.check, detail: `request failed: ${describeError(error)}` }], undefined];
  }
}

async function runAll(send: Asker, steps: readonly Step[]): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const step of steps) violations.push(...(await run(send, step))[0]);
  return violations;
}

const errorJson = (message: string) => JSON.stringify(errorBody(message));

function corsSteps(app: AppSpec): Step[] {
  const preflight = (origin: string) => ({
    origin,
    "access-control-request-method": "GET",
  });
  return [
    {
      check: "CORS: a preflight from the allowed origin is 204 with the exact Allow headers",
      method: "OPTIONS",
      path: MIDDLEWARE_ROUTES.public,
      headers: preflight(CORS.allowedOrigin),
      expect: {
        status: 204,
        empty: true,
        headers: {
          "access-control-allow-origin": CORS.allowedOrigin,
          "access-control-allow-methods": CORS.allowMethods,
          "access-control-allow-headers": CORS.allowHeaders,
          "access-control-max-age": String(CORS.maxAgeSec),
        },
      },
    },
    {
      check: "CORS: a preflight from another origin gets no Access-Control-Allow-Origin",
      method: "OPTIONS",
      path: MIDDLEWARE_ROUTES.public,
      headers: preflight(CORS.otherOrigin),
      expect: { headers: { "access-control-allow-origin": null } },
    },
    {
      check: "CORS: GET /api/public from the allowed origin is the api payload, allowed",
      path: MIDDLEWARE_ROUTES.public,
      headers: { origin: CORS.allowedOrigin },
      expect: {
        status: 200,
        api: app,
        headers: { "access-control-allow-origin": CORS.allowedOrigin },
      },
    },
    {
      check: "CORS: GET /api/public from another origin is not allowed",
      path: MIDDLEWARE_ROUTES.public,
      headers: { origin: CORS.otherOrigin },
      expect: { status: 200, api: app, headers: { "access-control-allow-origin": null } },
    },
  ];
}

const GZIP_STEPS: readonly Step[] = [
  {
    check: `gzip: GET ${MIDDLEWARE_PATHS.gzip} accepting gzip is the items, gzip-compressed`,
    path: MIDDLEWARE_PATHS.gzip,
    headers: { "accept-encoding": "gzip" },
    expect: { status: 200, gzip: true, json: ITEMS_JSON, headers: { vary: VARY_ACCEPT_ENCODING } },
  },
  {
    check: `gzip: GET ${MIDDLEWARE_PATHS.gzip} without Accept-Encoding is the items, uncompressed`,
    path: MIDDLEWARE_PATHS.gzip,
    expect: { status: 200, gzip: false, json: ITEMS_JSON },
  },
];

/**
 * The routes that were there before the middleware carry none of it: asked with everything the
 * middleware answers to, they still answer plainly (no gzip, no ETag, no CORS header).
 */
function plainSteps(app: AppSpec): Step[] {
  const everything: Headers = {
    origin: CORS.allowedOrigin,
    "accept-encoding": "gzip",
    // Not "*": RFC 9110 lets any server answer it 304 (Express does, with no ETag at all).
    "if-none-match": '"some-tag"',
  };
  const none = { etag: null, "access-control-allow-origin": null };
  return [
    {
      check: `plain routes: GET ${ROUTES.api} gets no middleware`,
      path: ROUTES.api,
      headers: everything,
      expect: { status: 200, gzip: false, api: app, headers: none },
    },
    {
      check: `plain routes: GET ${ROUTES.items}?count=${MIDDLEWARE_ITEMS} gets no middleware`,
      path: `${ROUTES.items}?count=${MIDDLEWARE_ITEMS}`,
      headers: everything,
      expect: { status: 200, gzip: false, json: ITEMS_JSON, headers: none },
    },
  ];
}

/**
 * The ETag follows the body: another count's items have another tag, and this count's tag
 * does not match them (a constant tag would make the etag scenario hash nothing).
 */
async function etagFollowsBody(send: Asker, etag: string): Promise<Violation[]> {
  const count = MIDDLEWARE_ITEMS - 1;
  const path = `${MIDDLEWARE_ROUTES.etagItems}?count=${count}`;
  const check = `etag: GET ${path} has another ETag, and ${MIDDLEWARE_PATHS.etag}'s does not match it`;
  const full: WireExpectation = {
    status: 200,
    gzip: false,
    json: JSON.stringify(buildItems(count)),
    headers: { etag: ETAG },
  };
  const [violations, answer] = await run(send, { check, path, expect: full });
  const other = answer?.headers.get("etag");
  if (other === undefined) return violations;
  if (other === etag) violations.push({ check, detail: `the same ETag ${etag} for both` });
  return [
    ...violations,
    ...(await runAll(send, [
      {
        check,
        path,
        headers: { "if-none-match": etag },
        expect: { ...full, headers: { etag: other } },
      },
    ])),
  ];
}

/**
 * A conditional route: its ETag, then the same ETag as If-None-Match is 304 with no body (and
 * the `kept` headers), and another tag is the full answer again, with the same ETag.
 */
async function conditional(
  send: Asker,
  name: string,
  path: string,
  headers: Headers,
  full: WireExpectation,
  kept: Headers = {},
): Promise<Violation[]> {
  const first = `${name}: GET ${path} has an ETag`;
  const [violations, answer] = await run(send, {
    check: first,
    path,
    headers,
    expect: { ...full, headers: { ...full.headers, etag: ETAG } },
  });
  const etag = answer?.headers.get("etag");
  if (etag === undefined) return violations;
  return [
    ...violations,
    ...(name === "etag" ? await etagFollowsBody(send, etag) : []),
    ...(await runAll(send, [
      {
        check: `${name}: If-None-Match with its ETag is 304, no body, the same ETag`,
        path,
        headers: { ...headers, "if-none-match": etag },
        expect: { status: 304, empty: true, headers: { ...kept, etag } },
      },
      {
        check: `${name}: If-None-Match with another tag is the full answer`,
        path,
        headers: { ...headers, "if-none-match": '"another-tag"' },
        expect: { ...full, headers: { ...full.headers, etag } },
      },
    ])),
  ];
}

async function stackViolations(send: Asker): Promise<Violation[]> {
  const allowed = { "access-control-allow-origin": CORS.allowedOrigin };
  const full: WireExpectation = {
    status: 200,
    gzip: true,
    json: JSON.stringify(stackPayload()),
    headers: { ...allowed, vary: VARY_ACCEPT_ENCODING },
  };
  const { authorization: _, ...anonymous } = STACK_HEADERS;
  return [
    ...(await conditional(send, "stack", MIDDLEWARE_ROUTES.stackMe, STACK_HEADERS, full, allowed)),
    ...(await runAll(send, [
      {
        check: "stack: no token is 401, with the CORS header (CORS runs before auth)",
        path: MIDDLEWARE_ROUTES.stackMe,
        headers: anonymous,
        expect: { status: 401, json: errorJson(ERRORS.unauthorized), headers: allowed },
      },
    ])),
  ];
}

/**
 * RATE_LIMIT.max + 1 requests to /api/limited, then one to /api/test, pipelined on one
 * connection (with workers, one connection is one worker's): the first max are the api payload,
 * the next is 429 with Retry-After, and other routes are not limited. Then, on a new
 * connection (one process only), /api/limited is still 429: the key is the address.
 */
async function rateLimitViolations(
  host: string,
  port: number,
  app: AppSpec,
  timeoutMs: number,
  processes: number,
): Promise<Violation[]> {
  const check = `ratelimit: ${RATE_LIMIT.max} requests to ${MIDDLEWARE_ROUTES.limited}, then 429`;
  const head = (path: string, last = false) =>
    `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n${last ? "Connection: close\r\n" : ""}\r\n`;
  const requests = [
    ...Array.from({ length: RATE_LIMIT.max + 1 }, () => head(MIDDLEWARE_ROUTES.limited)),
    head(ROUTES.api, true),
  ];
  let answers: Answer[];
  try {
    answers = parseStrict(await rawText(host, port, requests.join(""), timeoutMs));
  } catch (error) {
    return [{ check, detail: `request failed: ${describeError(error)}` }];
  }
  if (answers.length !== requests.length) {
    return [{ check, detail: `${answers.length} answers to ${requests.length} requests` }];
  }
  const allowed: WireExpectation = { status: 200, api: app };
  const limited: WireExpectation = {
    status: 429,
    json: errorJson(ERRORS.tooManyRequests),
    headers: { "retry-after": /^[1-9]\d*$/ },
  };
  const violations: Violation[] = [];
  answers.forEach((answer, i) => {
    const expect = i === RATE_LIMIT.max ? limited : allowed;
    const problems = wireProblems(answer, expect);
    const retry = Number(answer.headers.get("retry-after"));
    if (expect === limited && retry > RATE_LIMIT.windowSec) {
      problems.push(`retry-after ${retry} s is longer than the ${RATE_LIMIT.windowSec} s window`);
    }
    if (i === 0 && answer.status === 429) problems.push("the app is not fresh: restart it first");
    for (const detail of problems) violations.push({ check, detail: `answer ${i + 1}: ${detail}` });
  });
  // With workers, a new connection may reach another process, with a limit of its own.
  if (processes > 1) return violations;
  const [again] = await run(
    (method, path, headers) => ask(host, port, method, path, headers, timeoutMs),
    {
      check: "ratelimit: the limit is the client address's, so a new connection is still limited",
      path: MIDDLEWARE_ROUTES.limited,
      expect: limited,
    },
  );
  return [...violations, ...again];
}

/**
 * Every middleware route's checks; empty when the app conforms. Spends the rate limit (of one
 * process, when `processes` serve the port).
 */
export async function checkMiddleware(
  host: string,
  port: number,
  app: AppSpec,
  timeoutMs: number,
  processes = 1,
): Promise<Violation[]> {
  const send: Asker = (method, path, headers) => ask(host, port, method, path, headers, timeoutMs);
  const itemsAnswer: WireExpectation = { status: 200, gzip: false, json: ITEMS_JSON };
  return [
    ...(await runAll(send, plainSteps(app))),
    ...(await runAll(send, corsSteps(app))),
    ...(await runAll(send, GZIP_STEPS)),
    ...(await conditional(send, "etag", MIDDLEWARE_PATHS.etag, {}, itemsAnswer)),
    ...(await stackViolations(send)),
    ...(await rateLimitViolations(host, port, app, timeoutMs, processes)),
  ];
}

/** The ETag a conditional route gives now: what the etag scenario sends as If-None-Match. */
export async function currentEtag(
  host: string,
  port: number,
  path: string,
  headers: Headers,
  timeoutMs = 10_000,
): Promise<string | undefined> {
  return (await ask(host, port, "GET", path, headers, timeoutMs)).headers.get("etag");
}
