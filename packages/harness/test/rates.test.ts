// rates/rates.ts: the --rates list and its refusals, the rate a share offers, whether a trial
// kept up with it, and the requests its schedule made due.
import { describe, expect, test } from "bun:test";
import { RATE_TOLERANCE } from "../src/analysis/rate-levels.ts";
import {
  offeredRate,
  parseRates,
  RateError,
  rateVerdict,
  SCHEDULE_SLACK_SEC,
  scheduleOf,
} from "../src/rates/rates.ts";

describe("parseRates", () => {
  test("absolute rates and shares, in the order given", () => {
    expect(parseRates("5000, 50%,12.5%")).toEqual([
      { text: "5000", absolute: 5000 },
      { text: "50%", fraction: 0.5 },
      { text: "12.5%", fraction: 0.125 },
    ]);
  });

  test.each(["", "5k", "-5", "0", "0%", "1001%", "50 %", "abc"])("refuses %j", (list) => {
    expect(() => parseRates(list)).toThrow(RateError);
  });
});

test("offeredRate: a share of the closed-loop req/s, rounded; none without one", () => {
  expect(offeredRate({ text: "5000", absolute: 5000 }, undefined)).toBe(5000);
  expect(offeredRate({ text: "50%", fraction: 0.5 }, 20_001)).toBe(10_001);
  expect(offeredRate({ text: "50%", fraction: 0.5 }, undefined)).toBeUndefined();
  expect(offeredRate({ text: "50%", fraction: 0.5 }, 0)).toBeUndefined();
  expect(offeredRate({ text: "1%", fraction: 0.01 }, 10)).toBe(1);
});

describe("rateVerdict", () => {
  const limit = 10_000 * (1 - RATE_TOLERANCE);

  test("kept up at the tolerance, over capacity just below it", () => {
    expect(rateVerdict(10_000, limit, false)).toEqual({ overCapacity: false, notes: [] });
    const over = rateVerdict(10_000, limit - 1, false);
    expect(over.overCapacity).toBe(true);
    expect(over.notes).toEqual([
      "achieved 95% of the offered rate: over the server's capacity, its latencies are those of a queue that only grows",
    ]);
  });

  test("a saturated generator is blamed, not the server", () => {
    expect(rateVerdict(10_000, 5_000, true).notes[0]).toContain(
      "achieved 50% of the offered rate, and the load generator was saturated",
    );
  });
});

describe("the rate list at its edges", () => {
  test("blank entries between commas are ignored", () => {
    expect(parseRates(" 5000 ,, 50% ,")).toEqual([
      { text: "5000", absolute: 5000 },
      { text: "50%", fraction: 0.5 },
    ]);
  });

  test("1000% is the largest share; shares with several decimals are shares", () => {
    expect(parseRates("1000%")).toEqual([{ text: "1000%", fraction: 10 }]);
    // 12.25 / 100 = 0.1225
    expect(parseRates("12.25%")).toEqual([{ text: "12.25%", fraction: 0.1225 }]);
  });

  test.each(["x50%", "50%x", "x5000", "5000x", "0x10", "1e3"])(
    "refuses %j: the whole entry is digits, or digits and a %",
    (list) => {
      expect(() => parseRates(list)).toThrow(RateError);
    },
  );

  test("each refusal says what was wrong", () => {
    expect(() => parseRates("0%")).toThrow("--rates: 0% must be above 0% and at most 1000%");
    expect(() => parseRates("5k")).toThrow(
      '--rates: "5k" is neither a rate in req/s (5000) nor a share (50%)',
    );
    expect(() => parseRates(" , ")).toThrow("--rates names no rate");
  });
});

describe("the budget rule", () => {
  test("scheduled requests: the rate over the window, less oha's timer slack at the deadline", () => {
    expect(scheduleOf(10_000, 5, null)).toEqual({
      scheduled: Math.floor(10_000 * (5 - SCHEDULE_SLACK_SEC)) + 1,
      sent: 0,
      unsent: 49_981,
    });
    const r = { requests: 49_900, socketErrors: 30, timeouts: 20, aborted: 31 };
    expect(scheduleOf(10_000, 5, r)).toEqual({ scheduled: 49_981, sent: 49_981, unsent: 0 });
    // More sent than due (window edges): nothing is unsent, never a negative count.
    expect(scheduleOf(10_000, 5, { ...r, requests: 60_000 }).unsent).toBe(0);
  });
});
