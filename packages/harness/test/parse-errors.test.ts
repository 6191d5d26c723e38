// Every field a parser reads is checked: a tool output that lacks one, or holds something
// other than a number there, is a ParseError naming that field, never a NaN in a result.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PARSERS, ParseError, parseAutocannon, parseOha, parseWrk } from "../src/load/parse.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");

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
    expect(PARSERS).toEqual({ oha: parseOha, wrk: parseWrk, autocannon: parseAutocannon });
  });
});
