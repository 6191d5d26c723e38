// results.json: the versioned schema of a run, written as trials finish. The TypeBox schema is
// both the TypeScript types and the validator (and exports as JSON Schema for anyone else).

import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** 2: raw wrk latencies, CPU over the load window, windowed req/s, new checks. */
export const SCHEMA_VERSION = 2;

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
  /** The tool's own measured time (oha with -w: until its last response). */
  durationSec: T.Number({ minimum: 0 }),
  /** The time req/s is computed over: the requested duration, or the tool's if shorter. */
  windowSec: T.Number({ minimum: 0 }),
  rps: T.Number({ minimum: 0 }),
  bytesPerSec: T.Number({ minimum: 0 }),
  latencyMs: Latency,
  statuses: Counts,
  non2xx: T.Integer({ minimum: 0 }),
  /** The status every answer had to have, when not 200: non2xx then counts any other status. */
  expectedStatus: T.Optional(T.Integer({ minimum: 100, maximum: 599 })),
  socketErrors: T.Integer({ minimum: 0 }),
  timeouts: T.Integer({ minimum: 0 }),
  aborted: T.Integer({ minimum: 0 }),
  errorDetails: Counts,
  /**
   * Samples a tool's own latency correction had added and the parser removed (wrk's
   * coordinated-omission correction); 0 for tools that report raw latencies.
   */
  syntheticSamplesRemoved: T.Integer({ minimum: 0 }),
});

export const ToolNameSchema = T.Union([
  T.Literal("oha"),
  T.Literal("wrk"),
  T.Literal("autocannon"),
]);

/** One worker of a server started with --workers: did it serve, and how much. */
export const WorkerUseSchema = T.Object({
  pid: T.Integer(),
  cpuPercent: T.Number({ minimum: 0 }),
  /** Established connections to the app's port it held halfway through the trial. */
  connections: T.Integer({ minimum: 0 }),
  /** Alive at the end of the trial (a worker that died makes the trial invalid). */
  alive: T.Boolean(),
});
export type WorkerUse = Static<typeof WorkerUseSchema>;

