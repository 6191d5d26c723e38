// Parsers against real outputs captured from each tool on this machine (test/fixtures), oha's at
// a fixed rate too, and every field a parser reads checked (below): a missing or non-numeric one
// is a ParseError naming it.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { allowedOtherAnswers, findScenario } from "@bench/contract";
import { RATE_TOLERANCE } from "../src/analysis/rate-levels.ts";
import {
  againstExpected,
  PARSERS,
  ParseError,
  parseAutocannon,
  parseOha,
  parseWrk,
  parseWsLoad,
} from "../src/load/parse.ts";
import { rateVerdict } from "../src/rates/rates.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");

describe("oha", () => {
  test("GET with -w: counts, seconds converted to ms, no errors", () => {
    const r = parseOha(fixture("oha-get.json"));
    expect(r.requests).toBe(145154);
    expect(r.statuses).toEqual({ "200": 145154 });
    expect(r.durationSec).toBeCloseTo(2.003787753, 6);
    expect(r.rps).toBeCloseTo(145154 / 2.003787753, 3);
    expect(r.latencyMs.mean).toBeCloseTo(0.6870077, 4);
    expect(r.latencyMs.p50).toBeCloseTo(0.516414, 4);
    expect(r.latencyMs.p90).toBeCloseTo(1.256323, 4);
    expect(r.latencyMs.p99).toBeCloseTo(3.542912, 4);
    expect(r.latencyMs.p999).toBeCloseTo(7.406815, 4);
    expect(r.latencyMs.max).toBeCloseTo(22.065343, 4);
    expect(r.bytesPerSec).toBeCloseTo(17563634 / 2.003787753, 1);
    expect(r.non2xx + r.socketErrors + r.timeouts + r.aborted).toBe(0);
  });

  test("the time to the first byte of the body: oha's firstByte, seconds converted to ms", () => {
    const r = parseOha(fixture("oha-get.json"));
    expect(r.firstByteMs?.mean).toBeCloseTo(0.6868776, 4);
    expect(r.firstByteMs?.p50).toBeCloseTo(0.516265, 4);
    expect(r.firstByteMs?.p99).toBeCloseTo(3.542816, 4);
    // None given (an older oha), or none measured (nothing succeeded): no figure, no error.
    const json = JSON.parse(fixture("oha-get.json"));
    delete json.firstBytePercentiles;
    expect(parseOha(JSON.stringify(json)).firstByteMs).toBeUndefined();
    json.firstBytePercentiles = { p50: null, p99: null };
    expect("firstByteMs" in parseOha(JSON.stringify(json))).toBe(false);
    json.firstBytePercentiles = null;
    expect("firstByteMs" in parseOha(JSON.stringify(json))).toBe(false);
  });

  test("a streamed answer (bun-bare's /stream, 1 MiB): its first byte before its last", () => {
    const r = parseOha(fixture("oha-stream.json"));
    expect(r.firstByteMs?.p50).toBeCloseTo(12.708265, 5);
    expect(r.firstByteMs?.p99).toBeCloseTo(32.030671, 5);
    expect(r.firstByteMs?.mean).toBeCloseTo(13.932888, 5);
    expect(r.latencyMs.p50).toBeGreaterThan(r.firstByteMs?.p50 ?? Number.POSITIVE_INFINITY);
    expect(r.bytesPerSec * r.durationSec).toBeCloseTo(661651456, 0);
  });

  test("without -w the deadline aborts are counted apart, not as socket errors", () => {
    const r = parseOha(fixture("oha-get-no-wait.json"));
    expect(r.aborted).toBe(50);
    expect(r.socketErrors).toBe(0);
    expect(r.errorDetails).toEqual({ "aborted due to deadline": 50 });
    expect(r.requests).toBe(164686);
  });

  test("404s are non-2xx", () => {
    const r = parseOha(fixture("oha-404.json"));
    expect(r.statuses).toEqual({ "404": 156648 });
    expect(r.non2xx).toBe(156648);
  });

  test("POST body", () => {
    const r = parseOha(fixture("oha-post.json"));
    expect(r.requests).toBe(59598);
    expect(r.non2xx).toBe(0);
    expect(r.latencyMs.p99).toBeCloseTo(5.327213, 4);
  });

  test("garbage is a ParseError naming the tool", () => {
    expect(() => parseOha("Error: connection refused")).toThrow(ParseError);
    expect(() => parseOha("{}")).toThrow(/oha summary/);
  });
});

