import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { productionViews, stageText } from "../src/report/production-table.ts";
import { cleanChecks, syntheticRun, syntheticTrial } from "./support/synthetic.ts";

/**
 * Five processes per app and scenario, req/s `mean` with a ±1% wobble by round; `own`: a
 * wobble of the stage's own, which the round did not share with api (what the paired test
 * sees as noise).
 */
const WOBBLE = [0.99, 1.01, 1, 0.995, 1.005];
const trials = (app: string, scenario: string, mean: number, own = false) =>
  (own ? [1.005, 0.99, 1.01, 1, 0.995] : WOBBLE).map((k, i) =>
    syntheticTrial(app, scenario, i + 1, 64, mean * k, 2),
  );

const run = () =>
  syntheticRun(
    ["bun-bare", "bun-hono"],
    ["api", "auth", "gzip"],
    [
      ...trials("bun-bare", "api", 100_000),
      ...trials("bun-bare", "auth", 60_000), // clearly slower: a 40% tax
      ...trials("bun-bare", "gzip", 99_800, true), // within the noise: a tie
      ...trials("bun-hono", "api", 80_000),
      ...trials("bun-hono", "auth", 40_000),
      // bun-hono's gzip was not measured: no cell, not a zero
    ],
    { trials: 5 },
  );

describe("production tax", () => {
  test("each measured stage against the same app's api, in one family", () => {
    const costs = analyze(run()).production;
    const of = (app: string, stage: string) =>
      costs.find((c) => c.app === app && c.stage === stage);
    expect(costs.map((c) => `${c.app} ${c.stage}`)).toEqual([
      "bun-bare auth",
      "bun-hono auth",
      "bun-bare gzip",
    ]);
    expect(of("bun-bare", "auth")?.pctOfApi).toBeCloseTo(60, 6);
    expect(of("bun-bare", "auth")?.vsApi.significant).toBe(true);
    expect(of("bun-bare", "auth")?.vsApi.test?.change).toBeCloseTo(-0.4, 6);
    expect(of("bun-hono", "auth")?.pctOfApi).toBeCloseTo(50, 6);
    const tie = of("bun-bare", "gzip");
    expect(tie?.vsApi.significant).toBe(false);
    expect(tie?.vsApi.mdd).toBeGreaterThan(0.002); // a 0.2% change is below what 5 processes detect
    expect(tie?.vsApi.mdd).toBeLessThan(0.05);
  });

  test("the table: api req/s, framework tax, one column per stage, ≈ with what a tie could detect", () => {
    const [view, ...more] = productionViews(analyze(run()));
    expect(more).toEqual([]);
    expect(view?.header).toEqual(["app", "api req/s", "framework tax (of bare)", "auth", "gzip"]);
    const bare = view?.rows.find((r) => r[0] === "bun-bare");
    const hono = view?.rows.find((r) => r[0] === "bun-hono");
    expect(bare?.slice(1, 4)).toEqual(["100,000", "—", "60%"]);
    expect(bare?.[4]).toMatch(/^≈100% \(could detect ≥ \d+\.\d%\)$/);
    expect(hono?.slice(1)).toEqual(["80,000", "80%", "50%", "—"]);
    expect(stageText(undefined)).toBe("—");
  });

  test("* marks an api or a stage whose samples were not the server's best", () => {
    const bound = run().trials.map((t) =>
      t.app === "bun-hono" && t.scenario === "api" && t.round === 2
        ? { ...t, checks: cleanChecks(57.6, 64, { loadGeneratorBound: true }) }
        : t,
    );
    const rows = productionViews(analyze({ ...run(), trials: bound }))[0]?.rows;
    const hono = rows?.find((r) => r[0] === "bun-hono");
    const bare = rows?.find((r) => r[0] === "bun-bare");
    expect(hono?.[1]).toBe("80,000*");
    expect(bare?.slice(1, 4)).toEqual(["100,000", "—", "60%"]);
    const contended = run().trials.map((t) =>
      t.app === "bun-bare" && t.scenario === "auth" && t.round === 1
        ? { ...t, checks: cleanChecks(57.6, 64, { contended: true }) }
        : t,
    );
    const marked = productionViews(analyze({ ...run(), trials: contended }))[0]?.rows;
    expect(marked?.find((r) => r[0] === "bun-bare")?.slice(1, 4)).toEqual(["100,000", "—", "60%*"]);
  });

  test("tls is a stage too: HTTPS against the same app's plain api; a streamed scenario is not", () => {
    const tlsRun = syntheticRun(
      ["bun-bare"],
      ["api", "tls", "sse"],
      [
        ...trials("bun-bare", "api", 100_000),
        ...trials("bun-bare", "tls", 70_000),
        ...trials("bun-bare", "sse", 10_000),
      ],
      { trials: 5 },
    );
    const costs = analyze(tlsRun).production;
    expect(costs.map((c) => [c.app, c.stage])).toEqual([["bun-bare", "tls"]]);
    expect(costs[0]?.pctOfApi).toBeCloseTo(70, 6);
    expect(costs[0]?.vsApi.significant).toBe(true);
    expect(productionViews(analyze(tlsRun))[0]?.header).toEqual([
      "app",
      "api req/s",
      "framework tax (of bare)",
      "tls",
    ]);
  });

  test("a run without middleware stages has no production table", () => {
    const plain = syntheticRun(["bun-bare"], ["api"], trials("bun-bare", "api", 1000));
    expect(analyze(plain).production).toEqual([]);
    expect(productionViews(analyze(plain))).toEqual([]);
    expect(markdownReport(analyze(plain))).not.toContain("Production tax");
    expect(markdownReport(analyze(run()))).toContain("## Production tax");
  });
});

describe("the production tax table", () => {
  /** Processes of `app` on `scenario` at req/s `mean` with a ±1% wobble, one per round. */
  const trials = (app: string, scenario: string, mean: number, wobble = [0.99, 1.01, 1]) =>
    wobble.map((k, i) => syntheticTrial(app, scenario, i + 1, 64, mean * k, 2));
  const RUN = syntheticRun(
    ["bun-bare", "bun-hono", "bun-elysia"],
    ["api", "auth"],
    [
      ...trials("bun-bare", "api", 100_000),
      // Round 1 of bun-bare's auth contended: its stage is starred, bun-hono's is not.
      ...trials("bun-bare", "auth", 60_000).map((t) =>
        t.round === 1 ? { ...t, checks: cleanChecks(57.6, 64, { contended: true }) } : t,
      ),
      ...trials("bun-hono", "api", 80_000),
      ...trials("bun-hono", "auth", 40_000, [1]), // one process: untestable, ≈ and no figure
      ...trials("bun-elysia", "api", 90_000), // no stage measured: no row
    ],
  );

  test("one row per app with a stage; an untestable stage is ≈ without what it could detect", () => {
    const [view, ...more] = productionViews(analyze(RUN));
    expect(more).toEqual([]);
    expect(view?.api).toBe("api");
    expect(view?.header).toEqual(["app", "api req/s", "framework tax (of bare)", "auth"]);
    expect(view?.rows).toEqual([
      ["bun-bare", "100,000", "—", "60%*"],
      // api: 80,000 of bare's 100,000; auth: 40,000 of 80,000, from one process.
      ["bun-hono", "80,000", "80%", "≈50%"],
    ]);
  });
});
