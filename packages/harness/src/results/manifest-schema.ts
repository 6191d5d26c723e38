// results.json's account of what ran: the manifest (tool, settings, machine, versions, commit)
// and each app's record with its starts. schema.ts assembles the whole file.

import { type Static, Type as T } from "@sinclair/typebox";
import { ToolNameSchema } from "./trial-schema.ts";

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
  /**
   * The hypervisor the machine runs under (systemd-detect-virt --vm: "kvm"; "vm" when the CPU
   * says it is virtual but nothing names it; "none"). Part of the testbed's identity; absent
   * in runs before it was recorded.
   */
  virtualization: T.Optional(T.String()),
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
    /**
     * Rounds: each app is started afresh once per round (with --precision, the rounds run).
     * Named before the words were settled (a trial is a sample's record); kept for the files.
     */
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
    /**
     * --max-steal: a sample with this much CPU steal (%) or more on the server's core is
     * excluded and re-taken (analysis/steal.ts); 100: off. Absent before it existed: the
     * default applies when such a run is analysed.
     */
    maxSteal: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 100 })),
    /** ./benchmark.sh's command line, as given. */
    argv: T.Array(T.String()),
    /**
     * --reference in a run one app at a time: the app each other's req/s is recorded against
     * in the history (paired by round). Absent: the first of `apps`.
     */
    reference: T.Optional(T.String()),
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
  /** A run with a scenario ws-load loads (WebSocket, tls-handshake): ws-load. */
  wsTool: T.Optional(T.Object({ name: ToolNameSchema, version: T.String(), path: T.String() })),
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

export type AppRecord = Static<typeof AppRecordSchema>;
export type Manifest = Static<typeof ManifestSchema>;
export type Startup = Static<typeof StartupSchema>;