describe("oha's error distribution", () => {
  test("resets are socket errors, timeouts are timeouts, deadline aborts are neither", () => {
    const json = JSON.parse(fixture("oha-get.json"));
    json.errorDistribution = {
      "connection reset by peer (os error 104)": 3,
      "operation timed out": 2,
      "aborted due to deadline": 5,
    };
    const r = parseOha(JSON.stringify(json));
    expect([r.socketErrors, r.timeouts, r.aborted]).toEqual([3, 2, 5]);
    expect(r.errorDetails["operation timed out"]).toBe(2);
  });
});

describe("oha in rate mode", () => {
  test("under capacity: the offered 2,000 req/s were sent, latencies small", () => {
    const r = parseOha(fixture("oha-rate-under.json"));
    expect(r.requests).toBe(5997);
    expect(r.requests / 3).toBeGreaterThan(2000 * (1 - RATE_TOLERANCE));
    expect(r.latencyMs.p50).toBeCloseTo(0.568057, 4);
    expect(r.latencyMs.p99).toBeCloseTo(27.995698, 4);
    expect(r.non2xx + r.socketErrors + r.timeouts).toBe(0);
  });

  test("over capacity: a fraction of the offer, latencies of a growing queue", () => {
    const r = parseOha(fixture("oha-rate-over.json"));
    expect(r.requests).toBe(23855);
    expect(rateVerdict(30_000, r.requests / 3, false).overCapacity).toBe(true);
    expect(r.latencyMs.p50).toBeCloseTo(1323.636555, 3);
    expect(r.latencyMs.max).toBeCloseTo(2219.778394, 3);
  });
});

