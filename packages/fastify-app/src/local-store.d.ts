// @fastify/rate-limit's in-memory store, which its package types do not describe.
declare module "@fastify/rate-limit/store/LocalStore.js" {
  import type { FastifyRateLimitStore } from "@fastify/rate-limit";

  export default class LocalStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr: FastifyRateLimitStore["incr"];
  }
}
