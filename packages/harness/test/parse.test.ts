// Parsers against real outputs captured from each tool on this machine (test/fixtures).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ParseError, parseAutocannon, parseOha, parseWrk } from "../src/parse.ts";

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

describe("wrk", () => {
  test("GET: microseconds converted to ms", () => {
    const r = parseWrk(fixture("wrk-get.stderr"));
    expect(r.requests).toBe(187592);
    expect(r.durationSec).toBeCloseTo(2.100183, 6);
    expect(r.rps).toBeCloseTo(187592 / 2.100183, 3);
    expect(r.latencyMs).toEqual({
      mean: 0.617101,
      p50: 0.483,
      p90: 0.863,
      p99: 3.061,
      p999: 10.306,
      max: 12.212,
    });
    expect(r.statuses).toEqual({ "2xx/3xx": 187592 });
    expect(r.bytesPerSec).toBeCloseTo(43146160 / 2.100183, 1);
  });

  test("the JSON line is found among other stderr output", () => {
    const noisy = `warning: something\n${fixture("wrk-post.stderr")}\n`;
    expect(parseWrk(noisy).requests).toBe(62318);
  });

  test("status failures are non-2xx", () => {
    const r = parseWrk(fixture("wrk-404.stderr"));
    expect(r.non2xx).toBe(159176);
    expect(r.statuses).toEqual({ "2xx/3xx": 0, "4xx/5xx": 159176 });
  });

  test("text report without the script's JSON is a ParseError", () => {
    expect(() => parseWrk(fixture("wrk-get.txt"))).toThrow(/no JSON summary/);
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