describe("wrk", () => {
  test("GET: microseconds converted to ms, the raw (uncorrected) histogram", () => {
    const r = parseWrk(fixture("wrk-get.stderr"));
    expect(r.requests).toBe(38068);
    expect(r.durationSec).toBeCloseTo(2.023121, 6);
    expect(r.rps).toBeCloseTo(38068 / 2.023121, 3);
    expect(r.latencyMs).toEqual({
      mean: 2.344578,
      p50: 1.503,
      p90: 5.395,
      p99: 9.152,
      p999: 30.564,
      max: 35.923,
    });
    expect(r.statuses).toEqual({ "2xx/3xx": 38068 });
    expect(r.bytesPerSec).toBeCloseTo(8755640 / 2.023121, 1);
    // wrk's correction had added 5,585 synthetic samples; they are gone.
    expect(r.syntheticSamplesRemoved).toBe(43653 - 38068);
  });

  test("raw latencies obey Little's law where wrk's corrected ones did not", () => {
    // A server that stalls 200 ms on every 50th request, 8 connections (captured): wrk's own
    // report says mean 53.36 ms, i.e. 7.5 requests in flight; the raw histogram holds exactly
    // one sample per request and gives 48.68 ms.
    const r = parseWrk(fixture("wrk-tail.stderr"));
    expect(r.latencyMs.mean).toBeCloseTo(48.684102, 6);
    expect(r.syntheticSamplesRemoved).toBe(17);
    const inFlight = r.rps * (r.latencyMs.mean / 1000);
    expect(inFlight).toBeLessThanOrEqual(8);
    expect(inFlight).toBeCloseTo(6.88, 2);
  });

  test("the JSON line is found among other stderr output", () => {
    const noisy = `warning: something\n${fixture("wrk-post.stderr")}\n`;
    expect(parseWrk(noisy).requests).toBe(13164);
  });

  test("status failures are non-2xx", () => {
    const r = parseWrk(fixture("wrk-404.stderr"));
    expect(r.non2xx).toBe(32349);
    expect(r.statuses).toEqual({ "2xx/3xx": 0, "4xx/5xx": 32349 });
  });

  test("text report without the script's JSON is a ParseError", () => {
    expect(() => parseWrk(fixture("wrk-get.txt"))).toThrow(/no JSON summary/);
  });

  const line = (patch: Record<string, unknown>) => {
    const json = JSON.parse(fixture("wrk-get.stderr"));
    return JSON.stringify({ ...json, ...patch });
  };

  test("the old script's corrected latencies are refused, not mixed in", () => {
    expect(() => parseWrk(line({ wrkJson: 1 }))).toThrow(ParseError);
  });

  test("a histogram that does not hold one sample per request is refused", () => {
    const json = JSON.parse(fixture("wrk-get.stderr"));
    const tooMany = { ...json.latency_us, count: 43653 };
    expect(() => parseWrk(line({ latency_us: tooMany }))).toThrow(/43653 samples for 38068/);
    const tooFew = { ...json.latency_us, count: 38000 };
    expect(() => parseWrk(line({ latency_us: tooFew }))).toThrow(ParseError);
    // ...unless the missing ones were wrk timeouts (slower than its histogram reaches).
    const errors = { ...json.errors, timeout: 68 };
    expect(parseWrk(line({ latency_us: tooFew, errors })).timeouts).toBe(68);
  });

  test("statuses counted by the script (BENCH_COUNT_STATUSES) are taken as they are", () => {
    // The script prints "statuses":null when it did not count: wrk's own split then.
    expect(parseWrk(line({ statuses: null })).statuses).toEqual({ "2xx/3xx": 38068 });
    // 38,068 requests: 38,000 answered 201, 68 answered 429.
    const counted = { "201": 38000, "429": 68 };
    expect(parseWrk(line({ statuses: counted })).statuses).toEqual(counted);
    expect(() => parseWrk(line({ statuses: [] }))).toThrow(/wrk statuses/);
    expect(() => parseWrk(line({ statuses: { "201": "many" } }))).toThrow(/wrk status 201 is/);
  });

  test("a histogram the script could not read is a ParseError naming why", () => {
    const problem = "wrk's latency histogram does not have the expected layout";
    expect(() => parseWrk(line({ latency_problem: problem, latency_us: null }))).toThrow(
      /expected layout/,
    );
  });
});

describe("autocannon", () => {
  test("GET", () => {
    const r = parseAutocannon(fixture("autocannon-get.json"));
    const raw = JSON.parse(fixture("autocannon-get.json"));
    expect(r.requests).toBe(raw.requests.total);
    expect(r.durationSec).toBe(raw.duration);
    expect(r.latencyMs.p99).toBe(raw.latency.p99);
    expect(r.latencyMs.p999).toBe(raw.latency.p99_9);
    expect(r.statuses).toEqual({ "200": raw.requests.total });
    expect(r.socketErrors).toBe(0);
  });

  test("POST", () => {
    const r = parseAutocannon(fixture("autocannon-post.json"));
    expect(r.requests).toBe(63320);
    expect(r.statuses).toEqual({ "200": 63320 });
    expect(r.bytesPerSec).toBeCloseTo(68765520 / 2.02, 1);
  });

  test("404s", () => {
    const r = parseAutocannon(fixture("autocannon-404.json"));
    expect(r.non2xx).toBe(115726);
    expect(r.statuses).toEqual({ "404": 115726 });
  });
});

