// The production-middleware routes, met with Fastify's own plugins. Each plugin is registered in
// a child context (Fastify's encapsulation) together with the routes it serves: its hooks run on
// those routes only, and the plain routes of index.ts keep their hook-free path. The plugins
// are wrapped in fastify-plugin, so registering one directly on the app would reach every route.

import {
  apiPayload,
  buildItems,
  CORS,
  ERRORS,
  JWT_SECRET,
  MIDDLEWARE_ROUTES,
  RATE_LIMIT,
  STACK_ITEMS,
} from "@bench/contract";
import compress, { type FastifyCompressOptions } from "@fastify/compress";
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import etag from "@fastify/etag";
import jwt, { type FastifyJWTOptions } from "@fastify/jwt";
import rateLimit, { type RateLimitPluginOptions } from "@fastify/rate-limit";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fail, items, type Query } from "./answers.ts";
import { SnapshotStore } from "./rate-limit-store.ts";
import { SCHEMAS } from "./schemas.ts";

declare module "@fastify/jwt" {
  interface FastifyJWT {
    user: { sub: string; name: string };
  }
}

const CORS_OPTIONS: FastifyCorsOptions = {
  // A list: the request's Origin is compared with it and echoed when it is on it. A string
  // would be sent as Access-Control-Allow-Origin to every origin.
  origin: [CORS.allowedOrigin],
  // Strings go out as they are; the plugin would join an array with ", ".
  methods: CORS.allowMethods,
  allowedHeaders: CORS.allowHeaders,
  maxAge: CORS.maxAgeSec,
  // The strict check answers an OPTIONS without Origin with a text/plain 400 sent from inside
  // its hook, which no error handler sees to word as JSON; without it, that request is a 204
  // with no Access-Control-Allow-Origin, which grants nothing.
  strictPreflight: false,
};

const JWT_OPTIONS: FastifyJWTOptions = {
  secret: JWT_SECRET,
  // HS256 only: the algorithm is the server's choice, never the token header's.
  verify: { algorithms: ["HS256"] },
};

const COMPRESS_OPTIONS: FastifyCompressOptions = {
  // The contract's compression is gzip; by default the plugin would answer a browser's
  // `gzip, br, zstd` with zstd or brotli.
  encodings: ["gzip"],
  // These routes take no body: no per-request hook looking for a compressed one.
  globalDecompression: false,
};

// The limiter throws what errorResponseBuilder returns. A plain object, not an Error: no stack
// trace is captured per refused request. The limiter's scope answers it in the contract's words.
const RATE_LIMITED = { statusCode: 429 } as const;

const RATE_LIMIT_OPTIONS: RateLimitPluginOptions = {
  max: RATE_LIMIT.max,
  timeWindow: RATE_LIMIT.windowSec * 1000,
  // The default key is request.ip: with no trustProxy, the socket's remote address.
  errorResponseBuilder: () => RATE_LIMITED,
  // The default in-memory store, fixed for pipelined requests (rate-limit-store.ts).
  store: SnapshotStore,
};

/** @fastify/jwt's documented guard: no token, or one it refuses, is the contract's 401. */
async function authenticate(req: FastifyRequest, reply: FastifyReply) {
  try {
    await req.jwtVerify();
  } catch {
    return fail(reply, 401, ERRORS.unauthorized);
  }
}

/** Who the verified token names, from its own claims. */
const tokenUser = (req: FastifyRequest) => ({ sub: req.user.sub, name: req.user.name });

/**
 * CORS, auth, compression and ETag, in that order: the CORS hook is the scope's own (it runs
 * before the route's auth hook); @fastify/etag's onSend is the scope's too, so it tags and
 * answers 304 before @fastify/compress's onSend (a route-level hook, which comes after)
 * compresses. The tag is of the uncompressed JSON, the same whether or not the answer is gzip,
 * so it is weak (nginx weakens a strong ETag it compresses, for the same reason).
 */
async function stackScope(stack: FastifyInstance) {
  await stack.register(cors, CORS_OPTIONS);
  await stack.register(compress, COMPRESS_OPTIONS);
  await stack.register(etag, { weak: true });
  stack.get("", { schema: SCHEMAS.stack, onRequest: authenticate }, (req) => ({
    ...tokenUser(req),
    items: buildItems(STACK_ITEMS),
  }));
}

/** The JWT plugin once, for the two routes that verify a token. */
async function authScope(auth: FastifyInstance) {
  await auth.register(jwt, JWT_OPTIONS);
  auth.get(MIDDLEWARE_ROUTES.me, { schema: SCHEMAS.me, onRequest: authenticate }, tokenUser);
  await auth.register(stackScope, { prefix: MIDDLEWARE_ROUTES.stackMe });
}

/**
 * Its prefix is the route itself (as is the stack's): @fastify/cors answers preflights on an
 * `OPTIONS *` route of its own, which without a prefix would take OPTIONS on every path of the
 * app. Under one it is `OPTIONS /api/public*`: the route and paths below it, none of them
 * another route's.
 */
async function publicScope(pub: FastifyInstance) {
  await pub.register(cors, CORS_OPTIONS);
  pub.get("", { schema: SCHEMAS.api }, () => apiPayload("fastify"));
}

async function gzipScope(gzip: FastifyInstance) {
  await gzip.register(compress, COMPRESS_OPTIONS);
  gzip.get<Query>(MIDDLEWARE_ROUTES.gzipItems, { schema: SCHEMAS.items }, items);
}

async function etagScope(tagged: FastifyInstance) {
  await tagged.register(etag);
  tagged.get<Query>(MIDDLEWARE_ROUTES.etagItems, { schema: SCHEMAS.items }, items);
}

async function limitedScope(limited: FastifyInstance) {
  await limited.register(rateLimit, RATE_LIMIT_OPTIONS);
  // Any other error is thrown on to the app's error handler (the parent scope's).
  limited.setErrorHandler((error: FastifyError, _req, reply) => {
    if (error !== RATE_LIMITED) throw error;
    return fail(reply, 429, ERRORS.tooManyRequests);
  });
  limited.get(MIDDLEWARE_ROUTES.limited, { schema: SCHEMAS.api }, () => apiPayload("fastify"));
}

/** Registers the middleware routes, each plugin in a scope of its own. */
export function middlewareRoutes(app: FastifyInstance): void {
  app.register(authScope);
  app.register(publicScope, { prefix: MIDDLEWARE_ROUTES.public });
  app.register(gzipScope);
  app.register(etagScope);
  app.register(limitedScope);
}
