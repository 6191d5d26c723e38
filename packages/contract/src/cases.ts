// Every request the contract defines, with the exact answer expected. verify() sends them over
// the network; app tests send them in-process; the hostile-input check reuses the bad ones.

import { ECHO_BODY } from "./fixtures.ts";
import { ERRORS, GREETING, MAX_BODY_BYTES, MAX_JSON_DEPTH, ROUTES } from "./spec.ts";

export interface CaseRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface CaseExpectation {
  readonly status: number;
  readonly mediaType: "application/json" | "text/plain";
  /** Exact body text; undefined when the body is dynamic and checked separately. */
  readonly body?: string;
}

export interface ContractCase {
  readonly name: string;
  /** True for requests a client gets wrong: the hostile-input check sends these in bulk. */
  readonly bad: boolean;
  readonly request: CaseRequest;
  readonly expect: CaseExpectation;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/** A JSON object whose serialization is exactly `bytes` long (ASCII only). */
export function jsonOfSize(bytes: number): string {
  const overhead = '{"pad":""}'.length;
  return JSON.stringify({ pad: "x".repeat(bytes - overhead) });
}

const error = (status: number, message: string): CaseExpectation => ({
  status,
  mediaType: "application/json",
  body: JSON.stringify({ error: message }),
});

const echoes = (body: string): CaseExpectation => ({
  status: 200,
  mediaType: "application/json",
  body,
});

/** `depth` arrays, one inside the other. */
export function nestedArrays(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

const nestedValue = JSON.stringify([1, "two", { three: [3, 3.5, -3e-7] }, null, true, false, ""]);

export const CASES: readonly ContractCase[] = [
  {
    name: "GET / answers the greeting as text/plain",
    bad: false,
    request: { method: "GET", path: ROUTES.root },
    expect: { status: 200, mediaType: "text/plain", body: GREETING },
  },
  {
    name: "GET /api/test answers the runtime identity as JSON",
    bad: false,
    request: { method: "GET", path: ROUTES.api },
    expect: { status: 200, mediaType: "application/json" },
  },
  {
    name: "POST /api/echo returns the fixture unchanged",
    bad: false,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: ECHO_BODY },
    expect: echoes(ECHO_BODY),
  },
  {
    name: "POST /api/echo accepts application/json; charset=utf-8",
    bad: false,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: ECHO_BODY,
    },
    expect: echoes(ECHO_BODY),
  },
  {
    name: "POST /api/echo returns an array value unchanged",
    bad: false,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: nestedValue },
    expect: echoes(nestedValue),
  },
  {
    name: "POST /api/echo accepts a body of exactly the limit",
    bad: false,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: JSON_HEADERS,
      body: jsonOfSize(MAX_BODY_BYTES),
    },
    expect: echoes(jsonOfSize(MAX_BODY_BYTES)),
  },
  {
    name: "POST /api/echo accepts nesting of exactly the depth limit",
    bad: false,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: JSON_HEADERS,
      body: nestedArrays(MAX_JSON_DEPTH),
    },
    expect: echoes(nestedArrays(MAX_JSON_DEPTH)),
  },
  {
    name: "malformed JSON is 400",
    bad: true,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: '{"a": 1,' },
    expect: error(400, ERRORS.malformedJson),
  },
  {
    name: "an empty JSON body is 400",
    bad: true,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: "" },
    expect: error(400, ERRORS.malformedJson),
  },
  {
    name: "a JSON primitive is 400 (echo takes an object or an array)",
    bad: true,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: '"just a string"' },
    expect: error(400, ERRORS.notDocument),
  },
  {
    name: "JSON null is 400",
    bad: true,
    request: { method: "POST", path: ROUTES.echo, headers: JSON_HEADERS, body: "null" },
    expect: error(400, ERRORS.notDocument),
  },
  {
    name: "JSON nested one level past the limit is 400",
    bad: true,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: JSON_HEADERS,
      body: nestedArrays(MAX_JSON_DEPTH + 1),
    },
    expect: error(400, ERRORS.tooDeep),
  },
  {
    name: "JSON nested 100,000 deep is 400 (would overflow JSON.stringify)",
    bad: true,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: JSON_HEADERS,
      body: nestedArrays(100_000),
    },
    expect: error(400, ERRORS.tooDeep),
  },
  {
    name: "text/plain on a JSON route is 415",
    bad: true,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: { "content-type": "text/plain" },
      body: '{"a":1}',
    },
    expect: error(415, ERRORS.notJson),
  },
  {
    name: "a JSON route without Content-Type is 415",
    bad: true,
    request: { method: "POST", path: ROUTES.echo, body: '{"a":1}' },
    expect: error(415, ERRORS.notJson),
  },
  {
    name: "a body one byte over the limit is 413",
    bad: true,
    request: {
      method: "POST",
      path: ROUTES.echo,
      headers: JSON_HEADERS,
      body: jsonOfSize(MAX_BODY_BYTES + 1),
    },
    expect: error(413, ERRORS.tooLarge),
  },
  {
    name: "an unknown path is 404",
    bad: true,
    request: { method: "GET", path: "/no/such/path" },
    expect: error(404, ERRORS.notFound),
  },
  {
    name: "a known path with the wrong method is 404 (DELETE /api/test)",
    bad: true,
    request: { method: "DELETE", path: ROUTES.api },
    expect: error(404, ERRORS.notFound),
  },
  {
    name: "a known path with the wrong method is 404 (GET /api/echo)",
    bad: true,
    request: { method: "GET", path: ROUTES.echo },
    expect: error(404, ERRORS.notFound),
  },
  {
    name: "a known path with the wrong method is 404 (POST /)",
    bad: true,
    request: { method: "POST", path: ROUTES.root, headers: JSON_HEADERS, body: "{}" },
    expect: error(404, ERRORS.notFound),
  },
];