describe("answers judged against the scenario's status", () => {
  const flood = { ...parseOha(fixture("oha-get.json")), requests: 1000 };
  const answered = (statuses: Record<string, number>) => ({ ...flood, statuses });

  test("a 429 flood: every other status fails, but a window's first 200s are right", () => {
    const ratelimit = findScenario("ratelimit");
    if (!ratelimit) throw new Error("no ratelimit scenario");
    const one = allowedOtherAnswers(ratelimit, 1);
    expect(one).toEqual({ status: 200, upTo: 10 });
    expect(allowedOtherAnswers(ratelimit, 1, 3)?.upTo).toBe(30);
    expect(allowedOtherAnswers(ratelimit, 61)?.upTo).toBe(20);
    expect(allowedOtherAnswers({ ...ratelimit, allowance: undefined }, 1)).toBeUndefined();
    const reset = answered({ "429": 990, "200": 10 });
    expect(againstExpected(reset, 429, one).non2xx).toBe(0);
    expect(againstExpected(reset, 429).non2xx).toBe(10);
    const leaky = answered({ "429": 950, "200": 40, "500": 10 });
    expect(againstExpected(leaky, 429, one).non2xx).toBe(40); // 30 200s beyond, and the 500s
    expect(againstExpected(leaky, 429, one).expectedStatus).toBe(429);
  });

  test("a scenario that expects 200 keeps the tool's own count", () => {
    const r = answered({ "200": 990, "404": 10 });
    expect(againstExpected({ ...r, non2xx: 10 }, 200, { status: 404, upTo: 100 }).non2xx).toBe(10);
  });
});

// Every field a parser reads is checked: a tool output that lacks one, or holds something
// other than a number there, is a ParseError naming that field, never a NaN in a result.
/** `json` with the value at `path` (dot-separated) replaced, or removed when undefined. */
function patched(json: unknown, path: string, value: unknown): string {
  const copy = structuredClone(json) as Record<string, unknown>;
  const keys = path.split(".");
  const last = keys.pop() as string;
  let node = copy;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return JSON.stringify(copy);
}

const wrkJson = () => {
  const line = fixture("wrk-get.stderr")
    .split("\n")
    .find((l) => l.startsWith("{"));
  return JSON.parse(line as string);
};

const CASES: [string, (text: string) => unknown, unknown, string, string][] = [
  ["oha", parseOha, JSON.parse(fixture("oha-get.json")), "summary.total", "oha summary.total"],
  ["oha", parseOha, JSON.parse(fixture("oha-get.json")), "summary", "oha summary"],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "latencyPercentiles",
    "oha latencyPercentiles",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "latencyPercentiles.p99",
    "oha latencyPercentiles.p99",
  ],
  ["oha", parseOha, JSON.parse(fixture("oha-get.json")), "summary.average", "oha summary.average"],
  ["oha", parseOha, JSON.parse(fixture("oha-get.json")), "summary.slowest", "oha summary.slowest"],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "summary.totalData",
    "oha summary.totalData",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "statusCodeDistribution",
    "oha statusCodeDistribution",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "statusCodeDistribution.200",
    "oha status 200",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "errorDistribution",
    "oha errorDistribution",
  ],
  ["wrk", parseWrk, wrkJson(), "requests", "wrk requests"],
  ["wrk", parseWrk, wrkJson(), "duration_us", "wrk duration_us"],
  ["wrk", parseWrk, wrkJson(), "bytes", "wrk bytes"],
  ["wrk", parseWrk, wrkJson(), "errors", "wrk errors"],
  ["wrk", parseWrk, wrkJson(), "errors.status", "wrk errors.status"],
  ["wrk", parseWrk, wrkJson(), "errors.read", "wrk errors.read"],
  ["wrk", parseWrk, wrkJson(), "latency_us.count", "wrk latency_us.count"],
  ["wrk", parseWrk, wrkJson(), "latency_us.p99", "wrk latency_us.p99"],
  ["wrk", parseWrk, wrkJson(), "corrected_count", "wrk corrected_count"],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "latency",
    "autocannon latency",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "latency.p99_9",
    "autocannon latency.p99_9",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "requests",
    "autocannon requests",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "requests.total",
    "autocannon requests.total",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "throughput",
    "autocannon throughput",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "throughput.total",
    "autocannon throughput.total",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "statusCodeStats",
    "autocannon statusCodeStats",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "statusCodeStats.200",
    "autocannon status 200",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "errors",
    "autocannon errors",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "timeouts",
    "autocannon timeouts",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "duration",
    "autocannon duration",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "non2xx",
    "autocannon non2xx",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "statusCodeStats.200.count",
    "autocannon status 200",
  ],
  [
    "autocannon",
    parseAutocannon,
    JSON.parse(fixture("autocannon-get.json")),
    "resets",
    "autocannon resets",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "errorDistribution.reset",
    'oha error "reset"',
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "firstBytePercentiles",
    "oha firstBytePercentiles",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "firstBytePercentiles.p50",
    "oha firstBytePercentiles.p50",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "firstBytePercentiles.p99",
    "oha firstBytePercentiles.p99",
  ],
  ["oha", parseOha, JSON.parse(fixture("oha-get.json")), "details", "oha details"],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "details.firstByte",
    "oha details.firstByte",
  ],
  [
    "oha",
    parseOha,
    JSON.parse(fixture("oha-get.json")),
    "details.firstByte.average",
    "oha details.firstByte.average",
  ],
];

