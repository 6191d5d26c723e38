// The CPU time per request of apps measured one at a time (analysis.ts's cpuNsPerRequest and
// cpuBetween, report/cpu-cost.ts), on synthetic runs: the estimate over processes, the ratio
// to the cheapest paired by round, ties, and runs that predate the figure.
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { PAIRED_MIN_ROUNDS } from "../src/analysis/verdicts.ts";
import { CPU_COST_HEADER, cpuCostViews } from "../src/report/cpu-cost.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { markdownReport } from "../src/report/markdown.ts";
import type { Trial } from "../src/results/schema.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

/**
 * One sample per process; `ns` per round, the round's whole slowdown shared by both apps:
 * PAIRED_MIN_ROUNDS rounds, enough to pair them.
 */
const SHARED = Array.from(
  { length: PAIRED_MIN_ROUNDS },
  (_, i) => [1, 1.2, 0.9, 1.1][i % 4] as number,
);
const still = (head: number[]) => [...head, ...Array(SHARED.length - head.length).fill(1)];
const trial = (app: string, round: number, ns: number | undefined, rps = 1e9 / (ns ?? 20_000)) => {
  const t: Trial = syntheticTrial(app, "api", round, 50, rps, 5);
  return ns === undefined ? t : { ...t, server: { ...t.server, cpuNsPerRequest: ns } };
};
const run = (ratio: number, wobble: number[]) =>
  syntheticRun(
    ["bun-bare", "node-bare"],
    ["api"],
    SHARED.flatMap((k, i) => [
      trial("bun-bare", i + 1, 10_000 * k),
      trial("node-bare", i + 1, 10_000 * k * ratio * (wobble[i] as number)),
    ]),
    { trials: SHARED.length },
  );

describe("CPU time per request, one app at a time", () => {
  test("over processes, each app with its interval; the ratio to the cheapest paired by round", () => {
    const analysis = analyze(run(2.2, still([1.01, 0.99])));
    const rows = analysis.groups.get("api")?.rows ?? [];
    const bare = rows.find((r) => r.app === "bun-bare");
    expect(bare?.cpuNsPerRequest?.mean).toBeCloseTo((10_000 * (1 + 1.2 + 0.9 + 1.1)) / 4, 6);
    expect(bare?.cpuNsPerRequest?.processes).toBe(20);
    const d = analysis.groups.get("api")?.cpuBetween("bun-bare", "node-bare");
    // The shared slowdown cancels: the ratio is 2.2 × the geometric mean of the wobble.
    const geo = Math.exp((Math.log(1.01) + Math.log(0.99)) / 20);
    expect(d?.test?.change).toBeCloseTo(2.2 * geo - 1, 12);
    expect(d?.test?.paired).toBe(20);
    expect(d?.significant).toBe(true);
    const [view, ...more] = cpuCostViews(analysis);
    expect(more).toEqual([]);
    // 10, 12, 9, 11 µs five times: sd √(25 / 19) = 1.147, t(0.975, 19) = 2.093: 10.50 ± 0.54.
    expect(view?.rows[0]).toEqual(["bun-bare", "10.50 (9.96–11.04)", "×1.000 (the cheapest)"]);
    expect(view?.rows[1]?.[0]).toBe("node-bare");
    expect(view?.rows[1]?.[2]).toMatch(/^×2\.200 \(2\.1\d\d–2\.2\d\d\)$/);
    expect(markdownReport(analysis)).toContain("## CPU time per request");
    expect(summaryExtras(analysis)[0]).toStartWith(
      "== api: CPU time per request, one app at a time (× the cheapest; ≈ not significant)",
    );
  });

  test("a ratio the rounds cannot tell from 1: ≈, with what it could have detected", () => {
    const analysis = analyze(run(1.0, still([1.08, 0.93, 1.05, 0.96])));
    const [view] = cpuCostViews(analysis);
    // node-bare's mean is the lower (10.4985 µs, t interval 9.999–10.998, against 10.5);
    // bun-bare's 20 log ratios −ln w (scipy): ×0.99938 (0.98623–1.01271), and what 19 df
    // detect at 5% two-sided with 80% power: 1.89%.
    expect(view?.rows).toEqual([
      ["node-bare", "10.50 (10.00–11.00)", "×1.000 (the cheapest)"],
      ["bun-bare", "10.50 (9.96–11.04)", "≈×0.999 (0.986–1.013, could detect ≥ 1.9%)"],
    ]);
  });

  test("one round each, nothing to test: the ratio of the means, ≈; cheapest first, whatever the req/s", () => {
    const analysis = analyze(
      syntheticRun(
        ["bun-bare", "node-bare", "deno-bare"],
        ["api"],
        [
          trial("bun-bare", 1, 20_000, 50_000),
          trial("node-bare", 1, 10_000, 40_000),
          trial("deno-bare", 1, 25_000, 30_000),
        ],
      ),
    );
    expect(analysis.groups.get("api")?.rows.map((r) => r.app)).toEqual([
      "bun-bare",
      "node-bare",
      "deno-bare",
    ]);
    expect(cpuCostViews(analysis)).toEqual([
      {
        group: "api",
        rows: [
          ["node-bare", "10.00", "×1.000 (the cheapest)"],
          ["bun-bare", "20.00", "≈×2.000 (untestable)"],
          ["deno-bare", "25.00", "≈×2.500 (untestable)"],
        ],
      },
    ]);
  });

  test("the header names each of a row's columns once", () => {
    const [view] = cpuCostViews(analyze(run(2.2, still([]))));
    expect(CPU_COST_HEADER).toHaveLength(view?.rows[0]?.length ?? 0);
    expect(new Set(CPU_COST_HEADER.filter((h) => h.length > 0)).size).toBe(CPU_COST_HEADER.length);
  });

  test("runs before the figure was recorded, or a sample without it: no figure, no section", () => {
    const old = run(2.2, still([]));
    old.trials = old.trials.map((t, i) => (i === 0 ? trial(t.app, t.round, undefined) : t));
    const analysis = analyze(old);
    expect(
      analysis.groups.get("api")?.rows.find((r) => r.app === "bun-bare")?.cpuNsPerRequest,
    ).toBeUndefined();
    expect(cpuCostViews(analysis)[0]?.rows.map((r) => r[0])).toEqual(["node-bare"]);
    const none = analyze(syntheticRun(["bun-bare"], ["api"], [trial("bun-bare", 1, undefined)]));
    expect(cpuCostViews(none)).toEqual([]);
    expect(markdownReport(none)).not.toContain("CPU time per request");
  });
});
