// The user-update rules written out by hand, for the bare apps (the frameworks use their own
// schema validators for the same rules, as their users would).

import { NAME_MAX, type USER_UPDATE_RULES, type UserUpdate } from "../spec/data.ts";
import { ERRORS, invalidFieldError } from "../spec/endpoints.ts";

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const validName = (value: unknown) =>
  typeof value === "string" && value.length >= 1 && value.length <= NAME_MAX;

// The id's equality with the path's is checked after the path id itself, as everywhere.
const RULES: Record<keyof typeof USER_UPDATE_RULES, (value: unknown) => boolean> = {
  id: Number.isInteger,
  name: validName,
  surname: validName,
  lastUpdate: (value) =>
    typeof value === "string" && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
};

/**
 * The update, or the error message for the first rule it breaks. The order every app follows:
 * body shape and fields here, then the path's id, then that the two ids agree.
 */
export function validateUserUpdate(
  value: unknown,
): { readonly update: UserUpdate } | { readonly error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: ERRORS.notObject };
  }
  const body = value as Record<string, unknown>;
  for (const [field, rule] of Object.entries(RULES)) {
    if (!rule(body[field])) return { error: invalidFieldError(field) };
  }
  return { update: body as unknown as UserUpdate };
}