/** wrk's parser reads the first line that starts with its marker: wrap a patched object. */
const asText = (tool: string, text: string) => (tool === "wrk" ? `noise\n${text}\n` : text);

/**
 * Fields oha leaves null when nothing succeeded, and map entries, may be absent (they read as
 * 0 / no entry): only a wrong type is an error there.
 */
const OPTIONAL = new Set([
  "oha:latencyPercentiles.p99",
  "oha:summary.average",
  "oha:summary.slowest",
  "oha:summary.totalData",
  "oha:statusCodeDistribution.200",
  "autocannon:statusCodeStats.200",
  "autocannon:resets",
  "oha:errorDistribution.reset",
  // An oha from before it reported the first byte; and nothing succeeded (null percentiles).
  "oha:firstBytePercentiles",
  "oha:firstBytePercentiles.p50",
]);

describe("a missing or non-numeric field is a ParseError naming it", () => {
  for (const [tool, parse, json, path, named] of CASES) {
    test(`${tool}: ${path}`, () => {
      const bad = OPTIONAL.has(`${tool}:${path}`) ? ["12", true] : [undefined, null, "12"];
      for (const value of bad) {
        let thrown: unknown;
        try {
          parse(asText(tool, patched(json, path, value)));
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ParseError);
        expect((thrown as Error).message).toContain(named);
      }
    });
  }
});

