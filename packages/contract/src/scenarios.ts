// What the harness can measure: one request each, sent identically by every load generator.
// The request of a scenario is also a contract case, so verify() has checked its answer
// before any load is applied.

import { ITEMS_DEFAULT, USER_UPDATE_FIXTURE } from "./data.ts";
import { ECHO_BODY } from "./fixtures.ts";
import { ROUTES, userPath } from "./spec.ts";

export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly contentType?: string;
  readonly body?: string;
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
] as const satisfies readonly Scenario[];

export type ScenarioName = (typeof SCENARIOS)[number]["name"];

export const DEFAULT_SCENARIO: ScenarioName = "api";

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
