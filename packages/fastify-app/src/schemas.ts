// The JSON schemas of the Fastify app: the user update's rules (Ajv checks them before the
// handler runs) and the shape of every 200 answer, from which fast-json-stringify compiles a
// serializer. Key order is the schemas' order, which is the contract's.

import { NAME_MAX } from "@bench/contract";

const string = { type: "string" } as const;
const integer = { type: "integer" } as const;
const name = { type: "string", minLength: 1, maxLength: NAME_MAX } as const;

const ok = (schema: object) => ({ response: { 200: schema } });

const api = {
  type: "object",
  properties: {
    message: string,
    runtime: string,
    version: string,
    framework: string,
    timestamp: integer,
  },
} as const;

// Every field is optional in the answer: `?fields=` selects them.
const user = {
  type: "object",
  properties: { id: integer, name: string, email: string, city: string, age: integer },
} as const;

const updated = {
  type: "object",
  properties: { id: integer, name: string, surname: string, lastUpdate: string },
} as const;

const item = {
  type: "object",
  properties: {
    id: integer,
    sku: string,
    name: string,
    description: string,
    price: { type: "number" },
    currency: string,
    inStock: { type: "boolean" },
    rating: { type: "number" },
    tags: { type: "array", items: string },
  },
} as const;

/** Who a bearer token names: GET /api/me. */
const me = { type: "object", properties: { sub: string, name: string } } as const;

/** GET /api/stack/me: who the token names, and their recent items. */
const stack = {
  type: "object",
  properties: { sub: string, name: string, items: { type: "array", items: item } },
} as const;

/** The update as the contract words its rules: a whole number, two names, an ISO date-time. */
const userUpdate = {
  type: "object",
  required: ["id", "name", "surname", "lastUpdate"],
  properties: {
    id: integer,
    name,
    surname: name,
    lastUpdate: { type: "string", format: "date-time" },
  },
  additionalProperties: false,
} as const;

const world = { type: "object", properties: { id: integer, randomNumber: integer } } as const;

export const SCHEMAS = {
  api: ok(api),
  user: ok(user),
  userUpdate: { body: userUpdate, ...ok(updated) },
  items: ok({ type: "array", items: item }),
  me: ok(me),
  stack: ok(stack),
  world: ok(world),
  worlds: ok({ type: "array", items: world }),
} as const;
