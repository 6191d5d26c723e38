// Every request the contract defines, with the exact answer expected. verify() sends them over
// the network; app tests send them in-process; the hostile-input check reuses the bad ones.

import { randomBytes } from "node:crypto";
import {
  buildItems,
  ITEMS_DEFAULT,
  ITEMS_MAX,
  NAME_MAX,
  selectUserFields,
  USER_UPDATE_FIXTURE,
  userById,
} from "../spec/data.ts";
import {
  ERRORS,
  GREETING,
  invalidFieldError,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  ROUTES,
  unknownFieldError,
  userPath,
} from "../spec/endpoints.ts";
import { ECHO_BODY } from "../spec/fixtures.ts";
import { bearer, MIDDLEWARE_ROUTES, mePayload, signJwt, TOKENS } from "../spec/middleware.ts";
import type { CaseExpectation, ContractCase } from "./case.ts";
import { streamCases } from "./stream-cases.ts";

export type { CaseExpectation, CaseRequest, ContractCase } from "./case.ts";

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

const json = (value: unknown): CaseExpectation => ({
  status: 200,
  mediaType: "application/json",
  body: JSON.stringify(value),
});

function paramsCases(): ContractCase[] {
  const get = (name: string, path: string, expect: CaseExpectation, bad = false): ContractCase => ({
    name,
    bad,
    request: { method: "GET", path },
    expect,
  });
  return [
    get(
      "GET /api/users/42?fields=name,email selects fields",
      `${userPath(42)}?fields=name,email`,
      json(selectUserFields(userById(42), ["name", "email"])),
    ),
    get("GET /api/users/7 without fields returns all", userPath(7), json(userById(7))),
    get(
      "fields come back in the contract's order, not the query's",
      `${userPath(1234567)}?fields=age,name,age`,
      json(selectUserFields(userById(1234567), ["name", "age"])),
    ),
    ...["abc", "1.5", "0", "-3", "1e3", "99999999999", "2147483648"].map((id) =>
      get(`a user id of "${id}" is 400`, userPath(id), error(400, ERRORS.badUserId), true),
    ),
    get(
      "an unknown field is 400 naming it",
      `${userPath(42)}?fields=name,password`,
      error(400, unknownFieldError("password")),
      true,
    ),
    get("GET /api/users without an id is 404", "/api/users", error(404, ERRORS.notFound), true),
    get("a path below a user is 404", `${userPath(42)}/extra`, error(404, ERRORS.notFound), true),
  ];
}

