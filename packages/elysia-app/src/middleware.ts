// The production-middleware routes (packages/contract/src/middleware.ts) on Elysia, scoped so
// that the existing routes compile to exactly the code they had. Elysia merges what a used
// plugin's hooks read into the whole app's inference, whatever the hook's scope, and every route
// then pays for it: one plugin hook reading `headers` made GET /api/test copy all request headers,
// and elysia-rate-limit made every route async and parse cookies. So the hooks here are
// route-local options, the rate limiter lives in a guard (which keeps its own inference), and
// CORS, whose plugin is app-wide by construction, is an app of its own that the main app hands
// its two paths to.

import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import {
  apiPayload,
  buildItems,
  CORS,
  ERRORS,
  errorBody,
  JWT_SECRET,
  MIDDLEWARE_ROUTES,
  parseItemCount,
  RATE_LIMIT,
  STACK_ITEMS,
} from "@bench/contract";
import { cors } from "@elysiajs/cors";
import { jwt } from "@elysiajs/jwt";
import { type Context, Elysia, ElysiaCustomStatusResponse, status, t } from "elysia";
import { type Context as RateLimitContext, rateLimit } from "elysia-rate-limit";
import { baseApp } from "./base.ts";

/** The client's address as the runtime's server knows it: the rate limiter's key. */
export type ClientAddress = (request: Request) => string | undefined;

/**
 * @elysiajs/jwt only decorates the context with sign and verify, and Elysia copies a plugin's
 * decorators into every request's context app-wide (use, group and guard alike): the app keeps
 * the plugin's verifier itself, so the existing routes' context stays as it was. The schema types
 * the claims the answers are built from (a token without them is refused like a forged one).
 */
const tokens = jwt({
  name: "jwt",
  secret: JWT_SECRET,
  schema: t.Object({ sub: t.String(), name: t.String() }),
}).decorator.jwt;
// jose accepts any HMAC algorithm for a secret; the contract's tokens are HS256.
const VERIFY = { algorithms: ["HS256"] };

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  return header?.startsWith("Bearer ") ? header.slice(7) : undefined;
}

/**
 * `auth: true` on a route: the token's claims as `user`, or the contract's 401 before the handler
 * runs. Elysia's documented way to guard routes (a macro's resolve); only those routes run it.
 */
const auth = new Elysia({ name: "bench-auth" }).macro({
  auth: {
    async resolve({ request }) {
      const user = await tokens.verify(bearerToken(request), VERIFY);
      if (!user) return status(401, errorBody(ERRORS.unauthorized));
      return { user };
    },
  },
});

/** The handler's JSON text, when it answered data (not a status, nor a Response). */
function jsonText(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (value instanceof Response || value instanceof ElysiaCustomStatusResponse) return undefined;
  return JSON.stringify(value);
}

/** If-None-Match names `tag` (weak comparison, RFC 9110 13.1.2), or is "*". */
export function noneMatch(header: string | null, tag: string): boolean {
  if (header === null) return false;
  const opaque = tag.slice(2);
  for (const part of header.split(",")) {
    const candidate = part.trim();
    if (candidate === "*") return true;
    if ((candidate.startsWith("W/") ? candidate.slice(2) : candidate) === opaque) return true;
  }
  return false;
}

type HookContext = Pick<Context, "request" | "set"> & { responseValue: unknown };

/**
 * ETag as Elysia users write it, an afterHandle hook on the route: Elysia has no ETag plugin,
 * and the one on npm (@bogeychan/elysia-etag 0.0.6, May 2024) hashes with Bun.CryptoHasher, so
 * it runs on Bun only, hashes strings and buffers only (no serializer for JSON before its
 * unpublished 0.1.0), and registers its hooks `as: 'global'`. SHA-1 of the JSON text, as
 * Express and Hono hash; weak, since the stack route sends the same tag with its gzip form
 * (RFC 9110 8.8.1). A full answer is serialized again by Elysia: handing Elysia the hashed text
 * instead is a text/plain answer on @elysiajs/node, whose mapResponse overwrites the
 * Content-Type of every string.
 */
function etag({ request, set, responseValue }: HookContext) {
  const body = jsonText(responseValue);
  if (body === undefined) return;
  const tag = `W/"${createHash("sha1").update(body).digest("base64url")}"`;
  set.headers.etag = tag;
  if (noneMatch(request.headers.get("if-none-match"), tag)) {
    return new Response(null, { status: 304 });
  }
}

/** Accept-Encoding names gzip with a weight above zero. */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.split(";");
    if (coding.trim().toLowerCase() !== "gzip") continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return weight === undefined || Number(weight.slice(2)) > 0;
  }
  return false;
}

/** Bodies below this stay as they are (the threshold of Express's compression and Hono's). */
const GZIP_THRESHOLD = 1024;

/**
 * Compression as Elysia's documentation writes it, a mapResponse hook, here on the route: the
 * plugins on npm do not work on Elysia 1.4. elysia-compress 1.2.1 (and elysia-compression)
 * imports `mapResponse` from "elysia", which Elysia no longer exports (1.2.6 on;
 * vermaysha/elysia-compress#149): Bun refuses the module, and on Node and Deno the hook throws
 * on every compressible answer ("(0, elysia_1.mapResponse) is not a function"), as its cache
 * key (Bun.hash) would next. node:zlib's gzipSync is what that plugin and the documented
 * example (Bun.gzipSync) do, on every runtime.
 */