describe("what the parsers compute", () => {
  test("output that is not JSON, or JSON that is not an object, names the tool", () => {
    expect(() => parseOha("oops")).toThrow("oha output is not JSON: oops");
    expect(() => parseOha("[1, 2]")).toThrow("oha output is missing or not an object");
    expect(() => parseAutocannon("null")).toThrow("autocannon output is missing or not an object");
    expect(() => parseWrk("no marker here")).toThrow(
      "wrk printed no JSON summary (was load/wrk.lua used?): no marker here",
    );
    expect(() => parseWrk('{"wrkJson":2, oops')).toThrow("wrk output is not JSON");
  });

  test("the output quoted in the error is cut at 200 characters", () => {
    const garbage = `Error: ${"x".repeat(1000)}`;
    expect(() => parseOha(garbage)).toThrow(
      new ParseError(`oha output is not JSON: ${garbage.slice(0, 200)}`),
    );
    expect(() => parseWrk(garbage)).toThrow(
      new ParseError(
        `wrk printed no JSON summary (was load/wrk.lua used?): ${garbage.slice(0, 200)}`,
      ),
    );
  });

  test("a number too large for a double (Infinity) is no number", () => {
    const text = fixture("oha-get.json").replace(/"total": [0-9.]+/, '"total": 1e999');
    expect(text).toContain("1e999");
    expect(() => parseOha(text)).toThrow(ParseError);
    expect(() => parseOha(text)).toThrow("oha summary.total is Infinity, expected a number");
    // Anything else is shown as the JSON it was.
    const word = fixture("oha-get.json").replace(/"total": [0-9.]+/, '"total": "fast"');
    expect(() => parseOha(word)).toThrow('oha summary.total is "fast", expected a number');
  });

  test("oha: percentiles of nothing (null, or absent) count as 0 ms", () => {
    const json = JSON.parse(fixture("oha-get.json"));
    json.latencyPercentiles.p99 = null;
    json.summary.average = null;
    const r = parseOha(JSON.stringify(json));
    expect([r.latencyMs.p99, r.latencyMs.mean]).toEqual([0, 0]);
    delete json.latencyPercentiles.p99;
    delete json.summary.average;
    const absent = parseOha(JSON.stringify(json));
    expect([absent.latencyMs.p99, absent.latencyMs.mean]).toEqual([0, 0]);
  });

  test("wrk: a summary of another format, or latencies that are no object, name it", () => {
    const json = wrkJson();
    expect(() => parseWrk(JSON.stringify({ ...json, wrkJson: 1 }))).toThrow(
      "wrk summary format 1: expected 2 (load/wrk.lua)",
    );
    expect(() => parseWrk(JSON.stringify({ ...json, latency_us: 12 }))).toThrow(
      "wrk latency_us is missing or not an object",
    );
  });

  test("wrk: connect, read and write errors are socket errors; timeouts apart", () => {
    const json = wrkJson();
    json.errors = { connect: 1, read: 2, write: 4, status: 0, timeout: 8 };
    json.latency_us.count = json.requests - 8;
    const r = parseWrk(JSON.stringify(json));
    expect([r.socketErrors, r.timeouts]).toEqual([7, 8]);
  });

  test("wrk: no latencies is fine only when nothing was answered", () => {
    const json = wrkJson();
    json.latency_us = null;
    expect(() => parseWrk(JSON.stringify(json))).toThrow(
      "wrk answered requests but printed no latencies",
    );
    json.requests = 0;
    const r = parseWrk(JSON.stringify(json));
    expect(r.latencyMs).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
    expect(r.syntheticSamplesRemoved).toBe(0);
  });

  test("autocannon: req/s over its duration; its errors include the timeouts", () => {
    const json = JSON.parse(fixture("autocannon-get.json"));
    Object.assign(json, { errors: 10, timeouts: 3, resets: 2 });
    const r = parseAutocannon(JSON.stringify(json));
    expect(r.rps).toBeCloseTo(json.requests.total / json.duration, 9);
    expect([r.socketErrors, r.timeouts]).toEqual([7, 3]);
    expect(r.errorDetails).toEqual({ errors: 10, timeouts: 3, resets: 2 });
    // more timeouts than errors cannot make socket errors negative
    Object.assign(json, { errors: 1, timeouts: 3 });
    expect(parseAutocannon(JSON.stringify(json)).socketErrors).toBe(0);
  });

  test("PARSERS maps each tool to its parser", () => {
    expect(PARSERS).toEqual({
      oha: parseOha,
      wrk: parseWrk,
      autocannon: parseAutocannon,
      "ws-load": parseWsLoad,
    });
  });
});

