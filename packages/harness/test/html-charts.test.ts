// What report.html's charts are given to draw (report/html-charts.ts, chartData) on synthetic
// results, fast and hermetic (the mutation groups "reports" and "report-text" run it): each
// chart's id, kind, title, axis titles, labels with their qualifiers, datasets, colours and
// error bars (an interval cut at 0, none with too few processes) for req/s and latency per
// scenario, memory, the throughput curve, latency at offered load, start-up, runtime versions
// and the side-by-side ratios. The page around them is html.test.ts's.
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { CHART_COLORS } from "../src/report/html-assets.ts";
import { chartData } from "../src/report/html-charts.ts";
import { markdownReport } from "../src/report/markdown.ts";
import type { Results } from "../src/results/schema.ts";
import { SIDE } from "./support/report-side.ts";
import { CURVE, RATED, STARTED, SYNTHETIC } from "./support/report-synthetic.ts";
import {
  cleanChecks,
  syntheticRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

describe("intervals that reach below zero", () => {
  // Three processes at 100, 1,000 and 10,000 req/s: mean 3,700, its 95% CI −9,851 to 17,251.
  const wild = syntheticRun(
    ["bun-bare"],
    ["api"],
    [100, 1_000, 10_000].map((rps, i) => syntheticTrial("bun-bare", "api", i + 1, 50, rps, 5)),
  );

  test("the chart's error bar starts at 0; the table keeps the interval as computed", () => {
    const rows = analyze(wild).groups.get("api")?.rows ?? [];
    expect(rows[0]?.ci?.low).toBeLessThan(0);
    const rps = chartData(analyze(wild)).find((c) => c.id === "rps-api");
    expect(rps?.datasets[0]?.ranges?.[0]?.[0]).toBe(0);
    expect(rps?.datasets[0]?.ranges?.[0]?.[1]).toBeCloseTo(rows[0]?.ci?.high ?? 0, 1);
  });

  test("with two processes there is no interval to draw at all: too few samples", () => {
    const two = { ...wild, trials: wild.trials.slice(0, 2) };
    const rps = chartData(analyze(two)).find((c) => c.id === "rps-api");
    expect(rps?.datasets[0]?.ranges).toEqual([null]);
    expect(markdownReport(analyze(two))).toContain("| too few samples |");
  });
});

/** An app's colour in the palette (the palette itself is static, in html-assets.ts). */
const colour = (app: string) => CHART_COLORS[app] as string;

describe("HTML: what the charts are given", () => {
  const charts = (results: Results) => chartData(analyze(results));
  const chart = (results: Results, id: string) => charts(results).find((c) => c.id === id);

  test("req/s and latency per scenario: labels with their qualifiers, null for no number", () => {
    const api = chart(SYNTHETIC, "rps-api");
    expect(api?.title).toBe("api: requests per second (mean over processes, bars: 95% CI)");
    expect(api?.type).toBe("bar");
    expect(api?.yTitle).toBe("req/s");
    expect(api?.labels).toEqual([
      "bun-bare (lower bound)",
      "bun-hono (unsaturated)",
      "node-hono",
      "node-bare (failed)",
    ]);
    // 41,000/41,200/41,400 → 41,200, sd 200; t(0.975, 2 df) = 4.3027: ± 4.3027 × 200/√3 = ± 496.83
    expect(api?.datasets[0]?.data).toEqual([41_200, 40_500, 30_000, null]);
    expect(api?.datasets[0]?.ranges?.[0]).toEqual([40_703.17, 41_696.83]);
    expect(api?.datasets[0]?.ranges?.[3]).toBeNull();
    expect(api?.datasets[0]?.colors).toEqual(
      ["bun-bare", "bun-hono", "node-hono", "node-bare"].map(colour),
    );
    const latency = chart(SYNTHETIC, "latency-echo");
    expect(latency?.title).toBe(
      "echo: latency percentiles (ms, log scale; median of samples, bars: lowest–highest)",
    );
    expect(latency?.logarithmic).toBe(true);
    expect(latency?.yTitle).toBe("ms");
    expect(latency?.datasets.map((d) => d.label)).toEqual(["p50", "p90", "p99", "p99.9"]);
    // echo's p99s: bun-bare 5, 6, 7; bun-hono 6, 7, 8; node-hono one valid trial (50): no range
    const p99 = latency?.datasets[2];
    expect(p99?.data).toEqual([6, 7, 50, null]);
    expect(p99?.ranges).toEqual([[5, 7], [6, 8], null, null]);
    expect(latency?.datasets[0]?.data).toEqual([1.1, 1.2, 2, null]);
    expect(latency?.datasets[3]?.data).toEqual([12, 14, 100, null]);
  });

  test("every qualifier on a label, in order; an unknown app is grey", () => {
    const run = syntheticRun(
      ["x-bare"],
      ["api"],
      [1, 2, 3, 4].map((r) => ({
        ...syntheticTrial("x-bare", "api", r, 64, 1000, 5),
        checks: cleanChecks(
          60,
          64,
          [
            { loadGeneratorBound: true },
            { unsaturated: true },
            { contended: true },
            { machineFull: true },
          ][r - 1],
        ),
      })),
    );
    const rps = chart(run, "rps-api");
    expect(rps?.labels).toEqual(["x-bare (lower bound, unsaturated, contended, machine full)"]);
    expect(rps?.datasets[0]?.colors).toEqual(["#888"]);
    for (const only of ["contended", "machineFull", "generatorCeiling"] as const) {
      const one = syntheticRun(
        ["x-bare"],
        ["api"],
        [
          {
            ...syntheticTrial("x-bare", "api", 1, 64, 1000, 5),
            checks: cleanChecks(60, 64, { [only]: true }),
          },
        ],
      );
      const label = {
        contended: "contended",
        machineFull: "machine full",
        generatorCeiling: "lower bound",
      };
      expect(chart(one, "rps-api")?.labels).toEqual([`x-bare (${label[only]})`]);
    }
  });

  test("memory: one bar per app in the run's order, one dataset per scenario", () => {
    const memory = chart(SYNTHETIC, "memory");
    expect(memory?.title).toBe("Peak server memory (RSS, MiB) per scenario");
    expect(memory?.labels).toEqual(["bun-hono", "bun-bare", "node-hono", "node-bare"]);
    // the highest valid trial's RSS; node-hono's invalid 999 MiB is not among them
    expect(memory?.datasets).toEqual([
      { label: "api", data: [62, 52.5, 82, null] },
      { label: "echo", data: [67, 57, 90, null] },
    ]);
    expect(memory?.yTitle).toBe("MiB");
    expect(charts(SYNTHETIC).map((c) => c.id)).toEqual([
      "rps-api",
      "latency-api",
      "rps-echo",
      "latency-echo",
      "memory",
    ]);
  });

  test("the throughput curve: req/s and p99 (log) against the connection counts measured", () => {
    const rps = chart(CURVE, "curve-rps-api");
    const p99 = chart(CURVE, "curve-p99Ms-api");
    expect(rps?.title).toBe("api: req/s against connections (mean of valid trials)");
    expect(p99?.title).toBe("api: p99 against connections (ms, log scale; median of valid trials)");
    for (const c of [rps, p99]) {
      expect(c?.type).toBe("line");
      expect(c?.labels).toEqual([]);
      expect(c?.xTitle).toBe("connections (log scale)");
      expect(c?.xLogarithmic).toBe(true);
      expect(c?.xTicks).toEqual([1, 100, 400]);
    }
    expect(rps?.logarithmic).toBe(false);
    expect(p99?.logarithmic).toBe(true);
    expect(rps?.yTitle).toBe("req/s");
    expect(p99?.yTitle).toBe("ms");
    expect(rps?.datasets).toEqual([
      {
        label: "bun-bare",
        data: [
          { x: 1, y: 5_000 },
          { x: 100, y: 40_000 },
          { x: 400, y: 41_000 },
        ],
        color: colour("bun-bare"),
      },
      {
        label: "node-bare",
        data: [
          { x: 1, y: 4_000 },
          { x: 100, y: 12_000 },
          { x: 400, y: 12_500 },
        ],
        color: colour("node-bare"),
      },
    ]);
    expect(p99?.datasets[1]?.data).toEqual([
      { x: 1, y: 0.6 },
      { x: 100, y: 12 },
      { x: 400, y: 50 },
    ]);
    // a count where an app has no valid trial has no point (not a point at 0)
    const gap = {
      ...CURVE,
      trials: CURVE.trials.map((t) =>
        t.app === "node-bare" && t.connections === 100
          ? { ...t, checks: { ...t.checks, valid: false, invalidReasons: ["x"] } }
          : t,
      ),
    };
    expect(chart(gap, "curve-rps-api")?.datasets[1]?.data).toEqual([
      { x: 1, y: 4_000 },
      { x: 400, y: 12_500 },
    ]);
    // the counts, sorted as numbers (100 after 9, not before it)
    const unsorted = syntheticRun(
      ["bun-bare"],
      ["api"],
      [100, 9, 1].map((c) => syntheticTrial("bun-bare", "api", 1, c, 1000 * c, 5)),
      { connections: 100, connectionCounts: [100, 9, 1] },
    );
    expect(chart(unsorted, "curve-rps-api")?.xTicks).toEqual([1, 9, 100]);
  });

  test("latency at offered load: p50 dashed and p99 per app, the budget across, a search's interval", () => {
    const rates = chart(RATED, "rates-api");
    expect(rates?.title).toBe(
      "api: latency at offered load (ms, log scale; dashed: p50, solid: p99; searched levels included)",
    );
    expect(rates?.type).toBe("line");
    expect(rates?.xTitle).toBe("offered req/s");
    expect(rates?.logarithmic).toBe(true);
    expect(rates?.yTitle).toBe("ms");
    expect(rates?.labels).toEqual([]);
    const byLabel = (label: string) => rates?.datasets.find((d) => d.label === label);
    expect(byLabel("bun-bare p50")).toEqual({
      label: "bun-bare p50",
      data: [
        { x: 20_000, y: 0.5 },
        { x: 36_000, y: 2 },
      ],
      color: colour("bun-bare"),
      dashed: true,
    });
    expect(byLabel("node-hono p99")?.data).toEqual([
      { x: 15_000, y: 6 },
      { x: 27_000, y: 300 },
    ]);
    expect(byLabel("node-hono p99")?.dashed).toBe(false);
    // the budget from the lowest offered rate of any app (15,000) to the highest (36,000)
    expect(byLabel("p99 budget 10.0 ms")).toEqual({
      label: "p99 budget 10.0 ms",
      data: [
        { x: 15_000, y: 10 },
        { x: 36_000, y: 10 },
      ],
      color: "#000",
      dashed: true,
    });
    expect(rates?.datasets).toHaveLength(5);
    // searched: within at the lower rate, over at the higher: the interval between them
    const searched = {
      ...RATED,
      rateTrials: RATED.rateTrials?.map((t) => ({ ...t, requested: "search" })),
    };
    const found = chart(searched, "rates-api")?.datasets.slice(5);
    expect(found).toEqual([
      {
        label: "bun-bare capacity interval",
        data: [
          { x: 20_000, y: 10 },
          { x: 36_000, y: 10 },
        ],
        color: colour("bun-bare"),
        width: 6,
      },
      {
        label: "node-hono capacity interval",
        data: [
          { x: 15_000, y: 10 },
          { x: 27_000, y: 10 },
        ],
        color: colour("node-hono"),
        width: 6,
      },
    ]);
    // two scenarios searched: each chart draws its own scenario's intervals
    const trials = searched.rateTrials ?? [];
    const echo = trials.map((t) => ({ ...t, scenario: "echo", offeredRps: t.offeredRps / 2 }));
    const both = chart({ ...searched, rateTrials: [...trials, ...echo] }, "rates-echo");
    expect(both?.datasets.slice(5).map((d) => d.data.map((p) => (p as { x: number }).x))).toEqual([
      [10_000, 18_000],
      [7_500, 13_500],
    ]);
  });

  test("start-up: fastest first, median ready time and memory with their ranges", () => {
    const ready = chart(STARTED, "startup");
    expect(ready?.title).toBe(
      "Start-up: runtime start to first correct answer (ms; median of starts, bars: lowest–highest)",
    );
    expect(ready?.yTitle).toBe("ms");
    expect(ready?.labels).toEqual(["bun-bare", "node-hono"]);
    // bun-bare 30, 40, 90 → 40; node-hono 400, 450 → 425
    expect(ready?.datasets).toEqual([
      {
        label: "ready ms",
        data: [40, 425],
        ranges: [
          [30, 90],
          [400, 450],
        ],
        colors: [colour("bun-bare"), colour("node-hono")],
      },
    ]);
    const memory = chart(STARTED, "startup-memory");
    expect(memory?.title).toBe(
      "Memory at start (RSS, MiB; median of starts, bars: lowest–highest at idle)",
    );
    expect(memory?.yTitle).toBe("MiB");
    // ready RSS = idle + 5: 35, 36, 37 → 36; 85, 95 → 90
    expect(memory?.datasets).toEqual([
      { label: "when ready", data: [36, 90] },
      {
        label: "after 1 s idle",
        data: [31, 85],
        ranges: [
          [30, 32],
          [80, 90],
        ],
      },
    ]);
    expect(chart(SYNTHETIC, "startup")).toBeUndefined();
  });

  test("runtime versions: a dataset per version, a bar per app with its 95% CI", () => {
    const run = syntheticVersionsRun();
    const versions = chart(run, "versions-api-node");
    expect(versions?.title).toBe(
      "api: req/s on each node version (mean over processes, bars: 95% CI)",
    );
    expect(versions?.yTitle).toBe("req/s");
    expect(versions?.labels).toEqual(["node-bare", "node-hono"]);
    expect(versions?.datasets.map((d) => [d.label, d.data])).toEqual([
      ["node 22.23.3", [10_000, 8_000]],
      ["node 24.21.0", [11_000, 8_000]],
    ]);
    // node-bare on 22: 9,900/10,000/10,100, sd 100: ± 4.3027 × 100/√3 = ± 248.41
    expect(versions?.datasets[0]?.ranges?.[0]).toEqual([9_751.59, 10_248.41]);
    // a version's app colour is its registry name's ("node-bare@22.23.3" is node-bare)
    expect(chart(run, "rps-api")?.datasets[0]?.colors?.[0]).toBe(colour("node-bare"));
    // an app measured on one version only: no bar (null) on the other
    const missing = {
      ...run,
      trials: run.trials.filter((t) => t.app !== "node-hono@24.21.0"),
    };
    const partial = chart(missing, "versions-api-node");
    expect(partial?.datasets[1]?.data).toEqual([11_000, null]);
    expect(partial?.datasets[1]?.ranges?.[1]).toBeNull();
  });
});

describe("HTML: lists, joins and the chart specs' kinds", () => {
  test("every chart's kind, title and labels", () => {
    const charts = chartData(analyze(SYNTHETIC));
    expect(charts.map((c) => [c.id, c.type])).toStrictEqual([
      ["rps-api", "bar"],
      ["latency-api", "bar"],
      ["rps-echo", "bar"],
      ["latency-echo", "bar"],
      ["memory", "bar"],
    ]);
    const [rps, latency] = charts;
    expect(rps?.datasets.map((d) => d.label)).toEqual(["req/s"]);
    // the latency chart's bars carry the same qualifiers as the req/s chart's
    expect(latency?.labels).toEqual([
      "bun-bare (lower bound)",
      "bun-hono (unsaturated)",
      "node-hono",
      "node-bare (failed)",
    ]);
    const started = chartData(analyze(STARTED));
    expect(started.map((c) => [c.id, c.type]).slice(-2)).toStrictEqual([
      ["startup", "bar"],
      ["startup-memory", "bar"],
    ]);
    const versions = chartData(analyze(syntheticVersionsRun()));
    expect(versions.at(-1)?.type).toBe("bar");
  });
});

describe("HTML: the side-by-side chart", () => {
  test("a bar per row with a ratio and a pair, its CI as the error bar", () => {
    const charts = chartData(analyze(SIDE));
    expect(charts.map((c) => c.id)).toEqual(["side-api"]);
    expect(charts[0]).toEqual({
      id: "side-api",
      title: "api: CPU time per request × the reference, side by side (bars: 95% CI)",
      type: "bar",
      // node-bare has no ratio (one pair), deno-bare no pair (it failed)
      labels: ["bun-bare (reference)", "bun-hono (× bun-bare)"],
      datasets: [
        {
          label: "× reference",
          data: [1, 1.2],
          ranges: [null, [1.17, 1.23]],
          colors: ["bun-bare", "bun-hono"].map((app) => CHART_COLORS[app] as string),
        },
      ],
      yTitle: "× reference",
    });
  });
});
