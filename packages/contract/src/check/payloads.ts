// What the dynamic answers must contain: GET /api/test's runtime identity and POST
// /api/users/:id's echo of the update. Used by verify() and by the raw-wire checks (wire.ts).

import type { UserUpdate } from "../spec/data.ts";
import { API_MESSAGE } from "../spec/endpoints.ts";
import type { AppSpec } from "../spec/registry.ts";

const API_KEYS = ["message", "runtime", "version", "framework", "timestamp"];
const USER_KEYS = ["id", "name", "surname", "lastUpdate"];

export function preview(text: string): string {
  return text.length > 120
    ? `${JSON.stringify(text.slice(0, 100))}… (${text.length} chars)`
    : JSON.stringify(text);
}

/** Problems with a GET /api/test body for `app`; empty when it is right. */
export function apiPayloadProblems(text: string, app: AppSpec): string[] {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${preview(text)}`];
  }
  const problems: string[] = [];
  const keys = Object.keys(body ?? {});
  if (keys.join() !== API_KEYS.join()) {
    problems.push(`keys [${keys}], expected [${API_KEYS}] in that order`);
  }
  if (body.message !== API_MESSAGE) problems.push(`message ${JSON.stringify(body.message)}`);
  if (body.runtime !== app.runtime) {
    problems.push(
      `runtime identity: ${app.name} must be served by ${app.runtime}, but the process reports ` +
        `${JSON.stringify(body.runtime)} ${String(body.version)}`,
    );
  }
  if (typeof body.version !== "string" || !/^\d+\.\d+\.\d+/.test(body.version)) {
    problems.push(`version ${JSON.stringify(body.version)} is not a runtime version`);
  }
  if (body.framework !== app.framework) {
    problems.push(`framework ${JSON.stringify(body.framework)}, expected "${app.framework}"`);
  }
  const ts = body.timestamp;
  if (typeof ts !== "number" || !Number.isInteger(ts) || Math.abs(ts - Date.now()) > 60_000) {
    problems.push(`timestamp ${JSON.stringify(ts)} is not the current time in milliseconds`);
  }
  return problems;
}

/** Problems with a POST /api/users/:id answer to `sent`; empty when it is right. */
export function userUpdateProblems(text: string, sent: string): string[] {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${preview(text)}`];
  }
  const { id, name, surname } = JSON.parse(sent) as UserUpdate;
  const problems: string[] = [];
  const keys = Object.keys(body ?? {});
  if (keys.join() !== USER_KEYS.join())
    problems.push(`keys [${keys}], expected [${USER_KEYS}] in that order`);
  if (body.id !== id || body.name !== name || body.surname !== surname) {
    problems.push(`id/name/surname ${preview(text)} differ from what was sent`);
  }
  const stamp = body.lastUpdate;
  if (
    typeof stamp !== "string" ||
    !stamp.endsWith("Z") ||
    Math.abs(Date.parse(stamp) - Date.now()) > 60_000
  ) {
    problems.push(`lastUpdate ${JSON.stringify(stamp)} is not now as an ISO date-time (UTC)`);
  }
  return problems;
}

/** An error's message, for a violation's detail. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