function validateCases(): ContractCase[] {
  const fixture = USER_UPDATE_FIXTURE;
  const post = (
    name: string,
    body: unknown,
    expect: CaseExpectation,
    id: string | number = 42,
  ) => ({
    name,
    bad: expect.status !== 200,
    request: {
      method: "POST",
      path: userPath(id),
      headers: JSON_HEADERS,
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    expect,
  });
  const { name: _name, ...noName } = fixture;
  const { lastUpdate: _lastUpdate, ...noDate } = fixture;
  const updated: CaseExpectation = {
    status: 200,
    mediaType: "application/json",
    dynamic: "userUpdate",
  };
  return [
    post("POST /api/users/42 validates and returns the user, lastUpdate now", fixture, updated),
    post("unknown properties of a user update are dropped", { ...fixture, admin: true }, updated),
    post("a missing name is 400 naming it", noName, error(400, invalidFieldError("name"))),
    post("an empty name is 400", { ...fixture, name: "" }, error(400, invalidFieldError("name"))),
    post(
      `a name over ${NAME_MAX} characters is 400`,
      { ...fixture, name: "x".repeat(NAME_MAX + 1) },
      error(400, invalidFieldError("name")),
    ),
    post(
      "a numeric surname is 400",
      { ...fixture, surname: 7 },
      error(400, invalidFieldError("surname")),
    ),
    post("a missing lastUpdate is 400", noDate, error(400, invalidFieldError("lastUpdate"))),
    post(
      "a lastUpdate that is no date is 400",
      { ...fixture, lastUpdate: "yesterday" },
      error(400, invalidFieldError("lastUpdate")),
    ),
    post(
      "an id given as a string is 400",
      { ...fixture, id: "42" },
      error(400, invalidFieldError("id")),
    ),
    post(
      "an id unlike the path's is 400",
      { ...fixture, id: 43 },
      error(400, invalidFieldError("id")),
    ),
    post("a user update that is an array is 400", [fixture], error(400, ERRORS.notObject)),
    post("a user update with a bad path id is 400", fixture, error(400, ERRORS.badUserId), "x1"),
    post("malformed JSON on a user update is 400", '{"id": 42,', error(400, ERRORS.malformedJson)),
    {
      name: "text/plain on a user update is 415",
      bad: true,
      request: {
        method: "POST",
        path: userPath(42),
        headers: { "content-type": "text/plain" },
        body: JSON.stringify(fixture),
      },
      expect: error(415, ERRORS.notJson),
    },
  ];
}

function largeCases(): ContractCase[] {
  const get = (name: string, query: string, expect: CaseExpectation): ContractCase => ({
    name,
    bad: expect.status !== 200,
    request: { method: "GET", path: `${ROUTES.items}${query}` },
    expect,
  });
  return [
    get("GET /api/items returns 100 items", "", json(buildItems(100))),
    // The large scenario's own request, so what is measured is what is verified.
    get(
      `GET /api/items?count=${ITEMS_DEFAULT} returns ${ITEMS_DEFAULT} items`,
      `?count=${ITEMS_DEFAULT}`,
      json(buildItems(ITEMS_DEFAULT)),
    ),
    get("GET /api/items?count=3 returns 3 items", "?count=3", json(buildItems(3))),
    get(
      `GET /api/items?count=${ITEMS_MAX} returns the most`,
      `?count=${ITEMS_MAX}`,
      json(buildItems(ITEMS_MAX)),
    ),
    ...[String(ITEMS_MAX + 1), "0", "abc", "-1", "1.5", ""].map((count) =>
      get(`a count of "${count}" is 400`, `?count=${count}`, error(400, ERRORS.badCount)),
    ),
  ];
}

/** A user no app can know in advance: named anew in each process that checks the contract. */
const FRESH_USER = {
  sub: `user-${randomBytes(6).toString("hex")}`,
  name: `Fresh ${randomBytes(3).toString("hex")}`,
} as const;

/**
 * GET /api/me: the framework's JWT middleware checks the HS256 signature and `exp`. Every
 * token but the valid one is 401 with the same JSON body, whatever the middleware's own words.
 */
function authCases(): ContractCase[] {
  type User = { readonly sub: string; readonly name: string };
  const get = (name: string, authorization: string | undefined, user?: User): ContractCase => ({
    name,
    bad: user === undefined,
    request: {
      method: "GET",
      path: MIDDLEWARE_ROUTES.me,
      ...(authorization === undefined ? {} : { headers: { authorization } }),
    },
    expect: user ? json(user) : error(401, ERRORS.unauthorized),
  });
  return [
    get(
      "GET /api/me with a valid bearer token answers its sub and name",
      bearer(TOKENS.valid),
      mePayload(),
    ),
    get(
      "GET /api/me with a token for a user named afresh answers that user (no fixed answer)",
      bearer(signJwt({ ...FRESH_USER, exp: Math.floor(Date.now() / 1000) + 86_400 })),
      FRESH_USER,
    ),
    get("GET /api/me without Authorization is 401", undefined),
    get("GET /api/me with Basic credentials is 401", "Basic dXNlcjpwYXNzd29yZA=="),
    get("GET /api/me with a token that is no JWT is 401", bearer(TOKENS.malformed)),
    get("GET /api/me with an expired token is 401", bearer(TOKENS.expired)),
    get("GET /api/me with a token signed by another secret is 401", bearer(TOKENS.wrongSignature)),
    get('GET /api/me with an unsigned ("alg": "none") token is 401', bearer(TOKENS.unsigned)),
  ];
}

/**
 * HEAD on every GET route answers as GET would, without a body: RFC 9110 (9.3.2) asks
 * general-purpose servers to support HEAD wherever GET is. The status is GET's; so is the
 * Content-Type when there is one (the RFC lets a HEAD answer leave it out, and Bun.serve does
 * for a `new Response(string)`); the body is empty on the wire (in-process, the server layer
 * removes it).
 */
function headCases(): ContractCase[] {
  const head = (path: string, mediaType: CaseExpectation["mediaType"]): ContractCase => ({
    name: `HEAD ${path} answers as GET does, without a body`,
    bad: false,
    request: { method: "HEAD", path },
    expect: { status: 200, mediaType, mediaTypeOptional: true, body: "" },
  });
  return [
    head(ROUTES.root, "text/plain"),
    head(ROUTES.api, "application/json"),
    head(`${userPath(42)}?fields=name,email`, "application/json"),
    head(`${ROUTES.items}?count=3`, "application/json"),
  ];
}

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
    expect: { status: 200, mediaType: "application/json", dynamic: "api" },
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
  ...paramsCases(),
  ...validateCases(),
  ...largeCases(),
  ...headCases(),
  ...authCases(),
  ...streamCases(),
];
