// The endpoints and the exact answers every app must give. Apps build their bodies from these
// values so that responses are byte-identical across apps for the same request.

import { ITEMS_MAX, MAX_USER_ID } from "./data.ts";
import type { Framework } from "./registry.ts";
import { detectRuntime } from "./runtime.ts";

export const GREETING = "Hello, World!";
export const API_MESSAGE = "Hello from the benchmark API";

/** Largest request body any app accepts; one byte more is answered 413. */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * Deepest nesting echo accepts. JSON.parse copes with any depth, but JSON.stringify recurses:
 * 100,000 nested arrays (200 KB, well under the size limit) overflow its stack and crashed
 * node-bare and hung bun-elysia before this limit existed.
 */
export const MAX_JSON_DEPTH = 64;

export const ROUTES = {
  root: "/",
  api: "/api/test",
  echo: "/api/echo",
  /** GET: a user, `?fields=` selects fields; POST: validate an update of that user. */
  user: "/api/users/:id",
  items: "/api/items",
} as const;

/** ROUTES.user with a concrete id. */
export const userPath = (id: number | string) => ROUTES.user.replace(":id", String(id));

export const ERRORS = {
  malformedJson: "Malformed JSON body",
  notDocument: "Body must be a JSON object or array",
  notObject: "Body must be a JSON object",
  badUserId: `id must be an integer from 1 to ${MAX_USER_ID}`,
  badCount: `count must be an integer from 1 to ${ITEMS_MAX}`,
  tooDeep: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
  notJson: "Content-Type must be application/json",
  tooLarge: `Body exceeds ${MAX_BODY_BYTES} bytes`,
  bodyUnreadable: "Request body could not be read",
  notFound: "Not Found",
  /** Any request to an auth route whose token is missing, malformed, expired or forged. */
  unauthorized: "Invalid or missing token",
  /** Over the rate limit. */
  tooManyRequests: "Too many requests",
  internal: "Internal Server Error",
} as const;

/** `?fields=` named a field users do not have. */
export const unknownFieldError = (field: string) => `Unknown field: ${field}`;

/** A user update broke the rule for this field (the first such field, in USER_UPDATE_RULES order). */
export const invalidFieldError = (field: string) => `Invalid field: ${field}`;

export type ErrorMessage = string;

export interface ErrorBody {
  readonly error: ErrorMessage;
}

export function errorBody(message: ErrorMessage): ErrorBody {
  return { error: message };
}

/** `application/json`, with or without parameters such as `; charset=utf-8`, in any case. */
export function isJsonContentType(header: string | null | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(";");
  const mediaType = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  return mediaType === "application/json";
}

export interface ApiPayload {
  readonly message: string;
  readonly runtime: string;
  readonly version: string;
  readonly framework: Framework;
  readonly timestamp: number;
}

// Read once at startup: the running process cannot change runtime under us.
const RUNTIME = detectRuntime();

/**
 * Why echo refuses a parsed JSON value, or undefined when it accepts it: echo takes a document
 * (an object or an array, not a bare string or number) nested at most MAX_JSON_DEPTH deep.
 */
export function jsonDocumentError(value: unknown): ErrorMessage | undefined {
  if (typeof value !== "object" || value === null) return ERRORS.notDocument;
  return nestedTooDeep(value, 1) ? ERRORS.tooDeep : undefined;
}

/**
 * Recursive, and safe: it never descends past MAX_JSON_DEPTH + 1 levels, however deep the
 * value (100,000 nested arrays stop at level 65). Indexes and keys are walked in place, with
 * no array per node: about a third of the cost of the explicit-stack walk it replaced (0.14
 * against 0.47 µs for the echo fixture on Bun, 0.5 against 1.1 µs on Deno), on every echo
 * request of every app.
 */
function nestedTooDeep(node: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === "object" && child !== null && nestedTooDeep(child, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  const fields = node as Record<string, unknown>;
  for (const key in fields) {
    const child = fields[key];
    if (typeof child === "object" && child !== null && nestedTooDeep(child, depth + 1)) {
      return true;
    }
  }
  return false;
}

/** The body of GET /api/test; the key order is part of the contract (identical bytes). */
export function apiPayload(framework: Framework): ApiPayload {
  return {
    message: API_MESSAGE,
    runtime: RUNTIME.name,
    version: RUNTIME.version,
    framework,
    timestamp: Date.now(),
  };
}