export const TrialSchema = T.Object({
  app: T.String(),
  scenario: T.String(),
  /** --workers: the processes that served this trial (absent: 1). */
  workers: T.Optional(T.Integer({ minimum: 1 })),
  /** 1-based round; apps run in a different order each round. Each round is a fresh process. */
  round: T.Integer({ minimum: 1 }),
  /** 1-based sample within the process and scenario (back-to-back load runs); absent: 1. */
  sample: T.Optional(T.Integer({ minimum: 1 })),
  startedAt: T.String(),
  command: T.Array(T.String()),
  /** null when the tool produced nothing usable (see invalidReasons). */
  result: T.Union([LoadResultSchema, T.Null()]),
  /** Connections the tool really opened (wrk: threads × ⌊c / threads⌋). */
  connections: T.Integer({ minimum: 1 }),
  /** The requested measuring time. */
  requestedSec: T.Number({ exclusiveMinimum: 0 }),
  /** CPU figures are averages over this window: the load proper, without tool start and exit. */
  cpuWindowSec: T.Number({ minimum: 0 }),
  server: T.Object({
    /** The server process; with --workers, the cluster's primary. */
    pid: T.Integer(),
    /** The whole tree (primary and workers). */
    cpuPercent: T.Number({ minimum: 0 }),
    /**
     * The tree's CPU time per request answered, ns: every thread's schedstat time over the
     * window / the requests answered in it. Absent in runs before it existed.
     */
    cpuNsPerRequest: T.Optional(T.Number({ minimum: 0 })),
    peakRssMiB: T.Number({ minimum: 0 }),
    /** --workers > 1: the primary's own RSS at the end of the trial. */
    primaryRssMiB: T.Optional(T.Number({ minimum: 0 })),
    /** --workers > 1: each worker's CPU over the window and the connections it held mid-trial. */
    workers: T.Optional(T.Array(WorkerUseSchema)),
  }),
  loadGenerator: T.Object({
    cpuPercent: T.Number({ minimum: 0 }),
    /** Cores the tool could keep busy: min(its CPU set, its threads, cores the server left). */
    capacityCores: T.Number({ minimum: 0 }),
    /** Threads that send load (oha: one per physical core, wrk: -t, autocannon: 1). */
    threads: T.Integer({ minimum: 1 }),
  }),
  /** CPU steal over the window (time a hypervisor gave this VM's CPUs to others), % of all cores. */
  stealPercent: T.Number({ minimum: 0 }),
  /**
   * Idle share of the server's own CPU set over the window (pinned runs only). Kernel work
   * for the server (loopback network softirqs) is not in its process CPU but is not idle.
   */
  serverCoreIdlePercent: T.Optional(T.Number({ minimum: 0 })),
  /**
   * --db postgres: the database server's CPU over the window (all its processes, on the
   * server's CPUs), % of a core.
   */
  databaseCpuPercent: T.Optional(T.Number({ minimum: 0 })),
  checks: T.Object({
    /** (non-2xx + socket errors + timeouts) / requests */
    errorRate: T.Number({ minimum: 0 }),
    valid: T.Boolean(),
    invalidReasons: T.Array(T.String()),
    /** The load generator was saturated and the server was not: req/s is a lower bound. */
    loadGeneratorBound: T.Boolean(),
    /**
     * Neither the server nor the load generator was saturated: something else (another
     * process, CPU steal, too few connections) limited the run, so it is not the server's best.
     */
    unsaturated: T.Boolean(),
    /**
     * The server's core was busy with something other than the server (its busy share minus
     * the server's own CPU above CONTENDED_POINTS), or CPU steal was high: not the server's
     * best. Absent in runs before it existed.
     */
    contended: T.Optional(T.Boolean()),
    /**
     * Unpinned, the server and the load generator together kept the machine's cores busy:
     * neither the server's best nor a generator limit. Absent in runs before it existed.
     */
    machineFull: T.Optional(T.Boolean()),
    /**
     * The load generator was at its ceiling (GENERATOR_CEILING of what it can use), or
     * connections sat idle while the server's core had room: the req/s is a lower bound of the
     * server's capacity, not its measure. Absent in runs before it existed.
     */
    generatorCeiling: T.Optional(T.Boolean()),
    /**
     * A run across two hosts: the network, not the server, may have set the pace (bytes/s near
     * the link's capacity, or the round trip most of a request's latency). Absent on one host.
     */
    networkBound: T.Optional(T.Boolean()),
    /**
     * --db postgres: the database server used more of the server's CPUs than the app: the
     * figure measures the database as much as the app (the sample stays valid).
     */
    databaseBound: T.Optional(T.Boolean()),
    littlesLaw: T.Object({
      /** requests × mean latency / the time the tool ran: requests in flight on average. */
      inFlight: T.Number(),
      /** inFlight / connections: ≤ 1 for a closed loop; far below 1, connections sat idle. */
      ratio: T.Number(),
      /** false when the tool's latency resolution is too coarse for the check (autocannon) */
      checked: T.Boolean(),
      /** within the bounds (or not checked); above the upper bound the trial is invalid */
      ok: T.Boolean(),
    }),
    /** Why the numbers are qualified (not invalid): the flags' explanations. */
    notes: T.Array(T.String()),
  }),
});

/** One side of a side-by-side sample (--side-by-side): an app, its generator and its server. */
export const PairSideSchema = T.Object({
  app: T.String(),
  /** 0: the first address, started first, its generator spawned first; 1: the second. */
  slot: T.Union([T.Literal(0), T.Literal(1)]),
  /** The address the app listened on (127.0.0.1 or 127.0.0.2). */
  address: T.String(),
  /** The server process (the one listening). */
  pid: T.Integer(),
  command: T.Array(T.String()),
  /** Connections its generator really opened. */
  connections: T.Integer({ minimum: 1 }),
  /** null when the generator produced nothing usable (see the checks). */
  result: T.Union([LoadResultSchema, T.Null()]),
  /**
   * The server tree's CPU time (every thread's schedstat) from just before the generators
   * started to just after they exited, ns.
   */
  cpuNs: T.Number({ minimum: 0 }),
  /** cpuNs / the requests its generator counted: the figure; absent when none was answered. */
  nsPerRequest: T.Optional(T.Number({ minimum: 0 })),
  /** Over the window both generators ran, % of one core. */
  serverCpuPercent: T.Number({ minimum: 0 }),
  peakRssMiB: T.Number({ minimum: 0 }),
  loadGenerator: T.Object({
    cpuPercent: T.Number({ minimum: 0 }),
    threads: T.Integer({ minimum: 1 }),
  }),
});

