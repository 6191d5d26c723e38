// Every threshold a trial is judged by, each with its reason: judge.ts applies them, the
// reports and docs quote them, and the tests probe each one from both sides.

/** A trial is invalid when more than this share of its requests failed (0.01 %). */
export const ERROR_THRESHOLD = 0.0001;
/** The load generator is saturated at this share of the cores it can keep busy... */
export const LOAD_BUSY = 0.9;
/**
 * ...but an open-loop generator adds delay of its own well before that. oha pinned to one core
 * against a server that does nothing (floor-server.ts, 100 connections, 3 s, this machine): p99
 * 0.8–1.4 ms up to 60% of its core (40k req/s), then 2.5–7 ms at 64–93%, 49 ms at 103%. Above
 * this share its latencies are partly its own, so the level judges the generator.
 */
export const OPEN_LOAD_BUSY = 0.6;
/** ...and a (single event loop) server at this share of one core... */
export const SERVER_BUSY = 0.85;
/**
 * ...or, pinned, when its own core was idle less than this share of the time: kernel work done
 * for the server (loopback network softirqs, for one) runs on its core but need not be charged
 * to its process, so a full core can show as a server below SERVER_BUSY.
 */
export const SERVER_CORE_IDLE = 0.1;
/**
 * Little's law for a closed loop: in-flight requests (requests × mean latency / time run)
 * cannot exceed the connections, since each holds at most one request. Above 1 + this
 * tolerance (rounding of the tool's latencies) the numbers contradict each other and the
 * trial is invalid.
 */
export const LITTLE_TOLERANCE = 0.05;
/**
 * Below this share of the connections, connections sat idle between a response and the next
 * request more than half the time: the load generator, not the server, paced the run.
 */
export const LITTLE_IDLE = 0.5;
/** autocannon keeps whole milliseconds: its mean is within the tolerance from this mean up. */
export const AUTOCANNON_MIN_MEAN_MS = 20;
/**
 * Contention: the server's core was busy (100 − idle %) this many points more than the server
 * itself used it. Kernel work for the server (loopback softirqs) is not charged to it but is
 * small: 1% at the median, 5% at the 95th percentile over 477 trials of this project's runs.
 */
export const CONTENDED_POINTS = 20;
/** ...or the hypervisor withheld this share of all the cores (CPU steal). */
export const STEAL_HIGH = 20;
/**
 * The server and the load generator share the machine's cores (unpinned: --no-pin, or as many
 * workers as cores) and together kept this share of them busy: the machine was full, which
 * says neither what the server could do with cores of its own nor that the generator limited it.
 */
export const MACHINE_FULL = 0.9;
/**
 * The load generator at this share of what it can keep busy is at its ceiling, whatever the
 * server did: the figure is a lower bound of the server's capacity, not its measure. On two
 * cores wrk reached 98–99% of its core against a server that does nothing (floor-server.ts).
 */
export const GENERATOR_CEILING = 0.95;
/**
 * ...as is a sample whose requests in flight fell below this share of the connections while
 * the server's core was idle at least CEILING_CORE_IDLE % of the time: connections waited on
 * the generator while the server had room (deno-bare at 90–94% CPU, its core 4–9% idle, 51% of
 * connections in flight passed every other flag).
 */
export const CEILING_IN_FLIGHT = 0.9;
export const CEILING_CORE_IDLE = 3;
/** A tool that measured less than this share of the requested time stopped early. */
export const MIN_WINDOW_SHARE = 0.9;
/** CPU readings this far above the cores a process may use are a broken measurement. */
export const CPU_SLACK = 1.05;

/** The link counts as full from this share of its speed on. */
export const LINK_FULL = 0.8;
/** The round trip sets the pace when it is at least this share of the mean latency. */
export const RTT_SHARE = 0.5;
