/// <reference path="./local-store.d.ts" />
// @fastify/rate-limit's own in-memory store (its default), answering with a copy of a client's
// count. The store hands the limiter the very object it keeps, and the limiter reads the count
// only after an await. Node's HTTP parser emits every request pipelined in one read before any
// such await resumes (Deno's node:http too), so all of them were counted before the first read
// its count: eleven pipelined requests were all refused, the first ten included. A bug of
// @fastify/rate-limit 11.2.0 (Bun's node:http, one request at a time, shows none): this file
// can go when the plugin copies the count itself.

import type { FastifyRateLimitOptions, FastifyRateLimitStore } from "@fastify/rate-limit";
import LocalStore from "@fastify/rate-limit/store/LocalStore.js";

type Options = FastifyRateLimitOptions & {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
};

/** The `store` option: the plugin constructs it with its options, as it does a custom store. */
export class SnapshotStore implements FastifyRateLimitStore {
  readonly #store: LocalStore;

  constructor(options: Options) {
    this.#store = new LocalStore(
      options.continueExceeding ?? false,
      options.exponentialBackoff ?? false,
    );
  }

  incr(...[key, callback, timeWindow, max]: Parameters<FastifyRateLimitStore["incr"]>): void {
    this.#store.incr(
      key,
      (error, count) => callback(error, count && { current: count.current, ttl: count.ttl }),
      timeWindow,
      max,
    );
  }

  /** A store of its own per route (a route's `config.rateLimit`), as the plugin's store does. */
  child(options: Options): FastifyRateLimitStore {
    return new SnapshotStore(options);
  }
}