/** One sample of a side-by-side pair: both apps loaded at once, their servers on one core. */
export const PairTrialSchema = T.Object({
  /** The row `app` is measured against. */
  reference: T.String(),
  app: T.String(),
  scenario: T.String(),
  /** 1-based round; each round starts both apps of the pair afresh. */
  round: T.Integer({ minimum: 1 }),
  /** 1-based sample within the pair's processes and scenario; absent: 1. */
  sample: T.Optional(T.Integer({ minimum: 1 })),
  startedAt: T.String(),
  requestedSec: T.Number({ exclusiveMinimum: 0 }),
  /** The window the CPU percentages cover: the time both generators loaded their servers. */
  cpuWindowSec: T.Number({ minimum: 0 }),
  /** The two sides, in slot order. */
  sides: T.Tuple([PairSideSchema, PairSideSchema]),
  /** Idle share of the servers' CPU set, and of the generators' (pinned runs). */
  serverCoreIdlePercent: T.Optional(T.Number({ minimum: 0 })),
  loadCoreIdlePercent: T.Optional(T.Number({ minimum: 0 })),
  stealPercent: T.Number({ minimum: 0 }),
  checks: T.Object({
    valid: T.Boolean(),
    invalidReasons: T.Array(T.String()),
    /** The servers' core had idle time (neither saturated while they shared it). */
    unsaturated: T.Boolean(),
    /** ...because the generators used all they can. */
    generatorCeiling: T.Boolean(),
    /** Something else had the servers' core, or CPU steal was high. */
    contended: T.Boolean(),
    notes: T.Array(T.String()),
  }),
});

/** One start of an app (each start of the rounds, and the fresh ones of --startup). */
export const StartupSchema = T.Object({
  /**
   * ms from the runtime's exec (stamped by scripts/start-app.sh; in runs before 2026-11-23,
   * from spawning `bun run start`) to the first correct answer to GET /.
   */
  readyMs: T.Number({ minimum: 0 }),
  /** The server's resident memory (its process tree) right after that answer. */
  rssReadyMiB: T.Number({ minimum: 0 }),
  /**
   * The same after IDLE_PAUSE_MS with no requests: on each app's first start and on fresh
   * (--startup) starts; later starts of the rounds skip the pause, to keep processes cheap.
   */
  rssIdleMiB: T.Optional(T.Number({ minimum: 0 })),
  /** A --startup start: no load before or after it. */
  fresh: T.Boolean(),
});

export const AppRecordSchema = T.Object({
  name: T.String(),
  runtime: T.String(),
  framework: T.String(),
  port: T.Integer(),
  status: T.Union([T.Literal("pending"), T.Literal("ok"), T.Literal("failed")]),
  failure: T.Optional(T.String()),
  violations: T.Optional(T.Array(T.Object({ check: T.String(), detail: T.String() }))),
  /** --node/--bun/--deno: the runtime version this row ran on, as asked and as resolved. */
  runtimeBuild: T.Optional(T.Object({ asked: T.String(), version: T.String() })),
  /** --against: the row runs this commit's app, from a worktree of it. */
  checkout: T.Optional(T.Object({ ref: T.String(), commit: T.String() })),
  /** --calibrate: a fixed extra CPU cost per request (BENCH_EXTRA_WORK), a share of its own. */
  extraWork: T.Optional(
    T.Object({ share: T.Number({ minimum: 0 }), iterations: T.Integer({ minimum: 0 }) }),
  ),
  /** As the running app reported it (GET /api/test), not as assumed. */
  reportedRuntime: T.Optional(T.Object({ name: T.String(), version: T.String() })),
  executable: T.Optional(T.String()),
  startups: T.Optional(T.Array(StartupSchema)),
});

