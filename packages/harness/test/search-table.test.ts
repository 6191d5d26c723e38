// report/search-table.ts: a --rates search in the reports: each searched rate a level, its
// verdict and reasons, the capacity and the chart's interval. Synthetic trials. Part of the
// mutation groups "reports" and "rates" (the search itself is in search.test.ts, its levels
// and interval in search-levels.test.ts).

import { describe, expect, test } from "bun:test";
import { rateAnalysis } from "../src/analysis/rate-analysis.ts";
import { searchInterval, searchView } from "../src/report/search-table.ts";
import type { RateTrial, Results } from "../src/results/schema.ts";
import { lat, budgetLatency as latency, rate } from "./support/rate-trials.ts";
import { syntheticRateTrial, syntheticRun } from "./support/synthetic.ts";

/** The search as the analysis has it: bun-bare on api, a 10 ms budget. */
const analysed = (trials: RateTrial[], searches: Results["searches"] = []) =>
  rateAnalysis({
    ...syntheticRun(["bun-bare"], ["api"], [], { sloP99Ms: 10 }),
    rateTrials: trials,
    searches,
  })[0]?.apps[0]?.search;
const view = (trials: RateTrial[], searches: Results["searches"] = []) => {
  const found = analysed(trials, searches);
  return found ? searchView("bun-bare", found) : undefined;
};

describe("--rates search in the reports", () => {
  const at = (offered: number, p99: number, patch: Partial<RateTrial> = {}) =>
    rate("bun-bare", "api", "search", offered, lat(1, p99), patch);

  test("each searched rate a level: its verdict the majority's, every reason a trial missed", () => {
    const trials = [at(20_000, 2), at(20_000, 30), at(20_000, 3), at(40_000, 50), at(40_000, 60)];
    const v = view(trials);
    expect(
      v?.levels.map((l) => [
        l.requested,
        l.offeredRps,
        l.trials,
        l.withinBudget,
        l.loadGeneratorBound,
      ]),
    ).toEqual([
      ["search", 20_000, 3, true, false],
      ["search", 40_000, 2, false, false],
    ]);
    expect(v?.verdicts).toEqual([
      "within (2/3 kept it): p99 30.00 ms",
      "over (0/2 kept it): p99 50.00 ms; p99 60.00 ms",
    ]);
    expect(v?.capacity).toEqual([
      "bun-bare",
      "20,000–40,000 req/s",
      "search incomplete (interrupted); 20,000 kept the budget (3 trial(s)); 40,000 over (2 trial(s))",
    ]);
    expect(searchInterval(analysed(trials))).toEqual({ low: 20_000, high: 40_000 });
    // Another app's or scenario's trials are not this search's.
    expect(view(trials.map((t) => ({ ...t, app: "node-bare" })))).toBeUndefined();
    expect(view(trials.map((t) => ({ ...t, scenario: "echo" })))).toBeUndefined();
    expect(searchInterval(analysed([]))).toBeUndefined();
  });

  test("the same reason twice is said once; an unjudged level is marked so", () => {
    const bound = { loadGeneratorBound: true };
    const v = view([at(20_000, 2, bound), at(20_000, 2, bound), at(20_000, 2)]);
    expect(v?.verdicts).toEqual(["not judged (1/3 kept it): load generator saturated"]);
    expect(v?.levels.map((l) => [l.loadGeneratorBound, l.withinBudget])).toEqual([[true, false]]);
    expect(v?.capacity).toEqual([
      "bun-bare",
      "not determined (20,000 req/s not judged)",
      "search incomplete (interrupted); 20,000 not judged (3 trial(s))",
    ]);
  });

  test("capacity when even the lowest rate missed, or nothing above was missed", () => {
    expect(view([at(30_000, 40), at(60_000, 2)])?.capacity.slice(1)).toEqual([
      "below 30,000 req/s",
      // The lowest missed: the 60,000 that kept it is noise above the miss.
      "search incomplete (interrupted); 30,000 over (1 trial(s)); a higher rate kept the budget too (noise): the lower miss caps it",
    ]);
    const record = {
      app: "bun-bare",
      scenario: "api",
      closedLoopRps: 25_000,
      trials: 15,
      elapsedSec: 89.6,
    };
    expect(view([at(20_000, 2)], [record])?.verdicts).toEqual(["within (1/1 kept it)"]);
    expect(view([at(20_000, 2)], [record])?.capacity.slice(1)).toEqual([
      "at least 20,000 req/s",
      "searched from 25,000 req/s (closed loop): 15 trials in 90 s; 20,000 kept the budget (1 trial(s))",
    ]);
    // At the trial limit (16), the ends were not all repeated.
    expect(view([at(20_000, 2)], [{ ...record, trials: 16 }])?.capacity[2]).toBe(
      "searched from 25,000 req/s (closed loop): 16 trials in 90 s; 20,000 kept the budget (1 trial(s)); stopped at its 16-trial limit, ends not all repeated",
    );
    expect(searchInterval(analysed([at(20_000, 2)]))).toBeUndefined();
  });

  test("an unjudged top: at least the bottom, and no interval for the chart", () => {
    const trials = [at(10_000, 2), at(20_000, 30), at(30_000, 2)];
    // 10,000 kept it, 20,000 missed, 30,000 kept it again: the miss caps the interval.
    expect(view(trials)?.capacity.slice(1)).toEqual([
      "10,000–20,000 req/s",
      "search incomplete (interrupted); 10,000 kept the budget (1 trial(s)); 20,000 over (1 trial(s)); a higher rate kept the budget too (noise): the lower miss caps it",
    ]);
    const top = [at(20_000, 2), at(30_000, 2, { loadGeneratorBound: true })];
    expect(view(top)?.capacity[1]).toBe("at least 20,000 req/s (not judged from 30,000)");
    expect(searchInterval(analysed(top))).toBeUndefined();
  });
});

describe("the search in the report", () => {
  test("every level listed, invalid ones too, with why; the interval with its ends' trials", () => {
    const trials = [
      syntheticRateTrial("search", 40_000, latency(30)),
      syntheticRateTrial("search", 20_000, latency(2)),
      syntheticRateTrial("search", 30_000, latency(2), {
        valid: false,
        invalidReasons: ["5 timeouts"],
      }),
    ];
    const v = view(trials);
    expect(v?.levels.map((l) => l.offeredRps)).toEqual([20_000, 30_000, 40_000]);
    expect(v?.verdicts).toEqual([
      "within (1/1 kept it)",
      "over (0/1 kept it): invalid: 5 timeouts",
      "over (0/1 kept it): p99 30.00 ms",
    ]);
    expect(v?.capacity.slice(0, 2)).toEqual(["bun-bare", "20,000–30,000 req/s"]);
    expect(v?.capacity[2]).toStartWith("search incomplete (interrupted)");
    expect(searchInterval(analysed(trials))).toEqual({ low: 20_000, high: 30_000 });
  });

  test("an unjudged top is no capacity interval; an unjudged bottom is no 'below'", () => {
    const bound = { loadGeneratorBound: true };
    const top = [
      syntheticRateTrial("search", 20_000, latency(2)),
      syntheticRateTrial("search", 30_000, latency(2), bound),
    ];
    expect(searchInterval(analysed(top))).toBeUndefined();
    expect(view(top)?.capacity[1]).toBe("at least 20,000 req/s (not judged from 30,000)");
    const bottom = [syntheticRateTrial("search", 30_000, latency(2), bound)];
    expect(view(bottom)?.capacity[1]).toBe("not determined (30,000 req/s not judged)");
  });
});
