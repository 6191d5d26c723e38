// One result shape for five load generators. Each parser takes the tool's own machine-readable
// output (oha --output-format json; wrk through load/wrk.lua's done(); autocannon --json;
// ws-load's one JSON line; h2load's summary and per-request log, parse-h2load.ts) and converts
// units: oha reports seconds, wrk, ws-load and h2load microseconds, autocannon milliseconds.

export type ToolName = "oha" | "wrk" | "autocannon" | "ws-load" | "h2load";

export interface LatencyMs {
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export interface LoadResult {
  /** Responses received (any status). */
  readonly requests: number;
  /** The tool's own measured time (oha with -w: until its last straggler answered). */
  readonly durationSec: number;
  /** The time req/s is over: durationSec here; the harness caps it at the requested time. */
  readonly windowSec: number;
  readonly rps: number;
  readonly bytesPerSec: number;
  readonly latencyMs: LatencyMs;
  /** Responses per status code; wrk only tells 2xx/3xx apart from the rest ("4xx/5xx"). */
  readonly statuses: Readonly<Record<string, number>>;
  /**
   * Responses whose status is not 2xx (3xx included, except for wrk, which cannot tell); for a
   * scenario that expects another status (expectedStatus), responses with any other status.
   */
  readonly non2xx: number;
  /**
   * Answers counted in `requests` whose status the tool did not record (h2load's carried over
   * from its warm-up, their headers read there): in no status, neither right nor wrong.
   */
  readonly unseenStatus?: number;
  /** The status every answer had to have, when it is not 200 (see againstExpected). */
  readonly expectedStatus?: number;
  /** Connect, read and write failures and resets: the server or the network failed. */
  readonly socketErrors: number;
  readonly timeouts: number;
  /** Requests cut off by the tool's own deadline (oha without -w): not the server's fault. */
  readonly aborted: number;
  /** The tool's own error breakdown, verbatim. */
  readonly errorDetails: Readonly<Record<string, number>>;
  /** Synthetic latency samples the tool had added and this parser removed (wrk); else 0. */
  readonly syntheticSamplesRemoved: number;
  /**
   * From a request's start to the first byte of its answer's body (its first chunk or DATA
   * frame), over the successful requests: oha's firstByte figures; the other tools report none.
   */
  readonly firstByteMs?: FirstByteMs;
}

export interface FirstByteMs {
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
}

export class ParseError extends Error {}

function numberField(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    // JSON.stringify would print an out-of-range number (1e999 → Infinity) as "null".
    const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
    throw new ParseError(`${what} is ${shown}, expected a number`);
  }
  return value;
}

/** A latency that is absent because nothing succeeded (oha says null) counts as 0. */
function maybe(value: unknown, what: string): number {
  return value === null || value === undefined ? 0 : numberField(value, what);
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ParseError(`${what} is missing or not an object`);
  }
  return value as Record<string, unknown>;
}

function parseJson(text: string, tool: ToolName): Record<string, unknown> {
  try {
    return object(JSON.parse(text), `${tool} output`);
  } catch (error) {
    if (error instanceof ParseError) throw error;
    throw new ParseError(`${tool} output is not JSON: ${text.slice(0, 200)}`);
  }
}

function sumValues(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((a, b) => a + b, 0);
}

/**
 * wrk's own counts tell only 2xx/3xx from 4xx/5xx; load/wrk.lua counts every status when the
 * scenario expects another status than 200 (BENCH_COUNT_STATUSES), and those are used then.
 */
function wrkStatuses(
  counted: unknown,
  requests: number,
  failedStatus: number,
): Record<string, number> {
  const statuses: Record<string, number> = {};
  if (counted !== undefined && counted !== null) {
    for (const [code, count] of Object.entries(object(counted, "wrk statuses"))) {
      statuses[code] = numberField(count, `wrk status ${code}`);
    }
    return statuses;
  }
  statuses["2xx/3xx"] = requests - failedStatus;
  if (failedStatus > 0) statuses["4xx/5xx"] = failedStatus;
  return statuses;
}