const MachineSchema = T.Object({
  cpuModel: T.String(),
  cores: T.Integer(),
  memoryGiB: T.Number(),
  os: T.String(),
  kernel: T.String(),
});

export const DatabaseSchema = T.Object({
  engine: T.Union([T.Literal("sqlite"), T.Literal("postgresql")]),
  /** PostgreSQL's server_version. */
  version: T.Optional(T.String()),
  /** The CPUs the database server was pinned to (SQLite runs inside the app). */
  cpus: T.Optional(T.String()),
  /** Each runtime's driver or client: bun:sqlite, Bun.sql, postgres.js… */
  clients: T.Record(T.String(), T.String()),
  settings: T.Record(T.String(), T.String()),
});
export type DatabaseRecord = Static<typeof DatabaseSchema>;

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
    /** The connection count; with several (--connections 1,10,100), the largest. */
    connections: T.Integer({ minimum: 1 }),
    /** --connections with several counts: one trial per count, each summarized apart. */
    connectionCounts: T.Optional(T.Array(T.Integer({ minimum: 1 }))),
    /** Rounds: each app is started afresh once per round (with --precision, the rounds run). */
    trials: T.Integer({ minimum: 1 }),
    /** Samples (back-to-back load runs of durationSec) per process and scenario; absent: 1. */
    samples: T.Optional(T.Integer({ minimum: 1 })),
    /**
     * --precision: rounds were added until every mean and comparison had a 95% CI half-width
     * within `target` (a share), or `maxTimeSec` ran out.
     */
    precision: T.Optional(
      T.Object({ target: T.Number({ exclusiveMinimum: 0 }), maxTimeSec: T.Number({ minimum: 0 }) }),
    ),
    keepAlive: T.Boolean(),
    /** Largest (non-2xx + socket errors + timeouts) / requests a valid trial may have. */
    errorThreshold: T.Number(),
    /** ./benchmark.sh's command line, as given. */
    argv: T.Array(T.String()),
    /** --rates as given ("50%", "5000"), and the p99 budget capacity is judged against. */
    rates: T.Optional(T.Array(T.String())),
    sloP99Ms: T.Optional(T.Number({ exclusiveMinimum: 0 })),
    /** --workers: processes serving each app's port (absent: 1); with a list, the largest. */
    workers: T.Optional(T.Integer({ minimum: 1 })),
    /** --workers with several counts (1,2,4): each app measured at each, summarized apart. */
    workerCounts: T.Optional(T.Array(T.Integer({ minimum: 1 }))),
    /**
     * --node/--bun/--deno: each runtime's versions as asked and as resolved, in order; each of
     * its apps runs once per version, as a row of its own ("node-hono@22.23.3").
     */
    runtimeVersions: T.Optional(
      T.Record(T.String(), T.Array(T.Object({ asked: T.String(), version: T.String() }))),
    ),
    /**
     * --side-by-side: the pairs measured, [reference, app], each pair's two apps served at once
     * on the server's CPUs from the two addresses; `connections` is each generator's. With
     * --against, the commit the apps were compared with and the threshold of the verdicts.
     */
    sideBySide: T.Optional(
      T.Object({
        pairs: T.Array(T.Tuple([T.String(), T.String()])),
        addresses: T.Array(T.String()),
        against: T.Optional(T.Object({ ref: T.String(), commit: T.String() })),
        threshold: T.Optional(T.Number({ exclusiveMinimum: 0 })),
      }),
    ),
  }),
  /**
   * --calibrate: the base app, how the extra work was sized, and the rounds per subsample of
   * the detection rates (the default run's rounds).
   */
  calibration: T.Optional(
    T.Object({
      app: T.String(),
      costPerRequestNs: T.Number({ exclusiveMinimum: 0 }),
      nsPerIteration: T.Number({ exclusiveMinimum: 0 }),
      subsampleRounds: T.Integer({ minimum: 1 }),
    }),
  ),
  /** The database scenarios' engine, each runtime's client, the settings (when any ran). */
  database: T.Optional(DatabaseSchema),
  /** The generator of the open-loop trials (oha), when --rates asked for any. */
  rateTool: T.Optional(T.Object({ name: ToolNameSchema, version: T.String(), path: T.String() })),
  pinning: T.Object({
    enabled: T.Boolean(),
    serverCpus: T.Optional(T.String()),
    loadCpus: T.Optional(T.String()),
    note: T.Optional(T.String()),
  }),
  machine: MachineSchema,
  /**
   * --server-host: the apps ran on another machine (`machine` is the load generator's), reached
   * over SSH at `address`; the network between them measured before the rounds.
   */
  serverHost: T.Optional(
    T.Object({
      name: T.String(),
      address: T.String(),
      machine: MachineSchema,
      git: T.Object({ commit: T.String(), dirty: T.Boolean() }),
      /** Median of TCP connects from this host to the server's SSH port, before the rounds. */
      rttMs: T.Number({ minimum: 0 }),
      /** Link speed of each end's interface, where the OS says (Mbit/s). */
      linkMbps: T.Object({
        load: T.Optional(T.Number({ minimum: 0 })),
        server: T.Optional(T.Number({ minimum: 0 })),
      }),
    }),
  ),
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

