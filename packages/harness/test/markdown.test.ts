// report.md (report/markdown.ts) on synthetic results, fast and hermetic (the mutation group
// "report-text" runs it against every mutant of the report renderers): which rows and cells it
// shows, numbers with their uncertainty, verdict words, order, marks, escaping and the sections
// of the other measurements, the CPU time per request and --side-by-side. Expected values are
// written out by hand (or with scipy), with how they were worked out; the end-to-end checks
// (Chromium, real runs) are in report.e2e.test.ts.

import { describe, expect, test } from "bun:test";
import { analyze, type GroupAnalysis, type SummaryRow } from "../src/analysis/analysis.ts";
import {
  headerLines,
  markdownReport,
  noiseText,
  relativeMatrix,
  rowNotes,
  throughputCell,
} from "../src/report/markdown.ts";
import { AGAINST_HEADER } from "../src/report/side-by-side.ts";
import type { Results } from "../src/results/schema.ts";
import { schemaErrors } from "../src/results/schema.ts";
import {
  against,
  CALIBRATED_SIDE,
  COSTED,
  onTwoScenarios,
  rounds,
  SIDE,
  SIDE_TABLE,
} from "./support/report-side.ts";
import {
  CALIBRATED,
  CURVE,
  fakeRow,
  HISTORY_ROW,
  PROFILED,
  RATED,
  STARTED,
  SYNTHETIC,
  WITH_HISTORY,
  WORKERS,
} from "./support/report-synthetic.ts";
import {
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

test("the synthetic run is a valid results.json", () => {
  expect(schemaErrors(SYNTHETIC)).toEqual([]);
});

describe("Markdown report of the synthetic run", () => {
  const md = markdownReport(analyze(SYNTHETIC));

  test("the Packages row lists autocannon only when it measured", () => {
    const lockfile = { hono: "4.13.19", autocannon: "8.0.0" };
    const packagesRow = (tool: "wrk" | "autocannon") => {
      const m = SYNTHETIC.manifest;
      const results = {
        ...SYNTHETIC,
        manifest: {
          ...m,
          tool: { ...m.tool, name: tool },
          versions: { ...m.versions, lockfile },
        },
      };
      return headerLines(results).find(([label]) => label === "Packages (bun.lock)")?.[1];
    };
    expect(packagesRow("wrk")).toBe("hono 4.13.19");
    expect(packagesRow("autocannon")).toBe("hono 4.13.19, autocannon 8.0.0");
  });

  test("the scenario table: rank, mean ± sd with its tags, 95% CI, median p50 and p99 (range)", () => {
    expect(md).toContain(
      [
        "| rank | app | req/s (mean ± sd) | 95% CI | ± | CoV | p50 ms | p99 ms (range) | peak RSS MiB | server CPU | load gen CPU | processes | valid samples |",
        "| :-- | :-- | :-- | --: | --: | :-- | --: | --: | --: | --: | --: | --: | --: |",
        "| 1 | bun-bare | 41,200 ± 200 ⚠️ load-generator bound 2/3 | 40,703–41,697 | ±1.2% | 0.5% excellent | 0.60 | 17.99 (9.93–437.65) | 52.5 | 97% | 75% | 3 | 3/3 |",
        "| 2 | bun-hono | 40,500 ± 200 ⚠️ unsaturated 1/3 | 40,003–40,997 | ±1.2% | 0.5% excellent | 0.90 | 21.00 (20.00–22.00) | 62.0 | 97% | 75% | 3 | 3/3 |",
        "| 3 | node-hono | 30,000 ± 100 ⚠️ idle connections 1/3 | 29,752–30,248 | ±0.8% | 0.3% excellent | 1.50 | 35.00 (30.00–40.00) | 82.0 | 97% | 75% | 3 | 3/3 |",
        "| — | node-bare | — ❌ failed | — | — | — | — | — | — | — | — | 0 | 0/0 |",
      ].join("\n"),
    );
    // echo: ties share the rank and say what they could have detected; one process has no
    // CI and no range
    expect(md).toContain(
      "| ≈1 (could detect ≥ 6.1%) | bun-hono | 19,400 ± 400 | 18,406–20,394 | ±5.1% | 2.1% excellent | 1.20 | 7.00 (6.00–8.00) | 67.0 | 97% | 75% | 3 | 3/3 |",
    );
    expect(md).toContain(
      "| ≈1 | node-hono | 10,000 ⚠️ invalid 1/2 excluded ⚠️ 1 process | too few samples | — | — | 2.00 | 50.00 | 90.0 | 97% | 75% | 1 | 1/2 |",
    );
  });

  test("flags explained below the table, each with the trials' notes", () => {
    expect(md).toContain(
      [
        "Notes:",
        "",
        "- bun-bare: LOAD-GENERATOR BOUND 2/3: a lower bound (the load generator was saturated, the server was not)",
        "  - wrk used 99% of its core, the server 81%",
        "- bun-hono: UNSATURATED 1/3: neither the server nor the load generator was saturated (not the server's best)",
        "  - CPU steal 14% during the trial",
        "- node-hono: IDLE CONNECTIONS 1/3: in-flight requests well below the connections: connections waited without a counted request (unserved by the server, or paced by the load generator; see the notes)",
        "  - 12 requests in flight on 64 connections",
        "- node-bare: FAILED: port 3005 is already in use by pid 42 (python3 -m http.server)",
        "",
      ].join("\n"),
    );
    expect(md).toContain(
      "- node-hono: INVALID 1/2 (error rate 3.10% > 0.01%): excluded\n" +
        "- node-hono: 1 process with valid samples: too few samples for a CI, and every comparison is a tie (≈)\n",
    );
    expect(md).not.toContain("and more output"); // only the failure's first line
  });

  test("relative throughput: ≈ on every pair that is not significantly different", () => {
    expect(md).toContain(
      [
        "|  | bun-bare | bun-hono | node-hono |",
        "| :-- | --: | --: | --: |",
        "| bun-bare | 100% | 102% | 137% |",
        "| bun-hono | 98% | 100% | 135% |",
        "| node-hono | 73% | 74% | 100% |",
      ].join("\n"),
    );
    expect(md).toContain(
      [
        "| bun-bare | 100% | ≈103% | ≈200% |",
        "| bun-hono | ≈97% | 100% | ≈194% |",
        "| node-hono | ≈50% | ≈52% | 100% |",
      ].join("\n"),
    );
  });

  test("framework tax: a cost where the difference is significant, ≈ tie where not", () => {
    const header = "| app | % of bare | cost | p |\n| :-- | --: | :-- | --: |\n";
    // Three rounds: too few to pair, so Welch's test on the process means.
    expect(md).toContain(`${header}| bun-hono | 98% | 2% | 0.013 |\n`);
    expect(md).toContain(`${header}| bun-hono | ≈97% | ≈ tie (could detect ≥ 6.1%) | 0.140 |\n`);
  });

  test("the report says how to read ranks, ≈, the CI and the flags", () => {
    expect(md).toContain("±: the 95% CI's half-width as a share of the mean.");
    expect(md).toContain("Each app's mean is over processes (fresh starts)");
    expect(md).toContain("p99 also shows its lowest–highest over samples");
    expect(md).toContain(
      "≈ marks a difference that is not significant (a paired t-test on the per-round log ratios of the process means where two apps share 20 rounds or more, as a default run's do; Welch's t-test on the process means where they share fewer; every pair of a table is one family, held to 5% by Holm's step-down)",
    );
    expect(md).toContain("the smallest difference the run could have detected");
    expect(md).toContain("significantly slower than the app that opened the current tie group");
    expect(md).toContain(
      "Generator ceiling: the load generator used 95% or more of what it can, or connections waited on it while the server's core had idle time: a lower bound of the server's capacity, whatever the server's own CPU.",
    );
    expect(md).toContain("Unsaturated: neither was saturated");
    expect(md).toContain("Idle connections: far fewer requests were in flight");
  });
});

describe("profiles in the reports (--profile)", () => {
  test("the profiled run still conforms to the schema", () => {
    expect(schemaErrors(PROFILED)).toEqual([]);
  });

  test("Markdown: a section per profile with its link, trial figures and hottest functions", () => {
    const md = markdownReport(analyze(PROFILED));
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("Profiles");
    const section = md.slice(md.indexOf("## Profiles"));
    expect(section).toContain("not in any figure above");
    expect(section).toContain(
      "### bun-hono · api\n\n[profiles/bun-hono-api.cpuprofile](profiles/bun-hono-api.cpuprofile). " +
        "Profiled trial: 3,593 req/s, p99 749.6 ms (not counted). 2,821 samples over 4.0 s, 2,596 of them busy (not idle).\n",
    );
    expect(section).toContain("| 1 | writeUtf8String | (native) | 452 | 17.4% |");
    expect(section).toContain("| 2 | json | hono/dist/context.js:336 | 129 | 5.0% |");
    // Only the sparse profile gets the warning that native work is missing.
    expect(section.match(/The sampler saw only/g)).toHaveLength(1);
    expect(section).toContain("The sampler saw only 2% of the time");
    expect(section).toContain(
      "### node-bare · api\n\nNo profile: node wrote no profile at profiles/node-bare-api.cpuprofile.",
    );
    // blank lines around headings and tables; no table for a profile that has none
    expect(md).toContain("```\n\n## Profiles\n\nOne extra trial per app and scenario");
    expect(section).toContain("the runtime was not idle.\n\n### bun-hono · api\n\n[profiles/");
    expect(section).toContain("(not idle).\n\n| # | function | where | self samples | share |\n");
    expect(md).toEndWith(
      "No profile: node wrote no profile at profiles/node-bare-api.cpuprofile.\n",
    );
  });
});

/** The Markdown section under `heading`, up to the next heading of the same or a higher level. */
function mdSection(md: string, heading: string): string {
  const start = md.indexOf(`${heading}\n`);
  if (start === -1) return "";
  const level = heading.split(" ")[0] as string;
  const next = md.slice(start + heading.length).search(new RegExp(`\\n#{1,${level.length}} `));
  return next === -1 ? md.slice(start) : md.slice(start, start + heading.length + next);
}

describe("Markdown: the header, the levels and every section", () => {
  test("the header table: date and status, machine, load, commit, command", () => {
    expect(headerLines(SYNTHETIC)).toEqual([
      ["Date", "2026-11-21 10:00 UTC (complete)"],
      ["Machine", "Test CPU, 2 cores, 8 GiB · Debian 13 · 6.1"],
      [
        "Load",
        expect.stringMatching(/^wrk 4\.2\.0 · 64 keep-alive connections · .*, apps interleaved$/),
      ],
      ["Server processes", "1 process per app"],
      ["Pinning", "server on CPU 0, load generator on CPU 1"],
      ["Runtimes (as the apps reported)", "—"],
      ["Packages (bun.lock)", "hono 4.13.19"],
      ["Commit", "0123456789ab"],
      ["Command", "./benchmark.sh -n 3"],
    ]);
    const interrupted: Results = {
      ...SYNTHETIC,
      status: "interrupted",
      manifest: {
        ...SYNTHETIC.manifest,
        settings: { ...SYNTHETIC.manifest.settings, argv: [] },
        git: { commit: "fedcba9876543210", dirty: true },
      },
      // two apps on one runtime version, one on another: each named once, sorted
      apps: SYNTHETIC.apps.map((a, i) => ({
        ...a,
        ...(i < 3
          ? {
              reportedRuntime:
                i === 0 ? { name: "node", version: "24.1.0" } : { name: "bun", version: "1.4.5" },
            }
          : {}),
      })),
    };
    const lines = new Map(headerLines(interrupted).map(([k, v]) => [k, v]));
    expect(lines.get("Date")).toBe("2026-11-21 10:00 UTC (interrupted)");
    expect(lines.get("Commit")).toBe("fedcba987654 (uncommitted changes)");
    expect(lines.get("Command")).toBe("./benchmark.sh");
    expect(lines.get("Runtimes (as the apps reported)")).toBe("bun 1.4.5, node 24.1.0");
    const md = markdownReport(analyze(interrupted));
    expect(md).toContain(
      "| Commit | fedcba987654 (uncommitted changes) |\n| Command | ./benchmark.sh |\n" +
        "| CPU steal | CPU steal on the server's core: median 0.0%, worst 0.0% over 17 samples · none at ≥ 15% (--max-steal) |\n\n" +
        "**Interrupted**: only the trials that finished are included.\n\n",
    );
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("Interrupted");
  });

  test("a database scenario's engine is a row of the header (both engines), absent without one", () => {
    const withDb = (database: Results["manifest"]["database"]): Results => ({
      ...SYNTHETIC,
      manifest: { ...SYNTHETIC.manifest, database },
    });
    const row = (r: Results) => new Map(headerLines(r).map(([k, v]) => [k, v])).get("Database");
    const sqlite = withDb({
      engine: "sqlite",
      clients: { bun: "bun:sqlite", node: "node:sqlite", deno: "node:sqlite" },
      settings: {},
    });
    expect(row(sqlite)).toBe("SQLite, a file per app process (bun:sqlite, node:sqlite)");
    const postgres = withDb({
      engine: "postgresql",
      version: "16.4",
      cpus: "0",
      clients: { bun: "Bun.sql", node: "postgres.js", deno: "postgres.js" },
      settings: {},
    });
    expect(row(postgres)).toBe(
      "PostgreSQL 16.4 on CPU 0, a database per app process (Bun.sql, postgres.js)",
    );
    expect(row(SYNTHETIC)).toBeUndefined();
    expect(markdownReport(analyze(postgres))).toContain("| Database | PostgreSQL 16.4 on CPU 0,");
  });

  test("with the apps on another host (--server-host) the header names both machines", () => {
    const m = SYNTHETIC.manifest;
    const serverHost = {
      name: "bench-server",
      address: "10.77.0.2",
      machine: { ...m.machine, cpuModel: "Big CPU", cores: 8 },
      git: m.git,
      rttMs: 0.1234,
      linkMbps: {},
    };
    const [, machines] = headerLines({ ...SYNTHETIC, manifest: { ...m, serverHost } });
    expect(machines).toEqual([
      "Machines",
      "server bench-server (10.77.0.2): Big CPU, 8 cores, 8 GiB · Debian 13 · 6.1 · " +
        "load generator: Test CPU, 2 cores, 8 GiB · Debian 13 · 6.1 · round trip 0.123 ms",
    ]);
  });

  test("a key/value header table with no header row text; headings one level per depth", () => {
    const md = markdownReport(analyze(SYNTHETIC));
    expect(md).toStartWith(
      "# Benchmark results\n\n|  |  |\n| :-- | :-- |\n| Date | 2026-11-21 10:00 UTC (complete) |\n",
    );
    expect(md).toEndWith("```\n");
    expect(md).toContain(
      "\n## api — GET /api/test — a small JSON object built per request\n\n| rank |",
    );
    expect(md).toContain("\n## Charts\n\nCharts (an app marked *");
    const embedded = markdownReport(analyze(SYNTHETIC), 2);
    expect(embedded).toStartWith("## Benchmark results\n");
    expect(embedded).toContain("\n### api — GET /api/test");
    expect(embedded).toContain("\n### Charts\n");
    // the reading guide, paragraph by paragraph
    expect(md).toContain(
      "5–10% noisy, > 10% unreliable.\n\nLatency: the median over valid samples",
    );
  });

  test("a scenario the contract does not know has no description; one app, no matrix", () => {
    const custom = syntheticRun(
      ["bun-bare"],
      ["custom"],
      [1, 2, 3].map((r) => syntheticTrial("bun-bare", "custom", r, 64, 1000 + r, 5)),
    );
    const md = markdownReport(analyze(custom));
    expect(md).toContain("\n## custom\n\n| rank |");
    expect(md).not.toContain("Relative throughput");
    expect(md).not.toContain("Notes:");
    expect(md).not.toContain("Framework tax");
    expect(md).not.toContain("Noise (CoV");
  });

  test("cells escape the table's pipe and keep to one line", () => {
    const top = [{ function: "a|b\nc", location: "x.js:1", samples: 3, percent: 1 }];
    const profiled: Results = {
      ...SYNTHETIC,
      profiles: [
        {
          app: "bun-hono",
          scenario: "api",
          startedAt: "2026-11-22T12:00:00.000Z",
          summary: { totalMs: 1000, samples: 10, idleSamples: 0, coverage: 0.7, top },
        },
      ],
    };
    const md = markdownReport(analyze(profiled));
    expect(md).toContain("| 1 | a\\|b c | x.js:1 | 3 | 1.0% |");
    // the profile table: rank right-aligned, names left, counts right
    expect(md).toContain("| --: | :-- | :-- | --: | --: |");
    // no file: no link before the text
    // 10 samples over 1,000 ms, none idle
    expect(md).toContain("### bun-hono · api\n\n10 samples over 1.0 s, 10 of them busy");
  });

  test("noise: each app's variance components, the round's share when there is one", () => {
    const group = {
      rows: [
        fakeRow("a", 1, 1, { estimate: { components: { within: 0.012, between: 0.0345 } } }),
        fakeRow("b", 1, 1),
        fakeRow("c", 1, 1, { estimate: { components: { within: 0.1, between: 0 } } }),
      ],
      roundCov: 0.005,
    } as unknown as GroupAnalysis;
    expect(noiseText(group)).toBe(
      "Noise (CoV of one sample): a 1.2% within a process, 3.5% between processes; " +
        "c 10.0% within a process, 0.0% between processes. Shared by every app of a round: 0.5%.",
    );
    expect(noiseText({ ...group, roundCov: undefined } as GroupAnalysis)).toEndWith(
      "0.0% between processes.",
    );
    expect(noiseText({ rows: [fakeRow("b", 1, 1)] } as unknown as GroupAnalysis)).toBeUndefined();
    // in the report, right after the scenario's section
    const analysis = analyze(SYNTHETIC);
    const api = analysis.groups.get("api") as GroupAnalysis;
    const components = { within: 0.01, between: 0.02 };
    const rows = api.rows.map((r, i) =>
      i === 0 ? ({ ...r, estimate: { ...r.estimate, components } } as unknown as SummaryRow) : r,
    );
    analysis.groups.set("api", { ...api, rows, roundCov: undefined });
    expect(markdownReport(analysis)).toContain(
      "\n\nNoise (CoV of one sample): bun-bare 1.0% within a process, 2.0% between processes.\n\n## echo",
    );
  });

  test("notes: the trials' notes hang under a row's last flag; a row with notes only gets them too", () => {
    const flag = (tag: string) => ({ tag, text: `${tag} text` });
    const rows = [
      fakeRow("a", 1, 1, { flags: [flag("ONE"), flag("TWO")], notes: ["n1", "n2"] }),
      fakeRow("b", 1, 1, { notes: ["n3"] }),
      fakeRow("c", 1, 1),
    ];
    expect(rowNotes(rows)).toEqual([
      { app: "a", text: "ONE text", notes: [] },
      { app: "a", text: "TWO text", notes: ["n1", "n2"] },
      { app: "b", text: "notes", notes: ["n3"] },
    ]);
    // the req/s cell: the number, then each flag's tag
    const tagged = fakeRow("a", 1, 1, {
      rps: { n: 3, mean: 1234, stddev: 5, cov: 0 },
      flags: [flag("FAILED"), flag("INVALID 1/3"), flag("CONTENDED 2/3")],
    });
    expect(throughputCell(tagged)).toBe(
      "1,234 ± 5 ❌ failed ⚠️ invalid 1/3 excluded ⚠️ contended 2/3",
    );
  });

  test("relative throughput: row over column, ≈ unless the pair differs significantly", () => {
    const group = {
      rows: [
        fakeRow("a", 300, 1),
        fakeRow("b", 200, 1),
        fakeRow("c", 100, 1),
        fakeRow("d", 50, 1, { rps: { n: 0, mean: 50 } }),
      ],
      // only a and c differ significantly, whichever way round they are asked
      between: (x: string, y: string) => ({ significant: [x, y].sort().join() === "a,c" }),
    } as unknown as GroupAnalysis;
    // 300/200 = 150%, 300/100 = 300%, 200/300 = 67%, 100/300 = 33%, 100/200 = 50%
    expect(relativeMatrix(group)).toEqual({
      header: ["", "a", "b", "c"],
      rows: [
        ["a", "100%", "≈150%", "300%"],
        ["b", "≈67%", "100%", "≈200%"],
        ["c", "33%", "≈50%", "100%"],
      ],
    });
  });

  test("the sections of the other measurements: headings, intros and aligned tables", () => {
    const rated = markdownReport(analyze(RATED));
    const rates = mdSection(rated, "## Latency at offered load");
    expect(rates).toContain("budget: p99 within 10.0 ms (--slo-p99)");
    expect(rates).toContain(
      "### api\n\n| app | rate | offered req/s | achieved req/s | p50 ms | p99 ms | budget |\n" +
        "| :-- | --: | --: | --: | --: | --: | :-- |\n" +
        "| bun-bare | 50% | 20,000 | 20,000 | 0.50 | 4.00 | within |\n",
    );
    expect(rates).toContain(
      "| node-hono | 90% | 27,000 | 27,000 | 30.00 | 300.00 | over capacity |\n\n" +
        "| app | capacity at the p99 budget | how it was found |\n| :-- | --: | :-- |\n",
    );
    const curve = mdSection(markdownReport(analyze(CURVE)), "## Throughput curve");
    expect(curve).toContain("One closed-loop trial per connection count");
    // a column per count right-aligned; the peak and past-the-peak columns are words
    expect(curve).toContain(
      "### api\n\n| app | c=1 | c=100 | c=400 | peak | past the peak |\n| :-- | --: | --: | --: | :-- | :-- |\n" +
        "| bun-bare | 5,000 (0.5) | 40,000 (5.0) | 41,000 (20.0) | c=400 | peak at the largest count measured |",
    );
    const started = mdSection(markdownReport(analyze(STARTED)), "## Start-up");
    expect(started).toContain(
      "\n\n| app | starts (fresh) | ready ms | RSS ready MiB | RSS idle MiB |\n| :-- | --: | --: | --: | --: |\n" +
        "| bun-bare | 3 (2) | 40 (30–90) | 36.0 | 31.0 (30.0–32.0) |\n",
    );
    const workersMd = markdownReport(analyze(WORKERS));
    expect(mdSection(workersMd, "## Workers")).toContain(
      "| app | scenario | workers that served | CPU % per worker | connections per worker | primary RSS MiB | tree peak RSS MiB |\n" +
        "| :-- | :-- | --: | --: | --: | --: | --: |\n| a-bare | api | 2 of 2 | 62 / 30 | 40 / 24 | 20.0 | 50.0 |",
    );
    expect(mdSection(workersMd, "## Scaling with workers")).toContain(
      "\n\n### api\n\n| app | 1 worker(s) | 2 worker(s) |\n| :-- | --: | --: |\n| a-bare | 1,002 | 1,902 (×1.90) |",
    );
    const versions = mdSection(
      markdownReport(analyze(syntheticVersionsRun())),
      "## Runtime versions",
    );
    expect(versions).toContain(
      "### api · node\n\n| app | node 22.23.3 | node 24.21.0 |\n| :-- | --: | --: |\n| node-bare | 10,000 | 11,000 (110%) |",
    );
    expect(versions).toContain(
      '\n\n```mermaid\nxychart-beta\n    title "api: req/s on each node version (mean)"',
    );
    const calibrated = mdSection(markdownReport(analyze(CALIBRATED)), "## Calibration");
    expect(calibrated).toContain("bun-bare against itself (+0%: A/A");
    expect(calibrated).toContain(
      "\n\napi: too few rounds for subsampled rates (the run needs more rounds than a default run):\n\n" +
        "| row | extra iterations | extra | expected | measured (95% CI) | verdict | detectable | called different |\n" +
        "| :-- | --: | --: | --: | --: | :-- | --: | --: |\n| bun-bare-x5 | 485 | 5.0% |",
    );
    // none of them in a plain run
    const plain = markdownReport(analyze(SYNTHETIC));
    for (const h of [
      "Latency at offered",
      "Throughput curve",
      "Start-up",
      "Workers",
      "Scaling",
      "Runtime versions",
      "Calibration",
      "Production tax",
      "Profiles",
    ]) {
      expect(plain).not.toContain(`## ${h}`);
    }
  });

  test("the production tax: one table, or a subheading per api when there are several", () => {
    const trials = (app: string, scenario: string, mean: number, workers: number) =>
      [0.99, 1.01, 1].map((k, i) => ({
        ...syntheticTrial(app, scenario, i + 1, 64, mean * k, 2),
        ...(workers > 1 ? { workers } : {}),
      }));
    const stages = (counts: number[]) =>
      syntheticRun(
        ["bun-bare"],
        ["api", "auth"],
        counts.flatMap((w) => [
          ...trials("bun-bare", "api", 100_000, w),
          ...trials("bun-bare", "auth", 60_000, w),
        ]),
        counts.length > 1 ? { workers: 2, workerCounts: counts } : {},
      );
    const one = mdSection(markdownReport(analyze(stages([1]))), "## Production tax");
    // bun-bare's auth: 60,000 of 100,000 = 60% of its api
    expect(one).toContain(
      "\n\n| app | api req/s | framework tax (of bare) | auth |\n| :-- | --: | --: | --: |\n| bun-bare | 100,000 | — | 60% |",
    );
    expect(one).not.toContain("###");
    expect(markdownReport(analyze(stages([1])))).toContain(
      "\n\n## Production tax\n\nEach middleware stage's (and `tls`'s, `tls-handshake`'s, `h2`'s and `h2c`'s: the same answer over HTTPS, over a new HTTPS connection each, over HTTP/2, and over cleartext HTTP/2) mean req/s",
    );
    expect(one).toContain("a share of such an api, or such a stage, is off by as much.\n\n| app |");
    const two = mdSection(markdownReport(analyze(stages([1, 2]))), "## Production tax");
    expect(two).toContain("\n\n### api (w=1)\n\n| app | api req/s |");
    expect(two).toContain("\n\n### api (w=2)\n\n| app | api req/s |");
  });
});

describe("Markdown: blocks stand apart", () => {
  // Markdown needs a blank line before and after a heading, a table and a paragraph, or it runs
  // them together: each block below is checked with what comes right before and after it.
  test("the scenario sections: notes, the matrix, the framework tax, then the next section", () => {
    const md = markdownReport(analyze(SYNTHETIC));
    expect(md).toContain("| 3/3 |\n| — | node-bare | — ❌ failed |");
    expect(md).toContain("| 0 | 0/0 |\n\nNotes:\n\n- bun-bare: LOAD-GENERATOR BOUND");
    expect(md).toContain(
      "(python3 -m http.server)\n\nRelative throughput (the row's req/s as % of the column's; ≈: not significant):\n\n|  | bun-bare |",
    );
    expect(md).toContain(
      "| node-hono | 73% | 74% | 100% |\n\nFramework tax (the framework app's req/s as % of its runtime's bare baseline; " +
        "≈ tie: not significant, with the smallest difference the run could have detected):\n\n| app | % of bare |",
    );
    expect(md).toContain("| bun-hono | 98% | 2% | 0.013 |\n\n## echo — POST /api/echo");
    expect(md).toContain(
      "| 0.140 |\n\n## Charts\n\nCharts (an app marked * had load-generator-bound or generator-ceiling samples, so its bar is a lower bound, " +
        "or unsaturated, contended or machine-full samples, where neither the server nor the load generator was saturated, " +
        "something else had the CPU, or both shared full cores: not the server's best; ties and confidence intervals are in " +
        "the tables):\n\n```mermaid\nxychart-beta\n",
    );
    // one chart after another
    expect(md).toContain(
      '    bar [41200, 40500, 30000]\n```\n\n```mermaid\nxychart-beta\n    title "api: p99',
    );
    // the reading guide: what a sample, a bound and a contended run are
    expect(md).toContain(
      "each process (a fresh start of the app) takes several after its warm-up, and the processes of different apps are interleaved round by round.",
    );
    expect(md).toContain(
      "\n\nLoad-generator bound: the load generator was saturated and the server was not, so the req/s is a lower bound. ",
    );
    expect(md).toContain(
      " Contended: the server's core was busy with something other than the server, or CPU steal was high (not the server's best).",
    );
  });

  test("nothing measured: no charts", () => {
    const failed: Results = {
      ...SYNTHETIC,
      trials: [],
      apps: SYNTHETIC.apps.map((a) => ({ ...a, status: "failed" as const, failure: "no" })),
    };
    const md = markdownReport(analyze(failed));
    expect(md).not.toContain("Charts");
    expect(md).toEndWith("- node-bare: FAILED: no\n");
  });

  test("the sections of the other measurements: a blank line around each heading and table", () => {
    const rated = markdownReport(analyze(RATED));
    expect(rated).toContain("\n\n## Latency at offered load\n\nOpen-loop trials (--rates)");
    expect(rated).toContain(
      " p99.9 ≤ budget and unsent + 0.1% of the answered ≤ 1% of the scheduled.\n\n### api\n\n| app | rate |",
    );
    const curve = markdownReport(analyze(CURVE));
    expect(curve).toContain(
      "```\n\n## Throughput curve\n\nOne closed-loop trial per connection count",
    );
    expect(curve).toContain(
      " gives its confidence interval and p99 range.\n\n### api\n\n| app | c=1 |",
    );
    const started = markdownReport(analyze(STARTED));
    expect(started).toContain("```\n\n## Start-up\n\nEvery start of an app is measured");
    expect(started).toContain(
      " the others are the starts of the measured rounds.\n\n| app | starts (fresh) |",
    );
    expect(started).toEndWith("| 85.0 (80.0–90.0) |\n");
    const workers = markdownReport(analyze(WORKERS));
    expect(workers).toContain(
      "```\n\n## Workers\n\nEach app served its port from several processes",
    );
    expect(workers).toContain(
      " so an uneven spread is a finding, not noise.\n\n| app | scenario |",
    );
    expect(workers).toContain(
      "| 50.0 |\n\n## Scaling with workers\n\nEach app at every worker count",
    );
    expect(workers).toContain(
      " (the Pinning line says whether it had).\n\n### api\n\n| app | 1 worker(s) |",
    );
    const versions = markdownReport(analyze(syntheticVersionsRun()));
    expect(versions).toContain(
      "```\n\n## Runtime versions\n\nEach app on every version of its runtime",
    );
    expect(versions).toContain(
      " only the runtime differs.\n\n### api · node\n\n| app | node 22.23.3 |",
    );
    expect(versions).toContain("could detect ≥ 23.9%) |\n\n```mermaid\n");
    const calibrated = markdownReport(analyze(CALIBRATED));
    expect(calibrated).toContain("```\n\n## Calibration\n\nbun-bare against itself");
    expect(calibrated).toContain(" for the others the detection rate.\n\napi: too few rounds");
  });
});
const API_ONLY: Results = {
  ...COSTED,
  manifest: { ...COSTED.manifest, settings: { ...COSTED.manifest.settings, scenarios: ["api"] } },
  trials: COSTED.trials.filter((t) => t.scenario === "api"),
};

// bun-bare: mean 11 µs, sd 1, t(0.975, 2) = 4.3027: ± 4.3027/√3 = ± 2.48 → 8.52–13.48.
// node-bare: mean 24 µs, sd 2: ± 4.97 → 19.03–28.97; 24/11 = ×2.182, and Welch's interval
// (scipy: df 2.94, t 3.19, ± 0.378) 1.804–2.560.
const COST_TABLE =
  "| app | CPU µs per request (95% CI) | × cheapest (95% CI) |\n| :-- | --: | --: |\n" +
  "| bun-bare | 11.00 (8.52–13.48) | ×1.000 (the cheapest) |\n";
const NODE_COST = "| node-bare | 24.00 (19.03–28.97) | ×2.182 (1.804–2.560) |\n";

/** The Markdown from `heading` up to where `until` next occurs (or the end). */
function between(md: string, heading: string, until: string): string {
  const start = md.indexOf(heading);
  const end = md.indexOf(until, start + heading.length);
  return start === -1 ? "" : md.slice(start, end === -1 ? undefined : end);
}

describe("Markdown: CPU time per request, one app at a time", () => {
  test("a table per scenario under its own heading when there are several", () => {
    const md = markdownReport(analyze(COSTED));
    expect(between(md, "## CPU time per request", "\n## ")).toBe(
      "## CPU time per request\n\n" +
        "The server's CPU time per request, each app measured alone: every thread's schedstat time " +
        "over the load window divided by the requests answered in it, the mean over processes with " +
        "its 95% CI. × cheapest: the ratio to the cheapest app of the table, from the per-round log " +
        "ratios (paired t) where the two share 20 rounds or more, else the ratio of the means (Welch's " +
        "t), one Holm family per table; ≈ marks a ratio not significantly different " +
        "from 1, with the smallest difference the run could have detected. A server that is not " +
        "saturated spends more per request than a saturated one (fewer requests share each wake-up).\n\n" +
        `### api\n\n${COST_TABLE}${NODE_COST}\n### echo\n\n${COST_TABLE}`,
    );
    // after the scenarios' tables and the charts of them, a blank line apart
    expect(md).toContain("```\n\n## CPU time per request\n\n");
    expect(md.indexOf("\n## CPU time per request")).toBeGreaterThan(md.indexOf("\n## Charts"));
  });

  test("one scenario: its table straight under the intro; a run without the figure has none", () => {
    const md = markdownReport(analyze(API_ONLY));
    expect(md).toContain(`(fewer requests share each wake-up).\n\n${COST_TABLE}${NODE_COST}`);
    expect(md).not.toContain("### api");
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("CPU time per request");
  });
});

describe("Markdown: side by side", () => {
  const md = markdownReport(analyze(SIDE));

  test("the intro, a table per scenario with its description, the flags explained below", () => {
    expect(md).toContain(
      "\n\n## Side by side\n\nSide by side: the two apps of each pair served at the same moment",
    );
    expect(md).toContain(
      "(80% power). Lower is cheaper.\n\n### api — GET /api/test — a small JSON object built per request\n\n" +
        `${SIDE_TABLE}\n\nNotes:\n\n` +
        "- node-bare: 1 pair of processes with valid samples: too few for a CI\n" +
        "- deno-bare: FAILED: no deno\n",
    );
    expect(md).not.toContain("Against");
    // a side-by-side run has no closed-loop tables, charts or memory
    expect(md).not.toContain("## Charts");
  });

  test("a flag's samples' notes under it; a scenario the contract does not know; no flag, no notes", () => {
    const noted = syntheticSideRun(
      [["bun-bare", "bun-hono"]],
      rounds("bun-bare", "bun-hono", 1.2).map((t, i) => ({
        ...t,
        scenario: "custom",
        checks: i === 0 ? { ...t.checks, unsaturated: true, notes: ["steal 9%"] } : t.checks,
      })),
    );
    noted.manifest.settings.scenarios = ["custom"];
    const md = markdownReport(analyze(noted));
    // the first sample is both rows': each has an unsaturated one of its 8
    expect(md).toContain("\n\n### custom\n\n| rank |");
    expect(md).toContain(
      " |\n\nNotes:\n\n" +
        "- bun-bare: UNSATURATED 1/8: the servers did not fill their core (see the notes)\n  - steal 9%\n" +
        "- bun-hono: UNSATURATED 1/8: the servers did not fill their core (see the notes)\n  - steal 9%\n",
    );
    const clean = markdownReport(analyze(onTwoScenarios()));
    expect(clean).not.toContain("Notes:");
    // one scenario after another, each with its heading
    expect(clean).toContain("| 8/8 |\n\n### echo — POST /api/echo");
  });

  test("--against: its section, each app's verdict and the run's one line", () => {
    const slower = markdownReport(analyze(against(1.2)));
    expect(slower).toContain(
      "| 8/8 |\n\n### Against HEAD~1\n\nEach app as this checkout has it, against the same app at the commit",
    );
    // names and verdict left, figures right
    expect(slower).toContain(
      `| ${AGAINST_HEADER.join(" | ")} |\n| :-- | :-- | --: | --: | --: | :-- |\n`,
    );
    // the cells of its row: the change is the ratio's, 1.200 (1.174–1.226), less 1
    const row = (md: string) =>
      md
        .split("\n")
        .find((l) => l.startsWith("| bun-bare | api |"))
        ?.split(" | ")
        .map((c) => c.replace(/^\| |\s*\|$/g, ""));
    expect(row(slower)).toEqual([
      "bun-bare",
      "api",
      "+20.0% (+17.4% to +22.6%)",
      "< 0.001",
      expect.stringMatching(/^≥ \d\.\d%$/),
      "SLOWER",
    ]);
    // the section's last line is the gate's outcome: its verdict, the commit and the apps
    const last = (md: string) => md.trimEnd().split("\n").at(-1)?.split(": ");
    expect(last(slower)).toEqual([
      "SLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more",
      "bun-bare (api)",
    ]);
    const same = markdownReport(analyze(against(1)));
    expect(row(same)?.at(-1)).toBe("no change beyond the threshold");
    expect(last(same)?.[0]).toBe("no app slower than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more");
    // a paragraph of its own, a blank line below the table
    expect(slower).toMatch(/\| SLOWER \|\n\nSLOWER than HEAD~1/);
  });

  test("with --calibrate, the side-by-side calibration follows it", () => {
    const calibrated = markdownReport(analyze(CALIBRATED_SIDE));
    expect(calibrated).toContain(
      "| 8/8 |\n\n## Calibration\n\nSide by side (--side-by-side): bun-bare against itself",
    );
  });
});

describe("Markdown: the run's history check in the header", () => {
  test("one row: the lines joined, each without its indent; none without a history", () => {
    const md = markdownReport(analyze(WITH_HISTORY));
    expect(md).toContain(`| History | ${HISTORY_ROW} `);
    expect(md).not.toContain("  CHANGED");
    expect(markdownReport(analyze(SYNTHETIC))).not.toContain("| History |");
  });
});
