// h2load (nghttp2's load generator) as a LoadResult. Its text summary gives the counts, the
// bytes and the window; its per-request log (--log-file) gives the statuses and the latency
// percentiles, which the summary does not (min, max, mean and sd only). What each figure means,
// read in nghttp2 1.52.0's src/h2load.cc:
// - With -D and --warm-up-time, the summary counts the main duration only ("traffic: … total"
//   too), and the requests still in flight when it ends are cancelled, not awaited; a request
//   carried over from the warm-up is counted done and logged, with status 0 when its answer's
//   headers came during the warm-up. Every answer that ended in the window counts (the ones
//   carried in at its start stand for those cut off at its end: a closed loop's req/s is its
//   completions over the window); a status 0 is one whose status went unseen (unseenStatus).
// - A log line is `<start, µs since the epoch>\t<status>\t<µs from the request's start to its
//   stream's close>`; status -1 is a stream that did not close cleanly. No coordinated-omission
//   correction: a latency is from when the request was really sent.
// - Over HTTP/1.1 it reads the status in llhttp's callback of the reason phrase
//   (h2load_http1_session.cc, htp_statuscb), which a status line without one ("HTTP/1.1 200 ",
//   as node-elysia's event streams answer) never calls: such an answer is logged with status 0
//   too. A status 0 is the warm-up's only for a request begun before the window; one begun after
//   the window's first completion certainly was not, and a sample with one cannot be judged.
// - h2load exits 0 whether or not it could connect; a run that connected prints its protocol
//   ("Application protocol: h2"), which must be the one the scenario asked for: offered h2 that
//   a server does not take, h2load speaks HTTP/1.1 without saying so otherwise.

import { type LatencyMs, type LoadResult, non2xxOf, ParseError } from "./parse.ts";

/** The summary's counts, as h2load prints them. */
const REQUESTS =
  /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout$/m;
const TRAFFIC = /^traffic: \S+ \((\d+)\) total/m;
const MAIN_DURATION = /of warm-up time and (\d+(?:\.\d+)?)(us|ms|s) of main duration/;
const PROTOCOL = /^Application protocol: (\S+)$/gm;

const SECONDS: Readonly<Record<string, number>> = { us: 1e-6, ms: 1e-3, s: 1 };

interface Logged {
  /** µs from each answered request's start to its end (status 0 or more). */
  readonly latenciesUs: number[];
  readonly statuses: Record<string, number>;
  readonly streamErrors: number;
  readonly carriedOver: number;
  /** Status 0 on requests begun after the first one ended: not the warm-up's, so not read. */
  readonly unread: number;
  readonly lines: number;
}

function readLog(log: string): Logged {
  const latenciesUs: number[] = [];
  const statuses: Record<string, number> = {};
  let streamErrors = 0;
  let carriedOver = 0;
  let lines = 0;
  let firstEnd = Number.POSITIVE_INFINITY;
  const zeroStarts: number[] = [];
  for (const line of log.split("\n")) {
    if (line === "") continue;
    const fields = line.split("\t");
    const [start, status, delta] = fields.map(Number);
    if (fields.length !== 3 || ![start, status, delta].every(Number.isInteger)) {
      throw new ParseError(`h2load's log has a line that is not three integers: ${line}`);
    }
    lines++;
    firstEnd = Math.min(firstEnd, (start as number) + (delta as number));
    if (status === -1) {
      streamErrors++;
      continue;
    }
    latenciesUs.push(delta as number);
    if (status === 0) {
      carriedOver++;
      zeroStarts.push(start as number);
    } else statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
  }
  // The window began before its first completion: a request begun after that was begun in it.
  const unread = zeroStarts.filter((start) => start > firstEnd).length;
  return { latenciesUs, statuses, streamErrors, carriedOver, unread, lines };
}

/** Nearest-rank percentiles, in ms, of latencies in µs; zeros when there are none. */
export function latencyOf(us: number[]): LatencyMs {
  if (us.length === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  const sorted = [...us].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0) / 1000;
  return {
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length / 1000,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: (sorted.at(-1) ?? 0) / 1000,
  };
}

function checkProtocol(stdout: string, protocol: string): void {
  const spoken = [...new Set([...stdout.matchAll(PROTOCOL)].map((m) => m[1]))];
  if (spoken.length === 0) {
    throw new ParseError(
      `h2load opened no connection (it names no application protocol): ${stdout.slice(-300)}`,
    );
  }
  if (spoken.some((p) => p !== protocol)) {
    throw new ParseError(`h2load spoke ${spoken.join(", ")}, not ${protocol}`);
  }
}

/**
 * h2load's stdout and its log file, for a run that had to speak `protocol` ("http/1.1", "h2"
 * over TLS, "h2c" in the clear).
 */
export function parseH2load(stdout: string, log: string, protocol: string): LoadResult {
  const counts = REQUESTS.exec(stdout);
  const traffic = TRAFFIC.exec(stdout);
  const main = MAIN_DURATION.exec(stdout);
  if (!counts || !traffic || !main) {
    throw new ParseError(`h2load printed no summary of a timed run: ${stdout.slice(-300)}`);
  }
  checkProtocol(stdout, protocol);
  const [done, failed, errored, timeout] = [3, 5, 6, 7].map((i) => Number(counts[i]));
  const logged = readLog(log);
  // Every request done in the window is one line of the log: anything else is a log that was
  // not this run's (h2load appends to it) or one cut short.
  if (logged.lines !== done) {
    throw new ParseError(`h2load's log holds ${logged.lines} requests, its summary ${done} done`);
  }
  if (logged.unread > 0) {
    throw new ParseError(
      `h2load did not read the status of ${logged.unread} answers begun in the window (it reads an HTTP/1.1 status with its reason phrase, and a status line without one leaves it unread): the sample cannot be judged; oha and wrk read them`,
    );
  }
  const durationSec = Number(main[1]) * (SECONDS[main[2] as string] ?? 1);
  const requests = logged.latenciesUs.length;
  return {
    requests,
    durationSec,
    windowSec: durationSec,
    rps: requests / durationSec,
    bytesPerSec: Number(traffic[1]) / durationSec,
    latencyMs: latencyOf(logged.latenciesUs),
    statuses: logged.statuses,
    non2xx: non2xxOf(logged.statuses),
    ...(logged.carriedOver > 0 ? { unseenStatus: logged.carriedOver } : {}),
    socketErrors: errored as number,
    timeouts: timeout as number,
    aborted: 0,
    errorDetails: {
      failed: failed as number,
      errored: errored as number,
      timeout: timeout as number,
      "stream errors": logged.streamErrors,
      "carried over from the warm-up": logged.carriedOver,
    },
    syntheticSamplesRemoved: 0,
  };
}
