// "@bench/contract": what the apps import to serve the contract, and nothing that checks it.
// The spec (registry, routes, answers, data, scenarios, middleware and database values), the
// helpers the apps without a framework facility serve with (body, validate) and the stores.
// The verifier is "@bench/contract/check"; the workers, "@bench/contract/workers".

export {
  type BodyRefusal,
  isClientGone,
  readBodyText,
  readJsonBody,
  TOO_LARGE,
} from "./serve/body.ts";
export { headAnswer } from "./serve/head.ts";
export { listeningAfter, type TlsPem, tlsPem } from "./serve/tls-pem.ts";
export { validateUserUpdate } from "./serve/validate.ts";
export {
  buildItems,
  ITEMS_DEFAULT,
  ITEMS_MAX,
  type Item,
  MAX_USER_ID,
  NAME_MAX,
  parseItemCount,
  parseUserFields,
  parseUserId,
  selectUserFields,
  USER_FIELDS,
  USER_UPDATE_FIXTURE,
  USER_UPDATE_RULES,
  type User,
  type UserField,
  type UserUpdate,
  updatedUser,
  userById,
} from "./spec/data.ts";
export {
  ADDED_FORTUNE,
  DB_ENV,
  DB_ROUTES,
  escapeHtml,
  FORTUNES,
  FORTUNES_CONTENT_TYPE,
  type Fortune,
  fortunesHtml,
  fortunesToServe,
  PG_ENV,
  PG_POOL,
  parseQueries,
  QUERIES_MAX,
  randomWorldId,
  SCENARIO_QUERIES,
  seededNumber,
  seedSql,
  WORLD_ROWS,
  type World,
} from "./spec/db.ts";
export {
  API_MESSAGE,
  type ApiPayload,
  apiPayload,
  ERRORS,
  type ErrorBody,
  type ErrorMessage,
  errorBody,
  GREETING,
  invalidFieldError,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  ROUTES,
  unknownFieldError,
  userPath,
} from "./spec/endpoints.ts";
export { ECHO_BODY, ECHO_FIXTURE } from "./spec/fixtures.ts";
export {
  H2_ALPN,
  H2_STREAMS,
  H2_UNSUPPORTED,
  H2C_ENV,
  H2C_ON_PLAIN_PORT,
  H2C_PORT_OFFSET,
  H2C_UNSUPPORTED,
  h2cPort,
  h2Split,
} from "./spec/http2.ts";
export {
  bearer,
  CORS,
  JWT_SECRET,
  JWT_USER,
  MIDDLEWARE_ITEMS,
  MIDDLEWARE_PATHS,
  MIDDLEWARE_ROUTES,
  mePayload,
  RATE_LIMIT,
  STACK_HEADERS,
  STACK_ITEMS,
  type StackPayload,
  signJwt,
  stackPayload,
  TOKENS,
} from "./spec/middleware.ts";
export {
  APPS,
  type AppName,
  type AppSpec,
  baselineOf,
  type Framework,
  findApp,
  getApp,
  type Runtime,
} from "./spec/registry.ts";
export { detectRuntime, isDeno, type RuntimeIdentity } from "./spec/runtime.ts";
export {
  allowedOtherAnswers,
  DEFAULT_SCENARIO,
  expectedStatus,
  findScenario,
  isH2c,
  isStage,
  loadedByWsLoad,
  notSupported,
  SCENARIOS,
  type Scenario,
  type ScenarioName,
  STANDARD_SCENARIOS,
} from "./spec/scenarios.ts";
export {
  parseByteCount,
  parseEventCount,
  SCENARIO_BYTES,
  SCENARIO_EVENTS,
  SSE_CONTENT_TYPE,
  SSE_EVENTS_DEFAULT,
  SSE_EVENTS_MAX,
  STREAM_BYTES_DEFAULT,
  STREAM_BYTES_MAX,
  STREAM_CHUNK,
  STREAM_CHUNK_BYTES,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  sseData,
  sseEvent,
  sseEvents,
  streamChunks,
} from "./spec/streams.ts";
export { TLS_ENV, TLS_PORT_OFFSET, tlsPort } from "./spec/tls.ts";
export { pgStore, pgStoreOver } from "./stores/pg-store.ts";
export { clientName, connectPostgres, type Sql } from "./stores/postgres.ts";
export { storeFor, worldStore } from "./stores/selector.ts";
export { driverName, openSqlite, type SqlDatabase, type SqlStatement } from "./stores/sqlite.ts";
export {
  createWorldDb,
  openWorldDb,
  SQLITE_SETTINGS,
  type SyncWorldStore,
  storeOver,
} from "./stores/sqlite-store.ts";
export { type Maybe, type WorldStore, withValue } from "./stores/world-store.ts";