function gzip({ request, set, responseValue }: HookContext) {
  const vary = set.headers.vary;
  set.headers.vary = vary ? `${vary}, Accept-Encoding` : "Accept-Encoding";
  if (!acceptsGzip(request.headers.get("accept-encoding"))) return;
  const body = jsonText(responseValue);
  if (body === undefined || body.length < GZIP_THRESHOLD) return;
  set.headers["content-encoding"] = "gzip";
  set.headers["content-type"] = "application/json";
  return new Response(gzipSync(body));
}

/**
 * @elysiajs/cors answers preflights in onRequest, which Elysia runs before routing for every
 * request of the app whatever the plugin's scope, and sets its Allow-Headers as the app's default
 * headers (elysiajs/elysia-cors#63, open): in an app of its own, it sees only the paths handed
 * to it. The cost is a second Elysia dispatch per request. Strings, not arrays, keep the Allow
 * values byte-exact; an empty Expose-Headers stops the default, which lists every request
 * header name on every answer.
 */
function corsApp() {
  return baseApp().use(
    cors({
      origin: CORS.allowedOrigin,
      methods: CORS.allowMethods,
      allowedHeaders: CORS.allowHeaders,
      exposeHeaders: "",
      credentials: false,
      maxAge: CORS.maxAgeSec,
    }),
  );
}

const items = (count: string | undefined) => {
  const parsed = parseItemCount(count);
  return parsed === undefined ? status(400, errorBody(ERRORS.badCount)) : buildItems(parsed);
};

type Window = { count: number; nextReset: Date; start: number };
/** Windows kept at most, the oldest dropped first (the plugin's default store keeps 5,000). */
const MAX_CLIENTS = 5000;

/**
 * The limiter's counters: elysia-rate-limit's fixed window, through its documented `context`
 * option. Its DefaultContext (4.6.3, and upstream's source today) answers its live counter, which the plugin
 * reads only after an await, so requests in flight together all read the count after the last of
 * them: Node runs a connection's pipelined requests together, and all eleven of the contract's
 * got 429. This store answers each request a copy.
 */
export class WindowCounts implements RateLimitContext {
  readonly #windows = new Map<string, Window>();
  #duration = 0;

  init(options: Parameters<RateLimitContext["init"]>[0]) {
    if (typeof options.duration === "number") this.#duration = options.duration;
  }

  increment(key: string) {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.nextReset.getTime() <= now) {
      window = { count: 0, nextReset: new Date(now + this.#duration), start: now };
      this.#windows.delete(key);
      this.#windows.set(key, window);
      if (this.#windows.size > MAX_CLIENTS) {
        this.#windows.delete(this.#windows.keys().next().value as string);
      }
    }
    window.count++;
    return { ...window };
  }

  decrement(key: string) {
    const window = this.#windows.get(key);
    if (window !== undefined) window.count--;
  }

  reset(key?: string) {
    if (key === undefined) this.#windows.clear();
    else this.#windows.delete(key);
  }

  kill() {
    this.#windows.clear();
  }
}

/**
 * The rate limiter in its guard: "scoped" applies its hooks to the guard's routes only. The key
 * is the runtime's client address: the plugin's default asks `server.requestIP()`, which only
 * Bun's server has, and the guard's instance has no server of its own. The Response form of
 * errorResponse is the one that gets the contract's JSON body and still gets Retry-After.
 */
function limiter(clientAddress: ClientAddress) {
  return rateLimit({
    scoping: "scoped",
    max: RATE_LIMIT.max,
    duration: RATE_LIMIT.windowSec * 1000,
    context: new WindowCounts(),
    errorResponse: new Response(JSON.stringify(errorBody(ERRORS.tooManyRequests)), {
      status: 429,
      headers: { "content-type": "application/json" },
    }),
    generator: (request: Request) => clientAddress(request) ?? "",
  });
}

/**
 * The middleware routes, as a plugin the main app uses after its own routes. It registers no
 * hook of its own (only route-local ones, a macro and a guard), so using it adds nothing to the
 * main app's inference: the existing routes compile as before. The CORS apps answer at the same
 * paths and get the request as it is: Elysia's mount would copy it to rewrite the path
 * (`new Request(url, request)`), a cost of its own, and reading request.signal for the copy
 * makes Deno 2.9 log a warning about its legacy abort behaviour.
 */
export function middlewareRoutes(clientAddress: ClientAddress) {
  const publicApp = corsApp().get(MIDDLEWARE_ROUTES.public, () => apiPayload("elysia"));
  // CORS (onRequest), auth (resolve), ETag (afterHandle) then gzip (mapResponse) around the
  // handler: CORS, auth, compression and ETag from the outside in.
  const stackApp = corsApp()
    .use(auth)
    .get(
      MIDDLEWARE_ROUTES.stackMe,
      ({ user }) => ({ sub: user.sub, name: user.name, items: buildItems(STACK_ITEMS) }),
      {
        auth: true,
        afterHandle: etag,
        mapResponse: gzip,
      },
    );
  return new Elysia({ name: "bench-middleware" })
    .use(auth)
    .get(MIDDLEWARE_ROUTES.me, ({ user }) => ({ sub: user.sub, name: user.name }), { auth: true })
    .all(MIDDLEWARE_ROUTES.public, ({ request }) => publicApp.fetch(request))
    .get(MIDDLEWARE_ROUTES.gzipItems, ({ query }) => items(query.count), { mapResponse: gzip })
    .get(MIDDLEWARE_ROUTES.etagItems, ({ query }) => items(query.count), { afterHandle: etag })
    .guard({}, (limited) =>
      limited
        .use(limiter(clientAddress))
        .get(MIDDLEWARE_ROUTES.limited, () => apiPayload("elysia")),
    )
    .all(MIDDLEWARE_ROUTES.stackMe, ({ request }) => stackApp.fetch(request));
}
