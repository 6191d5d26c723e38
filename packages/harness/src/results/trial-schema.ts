// results.json's samples: a closed-loop trial, a side-by-side pair's sample and an open-loop
// rate trial, each with the load result they share. schema.ts assembles the whole file.

import { type Static, Type as T } from "@sinclair/typebox";

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
  /** Answers counted whose status the tool did not record (h2load's carried over from its warm-up). */
  unseenStatus: T.Optional(T.Integer({ minimum: 1 })),
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
  /** From a request's start to its answer's first body byte (oha only), over its successes. */
  firstByteMs: T.Optional(
    T.Object({
      mean: T.Number({ minimum: 0 }),
      p50: T.Number({ minimum: 0 }),
      p99: T.Number({ minimum: 0 }),
    }),
  ),
});

export const ToolNameSchema = T.Union([
  T.Literal("oha"),
  T.Literal("wrk"),
  T.Literal("autocannon"),
  T.Literal("ws-load"),
  T.Literal("h2load"),
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
   * CPU steal on the server's own CPU set over the window, % of it (pinned runs; absent before
   * it was recorded). A sample at or above --max-steal is excluded (analysis/steal.ts).
   */
  serverStealPercent: T.Optional(T.Number({ minimum: 0 })),
  /** A sample taken again at the end of its process for one lost to CPU steal; absent: planned. */
  retake: T.Optional(T.Literal(true)),
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
  /** CPU steal over the window, % of all cores. */
  stealPercent: T.Number({ minimum: 0 }),
  /**
   * CPU steal on the servers' CPU set over the window, % of it (absent before it was
   * recorded). A sample at or above --max-steal is excluded (analysis/steal.ts).
   */
  serverStealPercent: T.Optional(T.Number({ minimum: 0 })),
  /** A sample taken again at the end of its pair for one lost to CPU steal; absent: planned. */
  retake: T.Optional(T.Literal(true)),
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

export type Trial = Static<typeof TrialSchema>;
export type RateTrial = Static<typeof RateTrialSchema>;
export type PairTrial = Static<typeof PairTrialSchema>;
export type PairSide = Static<typeof PairSideSchema>;
