// h2load's summary and per-request log as a LoadResult: real captures (fixtures/README.md) and
// edits of them for what a capture cannot show on demand.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { againstExpected } from "../src/load/parse.ts";
import { latencyOf, parseH2load } from "../src/load/parse-h2load.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", name), "utf8");
const capture = (name: string) => ({
  stdout: fixture(`h2load-${name}.txt`),
  log: fixture(`h2load-${name}.tsv`),
});

/** The log's answered requests' latencies in µs, sorted, read here independently. */
function loggedUs(log: string): number[] {
  return log
    .trim()
    .split("\n")
    .map((line) => Number(line.split("\t")[2]))
    .sort((a, b) => a - b);
}

/** The summary's counts line with `done` requests done and `failed`, `errored` of them. */
function withCounts(stdout: string, done: number, failed = 0, errored = 0): string {
  return stdout.replace(
    /^requests: .*$/m,
    `requests: ${done} total, ${done} started, ${done} done, ${done - failed} succeeded, ${failed} failed, ${errored} errored, 0 timeout`,
  );
}

describe("h2load", () => {
  test("HTTP/1.1: requests and statuses from the log, req/s over the main duration, µs to ms", () => {
    const { stdout, log } = capture("h1");
    const r = parseH2load(stdout, log, "http/1.1");
    expect(r.requests).toBe(101);
    expect(r.statuses).toEqual({ "200": 101 });
    expect([r.durationSec, r.windowSec]).toEqual([0.1, 0.1]);
    expect(r.rps).toBeCloseTo(1010, 6);
    // traffic: the main duration's bytes (its "(N) total"), over the main duration
    const bytes = Number(/^traffic: \S+ \((\d+)\) total/m.exec(stdout)?.[1]);
    expect(r.bytesPerSec).toBeCloseTo(bytes / 0.1, 6);
    const us = loggedUs(log);
    expect(r.latencyMs.max).toBe((us.at(-1) as number) / 1000);
    expect(r.latencyMs.p50).toBe((us[Math.ceil(0.5 * us.length) - 1] as number) / 1000);
    expect(r.latencyMs.mean).toBeCloseTo(us.reduce((a, b) => a + b, 0) / us.length / 1000, 9);
    expect([r.non2xx, r.socketErrors, r.timeouts, r.aborted]).toEqual([0, 0, 0, 0]);
  });

  test("h2 over TLS and h2c: the protocol spoken is the one asked for, or the sample is refused", () => {
    // 200 answers ended in the window, 8 of them carried over from the warm-up with their
    // headers read there (status 0, unseen): the 2 connections × 4 streams in flight then.
    const h2Run = parseH2load(capture("h2").stdout, capture("h2").log, "h2");
    expect([h2Run.requests, h2Run.unseenStatus, h2Run.non2xx]).toEqual([200, 8, 0]);
    expect(h2Run.statuses).toEqual({ "200": 192 });
    expect(h2Run.rps).toBeCloseTo(2000, 6);
    const h2cRun = parseH2load(capture("h2c").stdout, capture("h2c").log, "h2c");
    expect([h2cRun.requests, h2cRun.unseenStatus]).toEqual([328, 4]);
    // Offered h2 that a server does not take, h2load speaks HTTP/1.1 and says so only there.
    const h1 = capture("h1");
    expect(() => parseH2load(h1.stdout, h1.log, "h2")).toThrow("h2load spoke http/1.1, not h2");
    const h2 = capture("h2");
    expect(() => parseH2load(h2.stdout, h2.log, "h2c")).toThrow("h2load spoke h2, not h2c");
  });

  test("every answer a 404: counted, and all of them the wrong status", () => {
    const { stdout, log } = capture("404");
    const r = parseH2load(stdout, log, "http/1.1");
    expect(r.statuses).toEqual({ "404": 131 });
    expect([r.requests, r.non2xx]).toEqual([131, 131]);
    // h2load's own "failed" counts them too; no request ended in an error.
    expect([r.errorDetails.failed, r.socketErrors]).toEqual([131, 0]);
    // A scenario that expects 404: all right; one whose status went unseen is not held wrong.
    expect(againstExpected(r, 404).non2xx).toBe(0);
    const unseen = log.replace(/\t404\t/, "\t0\t");
    const u = againstExpected(parseH2load(stdout, unseen, "http/1.1"), 404);
    expect([u.requests, u.unseenStatus, u.non2xx]).toEqual([131, 1, 0]);
    expect(againstExpected(parseH2load(stdout, unseen, "http/1.1"), 200).non2xx).toBe(130);
  });

  test("a port nothing listens on: h2load exits 0 with zeros, and is refused here", () => {
    const { stdout, log } = capture("refused");
    expect(() => parseH2load(stdout, log, "http/1.1")).toThrow("h2load opened no connection");
  });

  test("the log must be this run's whole log: a line more, a line less or a torn line", () => {
    const { stdout, log } = capture("h1");
    const extra = `${log}1795963595112466\t200\t3309\n`;
    expect(() => parseH2load(stdout, extra, "http/1.1")).toThrow(
      "h2load's log holds 102 requests, its summary 101 done",
    );
    const cut = log.split("\n").slice(1).join("\n");
    expect(() => parseH2load(stdout, cut, "http/1.1")).toThrow("holds 100 requests");
    const torn = log.replace(/\t3309\n/, "\t33");
    expect(() => parseH2load(stdout, `${torn}\n12\t200\n`, "http/1.1")).toThrow(
      "not three integers",
    );
    expect(() => parseH2load("", log, "http/1.1")).toThrow("h2load printed no summary");
  });

  test("a stream that did not close cleanly (-1) is an error; one carried over (0) counts, its status unseen", () => {
    const { stdout, log } = capture("h2c");
    const lines = log.trim().split("\n");
    // The fifth line is the first with a status, begun before the first answer ended (the
    // window's start): a status 0 there is the warm-up's.
    const edited = lines
      .map((line, i) => {
        if (i === 4) return line.replace(/\t200\t/, "\t0\t");
        return i === lines.length - 3 ? line.replace(/\t200\t/, "\t-1\t") : line;
      })
      .join("\n");
    const r = parseH2load(withCounts(stdout, lines.length, 1, 1), edited, "h2c");
    // The capture's 328 answers, one of them now an error; 4 + 1 with their status unseen.
    expect(r.requests).toBe(327);
    expect(r.statuses).toEqual({ "200": 322 });
    expect(r.unseenStatus).toBe(5);
    expect(r.socketErrors).toBe(1);
    expect(r.errorDetails["stream errors"]).toBe(1);
    expect(r.errorDetails["carried over from the warm-up"]).toBe(5);
  });

  test("a status 0 on a request begun after the window's first answer ended was not read: refused", () => {
    const { stdout, log } = capture("h1");
    const lines = log.trim().split("\n");
    const ends = lines.map((line) => {
      const [start, , delta] = line.split("\t").map(Number);
      return (start as number) + (delta as number);
    });
    const firstEnd = Math.min(...ends);
    // As node-elysia's event streams read: every status unread ("HTTP/1.1 200 ", no reason);
    // all but the 2 of the 101 begun before the first answer ended are known to be unread.
    const none = log.replace(/\t200\t/g, "\t0\t");
    expect(() => parseH2load(stdout, none, "http/1.1")).toThrow(
      /^h2load did not read the status of 99 answers begun in the window/,
    );
    // One late line unread is enough; one begun exactly when the first answer ended is not
    // known to be the window's.
    const at = (i: number, start: number) =>
      lines
        .map((line, j) => (j === i ? line.replace(/^\d+\t200\t/, `${start}\t0\t`) : line))
        .join("\n");
    const late = lines.length - 1;
    expect(() => parseH2load(stdout, at(late, firstEnd + 1), "http/1.1")).toThrow(
      "did not read the status of 1 answers",
    );
    expect(parseH2load(stdout, at(late, firstEnd), "http/1.1").unseenStatus).toBe(1);
  });

  test("the main duration in any of h2load's units", () => {
    const { stdout, log } = capture("h1");
    const twoSec = stdout.replace("0.1s of main duration", "2s of main duration");
    expect(parseH2load(twoSec, log, "http/1.1").durationSec).toBe(2);
    const ms = stdout.replace("0.1s of main duration", "500ms of main duration");
    expect(parseH2load(ms, log, "http/1.1").rps).toBeCloseTo(101 / 0.5, 9);
  });

  test("the summary is h2load's own lines, each whole: a line it did not print is no summary", () => {
    const { stdout, log } = capture("h1");
    const refused = (edited: string) =>
      expect(() => parseH2load(edited, log, "http/1.1")).toThrow("h2load printed no summary");
    // Each of the three lines missing alone.
    refused(stdout.replace(/^requests: .*$/m, ""));
    refused(stdout.replace(/^traffic: .*$/m, ""));
    refused(stdout.replace(/of main duration/, "of main time"));
    // A counts or traffic line with something before or after it is not h2load's.
    refused(stdout.replace(/^requests: /m, "finished requests: "));
    refused(stdout.replace(/ 0 timeout$/m, " 0 timeout (and more)"));
    refused(stdout.replace(/^traffic: /m, "total traffic: "));
    // Counts of more than one digit in every place, and a main duration with two decimals.
    const big = withCounts(stdout, 101, 12, 11).replace(" 0 timeout", " 10 timeout");
    const r = parseH2load(big.replace("0.1s of main", "0.25s of main"), log, "http/1.1");
    expect(r.errorDetails).toMatchObject({ failed: 12, errored: 11, timeout: 10 });
    expect(r.durationSec).toBe(0.25);
    // No unseen status (none carried over): no such field.
    expect(parseH2load(stdout, log, "http/1.1").unseenStatus).toBeUndefined();
  });

  test("the protocol is h2load's own line, and every one it names must be the scenario's", () => {
    const { stdout, log } = capture("h1");
    const named = (line: string) => stdout.replace(/^Application protocol: .*$/m, line);
    expect(() =>
      parseH2load(named("Application protocol: http/1.1 (guessed)"), log, "http/1.1"),
    ).toThrow("h2load opened no connection");
    expect(() => parseH2load(named("no Application protocol: http/1.1"), log, "http/1.1")).toThrow(
      "h2load opened no connection",
    );
    const both = named("Application protocol: h2\nApplication protocol: http/1.1");
    expect(() => parseH2load(both, log, "h2")).toThrow("h2load spoke h2, http/1.1, not h2");
  });

  test("a refusal quotes the end of h2load's output, not all of it", () => {
    const { stdout, log } = capture("refused");
    const long = `${"START-OF-OUTPUT ".repeat(100)}\n${stdout}`;
    expect(() => parseH2load(long, log, "http/1.1")).toThrow(/opened no connection.*$/s);
    const message = (text: string) => {
      try {
        parseH2load(text, log, "http/1.1");
      } catch (error) {
        return String(error);
      }
      return "";
    };
    for (const text of [long, `${"START-OF-OUTPUT ".repeat(100)}no summary at all`]) {
      const said = message(text);
      expect(said).not.toContain("START-OF-OUTPUT START-OF-OUTPUT START-OF-OUTPUT ".repeat(7));
      expect(said).toContain(text.slice(-60));
      expect(said.length).toBeLessThan(420);
    }
  });

  test("a log line must be three integers: a fourth field or a fraction is refused", () => {
    const { stdout, log } = capture("h1");
    const first = log.split("\n")[0] as string;
    for (const bad of [`${first}\t7`, first.replace(/\t(\d+)$/, "\t$1.5")]) {
      expect(() => parseH2load(stdout, log.replace(first, bad), "http/1.1")).toThrow(
        "not three integers",
      );
    }
  });

  test("latencies: nearest-rank percentiles in ms; none gives zeros", () => {
    const us = Array.from({ length: 1000 }, (_, i) => 1000 - i);
    expect(latencyOf(us)).toEqual({
      mean: 0.5005,
      p50: 0.5,
      p90: 0.9,
      p99: 0.99,
      p999: 0.999,
      max: 1,
    });
    expect(latencyOf([7000])).toEqual({ mean: 7, p50: 7, p90: 7, p99: 7, p999: 7, max: 7 });
    expect(latencyOf([])).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
  });
});