export function non2xxOf(statuses: Readonly<Record<string, number>>): number {
  return Object.entries(statuses)
    .filter(([code]) => !code.startsWith("2"))
    .reduce((total, [, count]) => total + count, 0);
}

/**
 * oha's time to the first byte of each answer's body (client.rs sets it on the body's first
 * frame, counted from the request's start; firstBytePercentiles and details.firstByte, in
 * seconds), or undefined when oha gave none: an oha from before it did, or nothing succeeded
 * (its percentiles are null then).
 */
function ohaFirstByte(json: Record<string, unknown>): FirstByteMs | undefined {
  if (json.firstBytePercentiles === undefined || json.firstBytePercentiles === null) {
    return undefined;
  }
  const percentiles = object(json.firstBytePercentiles, "oha firstBytePercentiles");
  if (percentiles.p50 === null) return undefined;
  const first = object(object(json.details, "oha details").firstByte, "oha details.firstByte");
  return {
    mean: numberField(first.average, "oha details.firstByte.average") * 1000,
    p50: numberField(percentiles.p50, "oha firstBytePercentiles.p50") * 1000,
    p99: numberField(percentiles.p99, "oha firstBytePercentiles.p99") * 1000,
  };
}

export function parseOha(text: string): LoadResult {
  const json = parseJson(text, "oha");
  const summary = object(json.summary, "oha summary");
  const percentiles = object(json.latencyPercentiles, "oha latencyPercentiles");
  const statuses: Record<string, number> = {};
  for (const [code, count] of Object.entries(
    object(json.statusCodeDistribution, "oha statusCodeDistribution"),
  )) {
    statuses[code] = numberField(count, `oha status ${code}`);
  }
  const errorDetails: Record<string, number> = {};
  let aborted = 0;
  let timeouts = 0;
  let socketErrors = 0;
  for (const [message, count] of Object.entries(
    object(json.errorDistribution, "oha errorDistribution"),
  )) {
    const n = numberField(count, `oha error "${message}"`);
    errorDetails[message] = n;
    if (message === "aborted due to deadline") aborted += n;
    else if (/timeout|timed out/i.test(message)) timeouts += n;
    else socketErrors += n;
  }
  const requests = sumValues(statuses);
  const durationSec = numberField(summary.total, "oha summary.total");
  const seconds = (key: string) => maybe(percentiles[key], `oha latencyPercentiles.${key}`) * 1000;
  return {
    requests,
    durationSec,
    windowSec: durationSec,
    rps: requests / durationSec,
    bytesPerSec: maybe(summary.totalData, "oha summary.totalData") / durationSec,
    latencyMs: {
      mean: maybe(summary.average, "oha summary.average") * 1000,
      p50: seconds("p50"),
      p90: seconds("p90"),
      p99: seconds("p99"),
      p999: seconds("p99.9"),
      max: maybe(summary.slowest, "oha summary.slowest") * 1000,
    },
    statuses,
    non2xx: non2xxOf(statuses),
    socketErrors,
    timeouts,
    aborted,
    errorDetails,
    syntheticSamplesRemoved: 0,
    ...withFirstByte(ohaFirstByte(json)),
  };
}

const withFirstByte = (firstByteMs: FirstByteMs | undefined) =>
  firstByteMs ? { firstByteMs } : {};

/**
 * wrk's stderr: whatever else is there, the line load/wrk.lua printed. Its latencies are the
 * raw ones: the script undoes wrk's coordinated-omission correction (see wrk.lua), and this
 * parser checks that the histogram it read holds one sample per answered request.
 */
