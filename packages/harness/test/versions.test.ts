// report/versions.ts: the runtime-version comparison (--node 22,24,25) per group, its chart and
// Mermaid lines. Synthetic runs, answers worked out by hand; resolving and installing versions,
// and real runs, are in versions.e2e.test.ts. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import {
  VERSIONS_INTRO,
  versionChart,
  versionMermaid,
  versionViews,
} from "../src/report/versions.ts";
import type { Results } from "../src/results/schema.ts";
import { invalid } from "./support/report-synthetic.ts";
import { syntheticRun, syntheticTrial, syntheticVersionsRun } from "./support/synthetic.ts";

describe("runtime versions (--node 22,24,25)", () => {
  const V = ["22.23.3", "24.21.0", "25.2.1"];
  /** Valid trials of `app` on `scenario` at these req/s, round by round; `invalidToo` more after them. */
  const trials = (app: string, scenario: string, rps: number[], invalidToo = 0) => [
    ...rps.map((r, i) => syntheticTrial(app, scenario, i + 1, 50, r, 5)),
    ...Array.from({ length: invalidToo }, (_, i) =>
      invalid(syntheticTrial(app, scenario, rps.length + i + 1, 50, 1_000, 5)),
    ),
  ];
  const apps = ["node-bare", "node-hono", "node-express"].flatMap((a) => V.map((v) => `${a}@${v}`));
  const RUN = syntheticRun(
    [...apps, "bun-bare"],
    ["api", "echo"],
    [
      ...trials("node-bare@22.23.3", "api", [10_000, 10_010, 9_990]),
      ...trials("node-bare@24.21.0", "api", [11_000, 11_010, 10_990]), // +10%, noise ±10: clear
      // node-bare@25.2.1 not measured on api
      ...trials("node-hono@22.23.3", "api", [8_000, 8_400, 7_600]),
      ...trials("node-hono@24.21.0", "api", [8_100, 7_700, 8_200]), // the same within ±400: a tie
      ...trials("node-hono@25.2.1", "api", [8_800], 2), // one valid trial: untestable
      ...trials("node-express@22.23.3", "api", [9_000], 1), // the first version: one valid trial
      ...trials("node-express@24.21.0", "api", [9_900, 10_000, 10_100]),
      ...trials("node-express@25.2.1", "api", [], 3), // none valid: not measured
      ...trials("bun-bare", "api", [20_000, 20_010, 19_990]),
      // echo: node-bare only, and not on the first version
      ...trials("node-bare@24.21.0", "echo", [5_000, 5_010, 4_990]),
      ...trials("node-bare@25.2.1", "echo", [6_000, 6_010, 5_990]),
    ],
    {
      runtimeVersions: {
        node: V.map((version) => ({ asked: version.split(".")[0] as string, version })),
        // One version of Bun: nothing to compare, no table.
        bun: [{ asked: "1.3", version: "1.3.0" }],
      },
    },
  );

  test("per group: each app once, each version as % of the first; ≈ for a tie or one process", () => {
    const views = versionViews(analyze(RUN));
    expect(views.map((v) => [v.group, v.runtime])).toEqual([
      ["api", "node"],
      ["echo", "node"],
    ]);
    const [api, echo] = views;
    expect(api?.versions).toEqual(V);
    expect(api?.header).toEqual(["app", "node 22.23.3", "node 24.21.0", "node 25.2.1"]);
    expect(api?.rows[0]).toEqual(["node-bare", "10,000", "11,000 (110%)", "—"]);
    // A tie of three processes each says what the run could have told apart; one process cannot
    // be tested at all: ≈ without a figure. 8,800 / 8,000 = 110%.
    expect(api?.rows[1]?.slice(0, 2)).toEqual(["node-hono", "8,000"]);
    expect(api?.rows[1]?.[2]).toMatch(/^8,000 \(≈100%, could detect ≥ \d+\.\d%\)$/);
    expect(api?.rows[1]?.[3]).toBe("8,800 (≈110%)");
    // A first version of one process: every later one untestable. 10,000 / 9,000 = 111.1%.
    expect(api?.rows[2]).toEqual(["node-express", "9,000", "10,000 (≈111%)", "—"]);
    expect(api?.rows).toHaveLength(3);
    // No first version: req/s alone.
    expect(echo?.rows).toEqual([
      ["node-bare", "—", "5,000", "6,000"],
      ["node-hono", "—", "—", "—"],
      ["node-express", "—", "—", "—"],
    ]);
    // The measured rows behind the cells, per app and version.
    expect(api?.measured.map((m) => [m.app, m.byVersion.map((r) => r?.rps.mean)])).toEqual([
      ["node-bare", [10_000, 11_000, undefined]],
      ["node-hono", [8_000, 8_000, 8_800]],
      ["node-express", [9_000, 10_000, undefined]],
    ]);
    expect(api?.measured.map((m) => m.byVersion.map((r) => r?.app))[1]).toEqual(
      V.map((v) => `node-hono@${v}`),
    );
    expect(VERSIONS_INTRO).toContain("--node");
  });

  test("two versions are enough for a table; one is not", () => {
    const two = syntheticVersionsRun();
    expect(versionViews(analyze(two)).map((v) => v.versions)).toEqual([["22.23.3", "24.21.0"]]);
    const settings = two.manifest.settings;
    const one: Results = {
      ...two,
      manifest: {
        ...two.manifest,
        settings: {
          ...settings,
          runtimeVersions: { node: settings.runtimeVersions?.node?.slice(1) ?? [] },
        },
      },
    };
    expect(versionViews(analyze(one))).toEqual([]);
    const none: Results = {
      ...two,
      manifest: { ...two.manifest, settings: { ...settings, runtimeVersions: undefined } },
    };
    expect(versionViews(analyze(none))).toEqual([]);
  });

  test("the chart: per app one bar per version; Mermaid lists the measured ones app by app", () => {
    const [api] = versionViews(analyze(RUN));
    const view = api as NonNullable<typeof api>;
    const chart = versionChart(view);
    expect(chart.id).toBe("versions-api-node");
    expect(chart.title).toBe("api: req/s on each node version (mean over processes, bars: 95% CI)");
    expect(chart.labels).toEqual(["node-bare", "node-hono", "node-express"]);
    expect(chart.datasets.map((d) => [d.label, d.rows.map((r) => r?.rps.mean)])).toEqual([
      ["node 22.23.3", [10_000, 8_000, 9_000]],
      ["node 24.21.0", [11_000, 8_000, 10_000]],
      ["node 25.2.1", [undefined, 8_800, undefined]],
    ]);
    const mermaid = versionMermaid(view);
    expect(mermaid).toContain('title "api: req/s on each node version (mean)"');
    expect(mermaid).toContain(
      'x-axis ["node-bare@22.23.3", "node-bare@24.21.0", "node-hono@22.23.3", "node-hono@24.21.0", ' +
        '"node-hono@25.2.1", "node-express@22.23.3", "node-express@24.21.0"]',
    );
    expect(mermaid).toContain("bar [10000, 11000, 8000, 8000, 8800, 9000, 10000]");
    expect(mermaid).toContain('y-axis "req/s"');
  });
});
