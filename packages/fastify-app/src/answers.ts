// The answers the plain routes (index.ts) and the middleware routes (middleware.ts) share: the
// contract's error JSON, a query parameter as one string, and the items list.

import { buildItems, ERRORS, type ErrorMessage, errorBody, parseItemCount } from "@bench/contract";
import type { FastifyReply, FastifyRequest } from "fastify";

export const fail = (reply: FastifyReply, status: number, message: ErrorMessage | string) =>
  reply.code(status).send(errorBody(message as ErrorMessage));

export type Query = { Querystring: Record<string, string | string[] | undefined> };

/** A query parameter as one string; a repeated one (`?count=1&count=2`) is not one. */
export const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? "" : value;

/** GET `?count=`: the items, or the contract's 400 for a count it refuses. */
export function items(req: FastifyRequest<Query>, reply: FastifyReply) {
  const count = parseItemCount(single(req.query.count));
  if (count === undefined) return fail(reply, 400, ERRORS.badCount);
  return buildItems(count);
}
