// results.json: the versioned schema of a run, written as trials finish. The TypeBox schema is
// both the TypeScript types and the validator (and exports as JSON Schema for anyone else).

import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export const SCHEMA_VERSION = 1;

const Latency = T.Object({
  mean: T.Number(),
  p50: T.Number(),
  p90: T.Number(),
  p99: T.Number(),
  p999: T.Number(),
  max: T.Number(),
});

const Counts = T.Record(T.String(), T.Integer({ minimum: 0 }));

export const LoadResultSchema = T.Object({
  requests: T.Integer({ minimum: 0 }),
  durationSec: T.Number({ minimum: 0 }),
  rps: T.Number({ minimum: 0 }),
  bytesPerSec: T.Number({ minimum: 0 }),
  latencyMs: Latency,
  statuses: Counts,
  non2xx: T.Integer({ minimum: 0 }),
  socketErrors: T.Integer({ minimum: 0 }),
  timeouts: T.Integer({ minimum: 0 }),
  aborted: T.Integer({ minimum: 0 }),
  errorDetails: Counts,
});

export const ToolNameSchema = T.Union([
  T.Literal("oha"),
  T.Literal("wrk"),
  T.Literal("autocannon"),
]);

export const TrialSchema = T.Object({
  app: T.String(),
  scenario: T.String(),
  /** 1-based round; apps run in a different order each round. */
  round: T.Integer({ minimum: 1 }),
  startedAt: T.String(),
  command: T.Array(T.String()),
  /** null when the tool produced nothing usable (see invalidReasons). */
  result: T.Union([LoadResultSchema, T.Null()]),
  server: T.Object({
    pid: T.Integer(),
    cpuPercent: T.Number({ minimum: 0 }),
    peakRssMiB: T.Number({ minimum: 0 }),
  }),
  loadGenerator: T.Object({
    cpuPercent: T.Number({ minimum: 0 }),
    /** How many cores the tool could use: its CPU set, or 1 for single-threaded autocannon. */
    capacityCores: T.Number({ minimum: 0 }),
  }),
  checks: T.Object({
    /** (non-2xx + socket errors + timeouts) / requests */
    errorRate: T.Number({ minimum: 0 }),
    valid: T.Boolean(),
    invalidReasons: T.Array(T.String()),
    loadGeneratorBound: T.Boolean(),
    littlesLaw: T.Object({
      /** rps × mean latency: how many requests were in flight on average. */
      inFlight: T.Number(),
      /** inFlight / connections; ~1 for a closed-loop load generator that keeps every connection busy. */
      ratio: T.Number(),
      /** false when the tool's latency resolution is too coarse for the check (autocannon < 10 ms) */
      checked: T.Boolean(),
      /** within 0.5–1.5 (or not checked) */
      ok: T.Boolean(),
    }),
  }),
});

export const AppRecordSchema = T.Object({
  name: T.String(),
  runtime: T.String(),
  framework: T.String(),
  port: T.Integer(),
  status: T.Union([T.Literal("pending"), T.Literal("ok"), T.Literal("failed")]),
  failure: T.Optional(T.String()),
  violations: T.Optional(T.Array(T.Object({ check: T.String(), detail: T.String() }))),
  /** As the running app reported it (GET /api/test), not as assumed. */
  reportedRuntime: T.Optional(T.Object({ name: T.String(), version: T.String() })),
  executable: T.Optional(T.String()),
});

export const ManifestSchema = T.Object({
  tool: T.Object({
    name: ToolNameSchema,
    version: T.String(),
    path: T.String(),
  }),
  settings: T.Object({
    apps: T.Array(T.String()),
    scenarios: T.Array(T.String()),
    durationSec: T.Number({ exclusiveMinimum: 0 }),
    warmupSec: T.Number({ minimum: 0 }),
    connections: T.Integer({ minimum: 1 }),
    trials: T.Integer({ minimum: 1 }),
    keepAlive: T.Boolean(),
    /** Largest (non-2xx + socket errors + timeouts) / requests a valid trial may have. */
    errorThreshold: T.Number(),
    /** The harness's own command line, as given. */
    argv: T.Array(T.String()),
  }),
  pinning: T.Object({
    enabled: T.Boolean(),
    serverCpus: T.Optional(T.String()),
    loadCpus: T.Optional(T.String()),
    note: T.Optional(T.String()),
  }),
  machine: T.Object({
    cpuModel: T.String(),
    cores: T.Integer(),
    memoryGiB: T.Number(),
    os: T.String(),
    kernel: T.String(),
  }),
  versions: T.Object({
    /** From bun.lock: the framework, adapter and runtime packages the apps were built with. */
    lockfile: T.Record(T.String(), T.String()),
    harnessBun: T.String(),
  }),
  git: T.Object({
    commit: T.String(),
    dirty: T.Boolean(),
  }),
});

export const ResultsSchema = T.Object({
  schemaVersion: T.Literal(SCHEMA_VERSION),
  status: T.Union([T.Literal("running"), T.Literal("complete"), T.Literal("interrupted")]),
  startedAt: T.String(),
  finishedAt: T.Optional(T.String()),
  manifest: ManifestSchema,
  apps: T.Array(AppRecordSchema),
  trials: T.Array(TrialSchema),
});

export type Trial = Static<typeof TrialSchema>;
export type AppRecord = Static<typeof AppRecordSchema>;
export type Manifest = Static<typeof ManifestSchema>;
export type Results = Static<typeof ResultsSchema>;

/** Every way `value` breaks the schema, as "path: message" lines; empty when it conforms. */
export function schemaErrors(value: unknown): string[] {
  return [...Value.Errors(ResultsSchema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
}