export function parseWrk(stderr: string): LoadResult {
  const line = stderr.split("\n").find((l) => l.startsWith('{"wrkJson":'));
  if (!line)
    throw new ParseError(
      `wrk printed no JSON summary (was load/wrk.lua used?): ${stderr.slice(0, 200)}`,
    );
  const json = parseJson(line, "wrk");
  if (json.wrkJson !== 2)
    throw new ParseError(`wrk summary format ${String(json.wrkJson)}: expected 2 (load/wrk.lua)`);
  const errors = object(json.errors, "wrk errors");
  const requests = numberField(json.requests, "wrk requests");
  const durationSec = numberField(json.duration_us, "wrk duration_us") / 1e6;
  const failedStatus = numberField(errors.status, "wrk errors.status");
  const errorDetails: Record<string, number> = {};
  for (const key of ["connect", "read", "write", "timeout", "status"]) {
    errorDetails[key] = numberField(errors[key], `wrk errors.${key}`);
  }
  const { latencyMs, synthetic } = wrkLatency(json, requests, errorDetails.timeout ?? 0);
  const statuses = wrkStatuses(json.statuses, requests, failedStatus);
  return {
    requests,
    durationSec,
    windowSec: durationSec,
    rps: requests / durationSec,
    bytesPerSec: numberField(json.bytes, "wrk bytes") / durationSec,
    latencyMs,
    statuses,
    non2xx: failedStatus,
    socketErrors:
      (errorDetails.connect ?? 0) + (errorDetails.read ?? 0) + (errorDetails.write ?? 0),
    timeouts: errorDetails.timeout ?? 0,
    aborted: 0,
    errorDetails,
    syntheticSamplesRemoved: synthetic,
  };
}

const ZERO_LATENCY: LatencyMs = { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };

function wrkLatency(
  json: Record<string, unknown>,
  requests: number,
  timeouts: number,
): { latencyMs: LatencyMs; synthetic: number } {
  if (json.latency_problem !== null && json.latency_problem !== undefined)
    throw new ParseError(`wrk's raw latencies could not be read: ${String(json.latency_problem)}`);
  if (json.latency_us === null) {
    if (requests > 0) throw new ParseError("wrk answered requests but printed no latencies");
    return { latencyMs: ZERO_LATENCY, synthetic: 0 };
  }
  const latency = object(json.latency_us, "wrk latency_us");
  const count = numberField(latency.count, "wrk latency_us.count");
  // Every answered request is one sample, except those slower than wrk's timeout, which it
  // counts as timeouts instead. Anything else means the correction was not undone right.
  if (count > requests || count < requests - timeouts)
    throw new ParseError(
      `wrk's raw latency histogram holds ${count} samples for ${requests} requests (${timeouts} timeouts)`,
    );
  const us = (key: string) => numberField(latency[key], `wrk latency_us.${key}`) / 1000;
  return {
    latencyMs: {
      mean: us("mean"),
      p50: us("p50"),
      p90: us("p90"),
      p99: us("p99"),
      p999: us("p999"),
      max: us("max"),
    },
    synthetic: Math.max(0, numberField(json.corrected_count, "wrk corrected_count") - count),
  };
}

export function parseAutocannon(text: string): LoadResult {
  const json = parseJson(text, "autocannon");
  const latency = object(json.latency, "autocannon latency");
  const requestStats = object(json.requests, "autocannon requests");
  const throughput = object(json.throughput, "autocannon throughput");
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(
    object(json.statusCodeStats, "autocannon statusCodeStats"),
  )) {
    statuses[code] = numberField(
      object(stat, `autocannon status ${code}`).count,
      `autocannon status ${code}`,
    );
  }
  const errors = numberField(json.errors, "autocannon errors");
  const timeouts = numberField(json.timeouts, "autocannon timeouts");
  const requests = numberField(requestStats.total, "autocannon requests.total");
  const durationSec = numberField(json.duration, "autocannon duration");
  const ms = (key: string) => numberField(latency[key], `autocannon latency.${key}`);
  return {
    requests,
    durationSec,
    windowSec: durationSec,
    rps: requests / durationSec,
    bytesPerSec: numberField(throughput.total, "autocannon throughput.total") / durationSec,
    latencyMs: {
      mean: ms("mean"),
      p50: ms("p50"),
      p90: ms("p90"),
      p99: ms("p99"),
      p999: ms("p99_9"),
      max: ms("max"),
    },
    statuses,
    non2xx: numberField(json.non2xx, "autocannon non2xx"),
    // autocannon counts timeouts among its errors too.
    socketErrors: Math.max(0, errors - timeouts),
    timeouts,
    aborted: 0,
    errorDetails: { errors, timeouts, resets: numberField(json.resets ?? 0, "autocannon resets") },
    syntheticSamplesRemoved: 0,
  };
}

