// results.json: the versioned schema of a run, written as trials finish. The TypeBox schema is
// both the TypeScript types and the validator (and exports as JSON Schema for anyone else).
// The samples are in trial-schema.ts, the manifest and the apps in manifest-schema.ts; this
// module assembles the file and is what the rest of the harness imports.

import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AppRecordSchema, ManifestSchema } from "./manifest-schema.ts";
import { PairTrialSchema, RateTrialSchema, TrialSchema } from "./trial-schema.ts";

export {
  type AppRecord,
  type DatabaseRecord,
  DatabaseSchema,
  type Manifest,
  ManifestSchema,
  type Startup,
} from "./manifest-schema.ts";
export {
  LoadResultSchema,
  type PairSide,
  type PairTrial,
  type RateTrial,
  type Trial,
  TrialSchema,
  type WorkerUse,
} from "./trial-schema.ts";

/** 2: raw wrk latencies, CPU over the load window, windowed req/s, new checks. */
export const SCHEMA_VERSION = 2;

/** --rates search: one app's search on one scenario; its trials are the rate trials "search". */
export const SearchSchema = T.Object({
  app: T.String(),
  scenario: T.String(),
  /** The best valid closed-loop req/s of the app on the scenario: where the search started. */
  closedLoopRps: T.Number({ exclusiveMinimum: 0 }),
  trials: T.Integer({ minimum: 0 }),
  /** Wall-clock time of the search, its generator-floor trials included. */
  elapsedSec: T.Number({ minimum: 0 }),
});

const HotFunctionSchema = T.Object({
  function: T.String(),
  /** file:line, shortened to the package or repository path; "" for native code. */
  location: T.String(),
  samples: T.Integer({ minimum: 0 }),
  /** Share of the profile's busy (non-idle) samples. */
  percent: T.Number({ minimum: 0 }),
});

/** One extra trial with the runtime's CPU profiler on (--profile): never part of the results. */
export const ProfileSchema = T.Object({
  app: T.String(),
  scenario: T.String(),
  startedAt: T.String(),
  /** The .cpuprofile (DevTools format), relative to results.json's folder. */
  file: T.Optional(T.String()),
  /** Why there is no profile: the runtime has no profiler, it wrote none, the trial failed. */
  unavailable: T.Optional(T.String()),
  /** The profiled trial's own figures: slowed by the profiler, shown for context only. */
  rps: T.Optional(T.Number({ minimum: 0 })),
  p99Ms: T.Optional(T.Number({ minimum: 0 })),
  summary: T.Optional(
    T.Object({
      totalMs: T.Number({ minimum: 0 }),
      samples: T.Integer({ minimum: 0 }),
      idleSamples: T.Integer({ minimum: 0 }),
      /** samples × interval / totalMs: how much of the time the sampler saw. */
      coverage: T.Number({ minimum: 0, maximum: 1 }),
      top: T.Array(HotFunctionSchema),
    }),
  ),
});

/** One figure of a run checked against the earlier sessions of its series. */
export const HistoryCheckSchema = T.Object({
  app: T.String(),
  /** The app a ratio is against; absent for an app's own figure. */
  reference: T.Optional(T.String()),
  /** The group it was measured in ("api", "api (c=10)"). */
  scenario: T.String(),
  /** rps, rps-ratio, cpu-us or cpu-ratio (analysis/session-estimates.ts). */
  metric: T.String(),
  /** This run's figure, on its natural scale (its log estimate, exponentiated). */
  estimate: T.Number(),
  /** Where the earlier sessions predicted one more would land (95% prediction interval). */
  low: T.Number(),
  high: T.Number(),
  /** How many earlier sessions of the same testbed and settings the prediction is from. */
  earlier: T.Integer({ minimum: 0 }),
  /** Two-sided p of this figure under that prediction. */
  p: T.Number({ minimum: 0, maximum: 1 }),
  /** Outside the prediction once Holm holds the run's family of figures to 5%: CHANGED. */
  changed: T.Boolean(),
});

/** The run as a session of the history (history/recording.ts). */
export const HistorySchema = T.Object({
  /** The history's file, or its URL without a password. */
  store: T.String(),
  /** The session's id in the history. */
  run: T.String(),
  /** The testbed's id (analysis/settings.ts). */
  testbed: T.String(),
  /** false: the history already held this session. */
  recorded: T.Boolean(),
  /** Earlier sessions of the same testbed and settings. */
  earlier: T.Integer({ minimum: 0 }),
  /** Each figure with 3 or more earlier sessions in its series, checked against them. */
  checked: T.Array(HistoryCheckSchema),
});

export const ResultsSchema = T.Object({
  schemaVersion: T.Literal(SCHEMA_VERSION),
  status: T.Union([T.Literal("running"), T.Literal("complete"), T.Literal("interrupted")]),
  startedAt: T.String(),
  finishedAt: T.Optional(T.String()),
  manifest: ManifestSchema,
  apps: T.Array(AppRecordSchema),
  trials: T.Array(TrialSchema),
  /** Open-loop trials (--rates), kept apart from the closed-loop `trials`. */
  rateTrials: T.Optional(T.Array(RateTrialSchema)),
  /** --rates search: per app and scenario, how its search went. */
  searches: T.Optional(T.Array(SearchSchema)),
  /** --precision: how the rounds ended. */
  precision: T.Optional(
    T.Object({
      reached: T.Boolean(),
      rounds: T.Integer({ minimum: 0 }),
      elapsedSec: T.Number({ minimum: 0 }),
      /** The widest half-width left, and what it belongs to. */
      widest: T.Optional(T.Object({ what: T.String(), halfWidth: T.Number() })),
    }),
  ),
  /** Profiled trials (--profile), kept apart from `trials`. */
  profiles: T.Optional(T.Array(ProfileSchema)),
  /** --side-by-side: one record per sample of a pair; such a run has no `trials`. */
  pairTrials: T.Optional(T.Array(PairTrialSchema)),
  /** The apps that cannot serve a scenario of the run, each with the contract's reason. */
  unsupported: T.Optional(
    T.Array(T.Object({ app: T.String(), scenario: T.String(), reason: T.String() })),
  ),
  /** The run as a session of the history (absent: not recorded, as --no-history or --calibrate). */
  history: T.Optional(HistorySchema),
});

export type Results = Static<typeof ResultsSchema>;
export type ProfileRecord = Static<typeof ProfileSchema>;
export type Search = Static<typeof SearchSchema>;
export type HistoryCheck = Static<typeof HistoryCheckSchema>;

/** Every way `value` breaks the schema, as "path: message" lines; empty when it conforms. */
export function schemaErrors(value: unknown): string[] {
  return [...Value.Errors(ResultsSchema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
}