describe("ws-load", () => {
  const echo = fixture("ws-load-echo.json");
  const broadcast = fixture("ws-load-broadcast.json");
  /** The echo fixture with some fields replaced. */
  const echoWith = (change: Record<string, unknown>) =>
    JSON.stringify({ ...JSON.parse(echo), ...change });

  test("echo: a request is a message echoed; latencies from µs to ms", () => {
    const r = parseWsLoad(echo);
    expect(r.requests).toBe(33840);
    expect(r.durationSec).toBe(0.500109);
    expect(r.windowSec).toBe(0.500109);
    expect(r.rps).toBeCloseTo(33840 / 0.500109, 6);
    expect(r.bytesPerSec).toBeCloseTo(1082880 / 0.500109, 6);
    const ms = { mean: 0.1179, p50: 0.1208, p90: 0.1615, p99: 0.2542, p999: 0.7327, max: 1.8606 };
    for (const [key, value] of Object.entries(ms)) {
      expect(r.latencyMs[key as keyof typeof ms]).toBeCloseTo(value, 9);
    }
    expect([r.non2xx, r.socketErrors, r.timeouts, r.aborted]).toEqual([0, 0, 0, 0]);
    expect(r.statuses).toEqual({});
    expect(r.syntheticSamplesRemoved).toBe(0);
  });

  test("broadcast: a request is a delivery to one subscriber; latency until the last has it", () => {
    const r = parseWsLoad(broadcast);
    expect(r.requests).toBe(10628);
    expect(r.rps).toBeCloseTo(10628 / 0.500064, 6);
    expect(r.bytesPerSec).toBeCloseTo(340096 / 0.500064, 6);
    expect(r.latencyMs.mean).toBeCloseTo(0.1867, 9);
    expect(r.latencyMs.p99).toBeCloseTo(0.8806, 9);
  });

  test("wrong answers, ended connections and time-outs are counted apart, every error kept", () => {
    const errors = { connect: 1, handshake: 2, read: 3, write: 4, closed_by_server: 5 };
    const r = parseWsLoad(
      echoWith({ mismatched: 7, timeouts: 9, errors: { ...errors, self_delivery: 6 } }),
    );
    expect(r.non2xx).toBe(7 + 6);
    expect(r.socketErrors).toBe(1 + 2 + 3 + 4 + 5);
    expect(r.timeouts).toBe(9);
    expect(r.errorDetails).toEqual({ ...errors, self_delivery: 6, mismatched: 7 });
  });

  test("the JSON is ws-load's last line: progress lines before it are skipped", () => {
    expect(parseWsLoad(`ws-load: opening 8 connections\n${echo}\n`).requests).toBe(33840);
  });

  test("nothing counted: null latencies read 0, and no rate over an empty window", () => {
    const latency = { mean: null, p50: null, p90: null, p99: null, p999: null, max: null };
    const none = parseWsLoad(echoWith({ messages: 0, duration_s: 0, latency_us: latency }));
    expect(none.requests).toBe(0);
    expect(none.rps).toBe(0);
    expect(none.bytesPerSec).toBe(0);
    expect(none.latencyMs.max).toBe(0);
  });

  test("what is not ws-load's JSON is a ParseError naming the field", () => {
    expect(() => parseWsLoad("ws-load: no connection could be opened")).toThrow(ParseError);
    expect(() => parseWsLoad(echoWith({ errors: undefined }))).toThrow("ws-load errors");
    expect(() => parseWsLoad(echoWith({ latency_us: 3 }))).toThrow("ws-load latency_us");
    expect(() => parseWsLoad(echoWith({ mismatched: "0" }))).toThrow("ws-load mismatched");
    expect(() => parseWsLoad(echoWith({ timeouts: null }))).toThrow("ws-load timeouts");
    expect(() => parseWsLoad(echoWith({ duration_s: "1" }))).toThrow("ws-load duration_s");
    expect(() => parseWsLoad(echoWith({ messages: undefined }))).toThrow("ws-load messages");
    const noRead = { connect: 0, handshake: 0, write: 0, closed_by_server: 0, self_delivery: 0 };
    expect(() => parseWsLoad(echoWith({ errors: noRead }))).toThrow("ws-load errors.read");
    expect(() => parseWsLoad(echoWith({ bytes_received: "x" }))).toThrow("ws-load bytes_received");
    expect(() => parseWsLoad(echoWith({ latency_us: { mean: "1" } }))).toThrow(
      "ws-load latency_us.mean",
    );
  });
});
