// report/rates-table.ts: the open-loop rates table (--rates), each level's medians, spread and
// budget verdict, the capacity at the p99 budget, the chart's series and the intro. Synthetic
// trials, answers worked out by hand. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { CAPACITY_HEADER, RATES_HEADER, ratesIntro, rateViews } from "../src/report/rates-table.ts";
import { BUDGET_RULE, SEARCH_INTRO } from "../src/report/search-table.ts";
import type { RateTrial, Results } from "../src/results/schema.ts";
import { expectHeaderOf } from "./support/expect-header.ts";
import { lat, rate } from "./support/rate-trials.ts";
import { syntheticRun } from "./support/synthetic.ts";

describe("open-loop rates (--rates) and their capacity at the p99 budget", () => {
  const TRIALS: RateTrial[] = [
    // api, bun-bare: listed out of order; 5,000 kept the 10 ms budget twice, 10,000 missed it,
    // 20,000 achieved only 15,000 (over capacity).
    rate("bun-bare", "api", "20000", 20_000, lat(50, 200), {
      achievedRps: 15_000,
      overCapacity: true,
    }),
    rate("bun-bare", "api", "5000", 5_000, lat(1, 2)),
    rate("bun-bare", "api", "10000", 10_000, lat(5, 20)),
    rate("bun-bare", "api", "5000", 5_000, lat(3, 4)),
    // api, node-bare: no level says anything of the server.
    rate("node-bare", "api", "1000", 1_000, lat(1, 1), { loadGeneratorBound: true }),
    rate("node-bare", "api", "2000", 2_000, lat(1, 1), { machineFull: true }),
    // api, deno-bare: 3,000 missed, 6,000 kept it with 5 requests never sent (p99.9 8 ≤ 10, and
    // 5 + 0.1% of 6,000 answered = 11 ≤ 1% of 6,000 scheduled): a lower rate missed, noise.
    rate("deno-bare", "api", "3000", 3_000, lat(4, 20)),
    rate("deno-bare", "api", "6000", 6_000, lat(2, 5, 8), {
      schedule: { scheduled: 6_000, sent: 5_995, unsent: 5 },
    }),
    // echo, bun-bare: every judged rate missed; the saturated one does not count as the lowest.
    rate("bun-bare", "echo", "2000", 2_000, lat(1, 1), { loadGeneratorBound: true }),
    rate("bun-bare", "echo", "8000", 8_000, lat(10, 30)),
    rate("bun-bare", "echo", "4000", 4_000, lat(5, 20)),
    // echo, node-bare: a listed rate and a search (2 of 3 kept 10,000; 20,000 missed).
    rate("node-bare", "echo", "15000", 15_000, lat(3, 8)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 4)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 5)),
    rate("node-bare", "echo", "search", 10_000, lat(2, 30)),
    rate("node-bare", "echo", "search", 20_000, lat(5, 40)),
  ];
  const RUN: Results = {
    ...syntheticRun(["bun-bare", "node-bare", "deno-bare"], ["api", "echo", "hello"], [], {
      sloP99Ms: 10,
    }),
    rateTrials: TRIALS,
    searches: [
      { app: "node-bare", scenario: "api", closedLoopRps: 99_999, trials: 9, elapsedSec: 9 },
      { app: "bun-bare", scenario: "echo", closedLoopRps: 77_777, trials: 7, elapsedSec: 7 },
      { app: "node-bare", scenario: "echo", closedLoopRps: 20_000, trials: 4, elapsedSec: 61.4 },
    ],
  };

  test("per scenario with trials: each level's medians, spread and budget verdict", () => {
    const views = rateViews(analyze(RUN));
    expect(views.map((v) => v.scenario)).toEqual(["api", "echo"]); // hello: no trials, no table
    const [api, echo] = views;
    expectHeaderOf(RATES_HEADER, api?.rows[0]);
    expect(api?.rows).toEqual([
      // Two trials: p50 median of 1 and 3, p99 median of 2 and 4, with its range.
      ["bun-bare", "5000", "5,000", "5,000", "2.00", "3.00 (2.00–4.00)", "within"],
      ["bun-bare", "10000", "10,000", "10,000", "5.00", "20.00", "missed"],
      ["bun-bare", "20000", "20,000", "15,000", "50.00", "200.00", "over capacity"],
      [
        "node-bare",
        "1000",
        "1,000",
        "1,000",
        "1.00",
        "1.00",
        "not judged: load generator saturated",
      ],
      ["node-bare", "2000", "2,000", "2,000", "1.00", "1.00", "not judged: machine full"],
      ["deno-bare", "3000", "3,000", "3,000", "4.00", "20.00", "missed"],
      ["deno-bare", "6000", "6,000", "6,000", "2.00", "5.00", "within (5 unsent)"],
    ]);
    expect(echo?.rows).toEqual([
      [
        "bun-bare",
        "2000",
        "2,000",
        "2,000",
        "1.00",
        "1.00",
        "not judged: load generator saturated",
      ],
      ["bun-bare", "4000", "4,000", "4,000", "5.00", "20.00", "missed"],
      ["bun-bare", "8000", "8,000", "8,000", "10.00", "30.00", "missed"],
      ["node-bare", "15000", "15,000", "15,000", "3.00", "8.00", "within"],
      // The search's levels after the listed ones: p99 median of 4, 5, 30.
      [
        "node-bare",
        "search",
        "10,000",
        "10,000",
        "2.00",
        "5.00 (4.00–30.00)",
        "within (2/3 kept it): p99 30.00 ms",
      ],
      [
        "node-bare",
        "search",
        "20,000",
        "20,000",
        "5.00",
        "40.00",
        "over (0/1 kept it): p99 40.00 ms",
      ],
    ]);
  });

  test("capacity: bracketed by the measured rates, or why it cannot be", () => {
    const [api, echo] = rateViews(analyze(RUN));
    expectHeaderOf(CAPACITY_HEADER, api?.capacity[0]);
    expect(api?.capacity).toEqual([
      [
        "bun-bare",
        "5,000 req/s (below 10,000)",
        "the highest measured rate that met the budget; the next one measured missed it",
      ],
      ["node-bare", "—", "the load generator was saturated at every measured rate"],
      [
        "deno-bare",
        "at least 6,000 req/s",
        "the highest measured rate met the budget; measure higher rates for the limit; a lower rate missed it too (noise)",
      ],
    ]);
    expect(echo?.capacity).toEqual([
      ["bun-bare", "below 4,000 req/s", "even the lowest measured rate missed the budget"],
      [
        "node-bare",
        "at least 15,000 req/s",
        "the highest measured rate met the budget; measure higher rates for the limit",
      ],
      [
        "node-bare",
        "10,000–20,000 req/s",
        // node-bare's echo search's record, not its api one's, nor bun-bare's on echo.
        "searched from 20,000 req/s (closed loop): 4 trials in 61 s; 10,000 kept the budget (3 trial(s)); 20,000 over (1 trial(s))",
      ],
    ]);
  });

  test("the chart's series: listed and searched levels of each app together, slowest first", () => {
    const [api, echo] = rateViews(analyze(RUN));
    const offered = (v: typeof api) =>
      v?.series.map((s) => [s.app, s.levels.map((l) => l.offeredRps)]);
    expect(offered(api)).toEqual([
      ["bun-bare", [5_000, 10_000, 20_000]],
      ["node-bare", [1_000, 2_000]],
      ["deno-bare", [3_000, 6_000]],
    ]);
    expect(offered(echo)).toEqual([
      ["bun-bare", [2_000, 4_000, 8_000]],
      ["node-bare", [10_000, 15_000, 20_000]],
    ]);
    expect(echo?.series[1]?.levels.map((l) => l.requested)).toEqual(["search", "15000", "search"]);
  });

  test("the intro: the tolerance, the budget, the rule, and the search's only with a search", () => {
    const intro = ratesIntro(RUN);
    expect(intro).toContain("more than 5% short of its offer");
    expect(intro).toContain("p99 within 10.0 ms (--slo-p99)");
    expect(intro).toContain(`and most kept the budget. ${BUDGET_RULE} ${SEARCH_INTRO}`);
    const listedOnly: Results = {
      ...RUN,
      rateTrials: TRIALS.filter((t) => t.requested !== "search"),
    };
    expect(ratesIntro(listedOnly).endsWith(`and most kept the budget. ${BUDGET_RULE}`)).toBe(true);
    const noBudget: Results = {
      ...listedOnly,
      manifest: { ...RUN.manifest, settings: { ...RUN.manifest.settings, sloP99Ms: undefined } },
    };
    expect(ratesIntro(noBudget)).toContain("p99 within — ms");
    expect(ratesIntro({ ...RUN, rateTrials: undefined })).not.toContain(SEARCH_INTRO);
  });

  test("a run without rate trials has no rates table", () => {
    expect(rateViews(analyze({ ...RUN, rateTrials: undefined }))).toEqual([]);
    expect(rateViews(analyze({ ...RUN, rateTrials: [] }))).toEqual([]);
  });
});