/** One open-loop trial (--rates): a constant offered rate, latency from when requests were due. */
export const RateTrialSchema = T.Object({
  app: T.String(),
  scenario: T.String(),
  round: T.Integer({ minimum: 1 }),
  startedAt: T.String(),
  command: T.Array(T.String()),
  /** As asked: "5000" (req/s) or "50%" (of this round's closed-loop req/s). */
  requested: T.String(),
  offeredRps: T.Number({ exclusiveMinimum: 0 }),
  /** Responses over the requested time. */
  achievedRps: T.Number({ minimum: 0 }),
  connections: T.Integer({ minimum: 1 }),
  requestedSec: T.Number({ exclusiveMinimum: 0 }),
  result: T.Union([LoadResultSchema, T.Null()]),
  server: T.Object({ cpuPercent: T.Number({ minimum: 0 }), peakRssMiB: T.Number({ minimum: 0 }) }),
  loadGenerator: T.Object({
    cpuPercent: T.Number({ minimum: 0 }),
    capacityCores: T.Number({ minimum: 0 }),
    threads: T.Integer({ minimum: 1 }),
  }),
  /** Achieved fell short of offered by more than RATE_TOLERANCE: latencies of an overload. */
  overCapacity: T.Boolean(),
  loadGeneratorBound: T.Boolean(),
  /** Unpinned, server and generator filled the shared cores. Absent before it existed. */
  machineFull: T.Optional(T.Boolean()),
  /** Requests due, sent and never sent (rates.ts scheduleOf). Absent before it existed. */
  schedule: T.Optional(
    T.Object({
      scheduled: T.Integer({ minimum: 0 }),
      sent: T.Integer({ minimum: 0 }),
      unsent: T.Integer({ minimum: 0 }),
    }),
  ),
  /**
   * --rates search: the p99 the same generator measured at the same rate against a server that
   * does nothing (floor-server.ts), when this trial missed the budget on latency alone.
   */
  floorP99Ms: T.Optional(T.Number({ minimum: 0 })),
  errorRate: T.Number({ minimum: 0 }),
  valid: T.Boolean(),
  invalidReasons: T.Array(T.String()),
  notes: T.Array(T.String()),
});

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
});

export type Trial = Static<typeof TrialSchema>;
export type AppRecord = Static<typeof AppRecordSchema>;
export type Manifest = Static<typeof ManifestSchema>;
export type Results = Static<typeof ResultsSchema>;
export type ProfileRecord = Static<typeof ProfileSchema>;
export type Startup = Static<typeof StartupSchema>;
export type RateTrial = Static<typeof RateTrialSchema>;
export type Search = Static<typeof SearchSchema>;
export type PairTrial = Static<typeof PairTrialSchema>;
export type PairSide = Static<typeof PairSideSchema>;

/** Every way `value` breaks the schema, as "path: message" lines; empty when it conforms. */
export function schemaErrors(value: unknown): string[] {
  return [...Value.Errors(ResultsSchema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
}