/**
 * The result judged against the status its scenario expects: a 429 is the answer a flooded rate
 * limiter must give, a 304 the answer to a matching If-None-Match. `non2xx` then counts the
 * answers with any other status, but for up to `allowance.upTo` answers of the allowance's
 * status (a rate limiter's 200s when a window begins during the run). A scenario that expects
 * 200 is left as the tool reported it.
 */
export function againstExpected(
  r: LoadResult,
  expected: number,
  allowance?: { readonly status: number; readonly upTo: number },
): LoadResult {
  if (expected === 200) return r;
  const allowed = allowance
    ? Math.min(r.statuses[String(allowance.status)] ?? 0, allowance.upTo)
    : 0;
  const hits = (r.statuses[String(expected)] ?? 0) + allowed;
  return { ...r, non2xx: r.requests - hits - (r.unseenStatus ?? 0), expectedStatus: expected };
}

/** ws-load's error counts that end a connection (tools/ws-load/README.md, "Output"). */
const WS_LOAD_ERRORS = ["connect", "handshake", "read", "write", "closed_by_server"] as const;

/**
 * ws-load's JSON (tools/ws-load/README.md). A "request" is what the scenario counts: echo, a
 * message echoed and verified; broadcast, a delivery to one subscriber. A wrong echo or delivery
 * (`mismatched`) or the publisher's own message coming back is a wrong answer (non2xx); a
 * connection that could not open or was ended is a socket error.
 */
export function parseWsLoad(text: string): LoadResult {
  const json = parseJson(text.trim().split("\n").at(-1) ?? "", "ws-load");
  const errors = object(json.errors, "ws-load errors");
  const latency = object(json.latency_us, "ws-load latency_us");
  const errorDetails: Record<string, number> = {};
  for (const key of [...WS_LOAD_ERRORS, "self_delivery"]) {
    errorDetails[key] = numberField(errors[key], `ws-load errors.${key}`);
  }
  const mismatched = numberField(json.mismatched, "ws-load mismatched");
  errorDetails.mismatched = mismatched;
  const broadcast = json.mode === "broadcast";
  const requests = numberField(broadcast ? json.deliveries : json.messages, "ws-load messages");
  const durationSec = numberField(json.duration_s, "ws-load duration_s");
  const ms = (key: string) => maybe(latency[key], `ws-load latency_us.${key}`) / 1000;
  return {
    requests,
    durationSec,
    windowSec: durationSec,
    rps: durationSec > 0 ? requests / durationSec : 0,
    bytesPerSec:
      durationSec > 0
        ? numberField(json.bytes_received, "ws-load bytes_received") / durationSec
        : 0,
    latencyMs: {
      mean: ms("mean"),
      p50: ms("p50"),
      p90: ms("p90"),
      p99: ms("p99"),
      p999: ms("p999"),
      max: ms("max"),
    },
    statuses: {},
    non2xx: mismatched + (errorDetails.self_delivery ?? 0),
    socketErrors: WS_LOAD_ERRORS.reduce((sum, key) => sum + (errorDetails[key] ?? 0), 0),
    timeouts: numberField(json.timeouts, "ws-load timeouts"),
    aborted: 0,
    errorDetails,
    syntheticSamplesRemoved: 0,
  };
}

/** The parsers of one output each; h2load's reads its log file too (parse-h2load.ts). */
export const PARSERS: Readonly<
  Record<Exclude<ToolName, "h2load">, (output: string) => LoadResult>
> = {
  oha: parseOha,
  wrk: parseWrk,
  autocannon: parseAutocannon,
  "ws-load": parseWsLoad,
};
