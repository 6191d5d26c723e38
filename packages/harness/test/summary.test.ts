import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import { qualityOf, spread } from "../src/analysis/stats.ts";
import { summaryExtras } from "../src/report/extras.ts";
import { markdownReport } from "../src/report/markdown.ts";
import { SIDE_INTRO } from "../src/report/side-by-side.ts";
import {
  baselineName,
  databaseText,
  designText,
  formatSummary,
  machinesText,
  mddText,
  p99Text,
  pinningText,
  precisionText,
  rankLongText,
  rankRows,
  summarize,
  taxText,
  toolsText,
} from "../src/report/summary.ts";
import type { Results, Trial } from "../src/results/schema.ts";
import { schemaErrors } from "../src/results/schema.ts";
import { wobbling } from "./support/side-fixtures.ts";
import {
  cleanChecks,
  syntheticResult,
  syntheticRun,
  syntheticSideRun,
  syntheticTrial,
  syntheticVersionsRun,
} from "./support/synthetic.ts";

describe("stats", () => {
  test("mean, sample stddev, CoV", () => {
    const s = spread([100, 110, 90]);
    expect(s.mean).toBe(100);
    expect(s.stddev).toBeCloseTo(10, 10);
    expect(s.cov).toBeCloseTo(0.1, 10);
    expect(spread([5]).stddev).toBe(0);
    expect(spread([]).n).toBe(0);
  });

  test("the quality scale", () => {
    expect(qualityOf(0.029)).toBe("excellent");
    expect(qualityOf(0.03)).toBe("acceptable");
    expect(qualityOf(0.049)).toBe("acceptable");
    expect(qualityOf(0.07)).toBe("noisy");
    expect(qualityOf(0.11)).toBe("unreliable");
  });
});

/** What a trial may differ in; everything else is a clean oha trial of 5 s at 50 connections. */
interface TrialOptions {
  readonly checks?: Partial<Trial["checks"]>;
  readonly p99?: number;
  readonly rssMiB?: number;
}

function trial(app: string, rps: number, options: TrialOptions = {}): Trial {
  const p99 = options.p99 ?? 4;
  return {
    app,
    scenario: "api",
    round: 1,
    startedAt: "2026-11-21T00:00:00.000Z",
    command: ["oha"],
    result: syntheticResult(rps, 5, { mean: 1, p50: 1, p90: 2, p99, p999: p99 * 2, max: p99 * 3 }),
    connections: 50,
    requestedSec: 5,
    cpuWindowSec: 4.8,
    server: { pid: 1, cpuPercent: 99, peakRssMiB: options.rssMiB ?? 50 },
    loadGenerator: { cpuPercent: 60, capacityCores: 1, threads: 1 },
    stealPercent: 0,
    checks: cleanChecks(50, 50, options.checks),
  };
}

function results(
  trials: Trial[],
  failed: Record<string, string> = {},
  apps = ["bun-hono", "bun-bare", "node-hono", "node-bare"],
): Results {
  return {
    schemaVersion: 2,
    status: "complete",
    startedAt: "2026-11-21T00:00:00.000Z",
    manifest: {
      tool: { name: "oha", version: "1.16.0", path: "/usr/bin/oha" },
      settings: {
        apps,
        scenarios: ["api"],
        durationSec: 5,
        warmupSec: 1,
        connections: 50,
        trials: 3,
        keepAlive: true,
        errorThreshold: 0.0001,
        argv: [],
      },
      pinning: { enabled: true, serverCpus: "0", loadCpus: "1" },
      machine: { cpuModel: "test cpu", cores: 2, memoryGiB: 24, os: "Debian", kernel: "Linux 6" },
      versions: { lockfile: { hono: "4.13.19" }, harnessBun: "1.4.5" },
      git: { commit: "0123456789abcdef", dirty: false },
    },
    // Each trial of an app is a process of its own (round k for its k-th trial), as in a run
    // with one sample per process.
    trials: trials.map((t, _, all) => ({
      ...t,
      round: all.filter((o) => o.app === t.app && o.scenario === t.scenario).indexOf(t) + 1,
    })),
    apps: apps.map((name) => ({
      name,
      runtime: name.split("-")[0] as string,
      framework: name.split("-")[1] as string,
      port: 3000,
      status: failed[name] ? ("failed" as const) : ("ok" as const),
      ...(failed[name] ? { failure: failed[name] } : {}),
    })),
  };
}

const BOUND_NOTE = "oha used 98% of its 1 core while the server used 80%: req/s is a lower bound";

describe("summary", () => {
  const sample = results(
    [
      trial("bun-hono", 90_000),
      trial("bun-hono", 110_000),
      trial("bun-bare", 200_000, { checks: { loadGeneratorBound: true, notes: [BOUND_NOTE] } }),
      trial("bun-bare", 200_000, { checks: { loadGeneratorBound: true, notes: [BOUND_NOTE] } }),
      trial("node-hono", 40_000),
      trial("node-hono", 999_999, {
        checks: { valid: false, invalidReasons: ["12 failed requests"] },
      }),
    ],
    { "node-bare": "port 3005 is already in use by pid 42 (python3 -m http.server)" },
  );

  test("the synthetic results conform to the schema (so the test exercises real shapes)", () => {
    expect(schemaErrors(sample)).toEqual([]);
  });

  test("rows sorted by mean req/s over valid trials, relative to fastest and to the bare baseline", () => {
    const rows = summarize(sample).get("api") ?? [];
    expect(rows.map((r) => r.app)).toEqual(["bun-bare", "bun-hono", "node-hono", "node-bare"]);
    const hono = rows.find((r) => r.app === "bun-hono");
    expect(hono?.rps.mean).toBe(100_000);
    expect(hono?.pctOfFastest).toBeCloseTo(50, 10);
    expect(hono?.pctOfBaseline).toBeCloseTo(50, 10);
    const nodeHono = rows.find((r) => r.app === "node-hono");
    expect(nodeHono?.rps.mean).toBe(40_000); // the invalid 999,999 is left out
    expect(nodeHono?.validTrials).toBe(1);
    expect(nodeHono?.pctOfBaseline).toBeUndefined(); // node-bare failed: no baseline
    expect(nodeHono?.flags.map((f) => f.text)).toContain(
      "INVALID 1/2 (12 failed requests): excluded",
    );
  });

  test("flags and the trials' notes stand next to the app in the printed summary", () => {
    const text = formatSummary(analyze(sample));
    expect(text).toContain(
      "  bun-bare: LOAD-GENERATOR BOUND 2/2: a lower bound (the load generator was saturated, the server was not)\n" +
        "  bun-bare: 2 processes with valid samples: too few samples for a CI\n" +
        `            - ${BOUND_NOTE}\n`,
    );
    // the two trials' identical notes are listed once
    expect(text.split(BOUND_NOTE)).toHaveLength(2);
    expect(text).toContain("node-bare: FAILED: port 3005 is already in use");
    expect(text).toContain("100,000 ± 14,142");
    expect(text).toContain("14.1% unreliable");
  });

  test("a complete, clean, pinned run: its setup in two lines, no INTERRUPTED", () => {
    expect(formatSummary(analyze(sample)).split("\n").slice(0, 4)).toEqual([
      "oha 1.16.0 · 50 connections · 1 × 5 s sample per process, 3 processes (rounds) per app (+1 s warm-up each) · server on CPU 0, load generator on CPU 1",
      "test cpu, 2 cores · Debian · commit 0123456789ab",
      "CPU steal on the server's core: median 0.0%, worst 0.0% over 6 samples · none at ≥ 15% (--max-steal)",
      "",
    ]);
  });

  test("--workers: the setup line says how many processes served each app", () => {
    const settings = { ...sample.manifest.settings, workers: 2 };
    const text = formatSummary(analyze({ ...sample, manifest: { ...sample.manifest, settings } }));
    expect(text.split("\n")[0]).toBe(
      "oha 1.16.0 · 50 connections · 1 × 5 s sample per process, 3 processes (rounds) per app (+1 s warm-up each) · 2 worker(s) per app · server on CPU 0, load generator on CPU 1",
    );
  });

  test("a failed app's row says so and keeps the failure; the others are ok", () => {
    const rows = summarize(sample).get("api") ?? [];
    const failed = rows.find((r) => r.app === "node-bare");
    expect(failed?.status).toBe("failed");
    expect(failed?.failure).toBe("port 3005 is already in use by pid 42 (python3 -m http.server)");
    expect(failed?.flags.map((f) => f.tag)).toEqual(["FAILED"]);
    expect(rows.find((r) => r.app === "bun-hono")?.status).toBe("ok");
  });
});

describe("apps without a valid trial", () => {
  // bun-bare comes first in the run's order but has no trial (the run was stopped before it);
  // node-bare failed without a message; node-hono's only trial was invalid. bun-hono, stalled
  // at under 1 req/s, was still measured: it comes first.
  const r = results(
    [
      trial("bun-hono", 0.5),
      trial("bun-hono", 0.7),
      trial("node-hono", 1000, {
        checks: {
          valid: false,
          invalidReasons: ["no responses", "oha measured 0.00 s of the 5 s asked for"],
        },
      }),
    ],
    {},
    ["bun-bare", "node-bare", "bun-hono", "node-hono"],
  );
  Object.assign(r.apps[1] ?? {}, { status: "failed" });
  const rows = summarize(r).get("api") ?? [];
  const row = (app: string) => rows.find((x) => x.app === app);

  test("sorted after every measured app, in the run's order", () => {
    expect(rows.map((x) => x.app)).toEqual(["bun-hono", "bun-bare", "node-bare", "node-hono"]);
    expect(row("bun-hono")?.rank).toEqual({ position: 1, tie: false });
    expect(row("bun-bare")?.rank).toBeUndefined();
  });

  test("no number stands in for the missing ones", () => {
    const none = row("node-hono");
    expect(none?.peakRssMiB).toBeNaN();
    expect(none?.latencyRangeMs.p99).toEqual({ low: Number.NaN, high: Number.NaN });
    expect(none?.latencyMs.p99).toBeNaN();
  });

  test("each flagged with why: not measured, failed, invalid (every reason once)", () => {
    expect(row("bun-bare")?.flags).toEqual([{ tag: "NOT MEASURED", text: "not measured" }]);
    expect(row("node-bare")?.flags).toEqual([{ tag: "FAILED", text: "FAILED: unknown" }]);
    expect(row("node-hono")?.flags).toEqual([
      {
        tag: "INVALID 1/1",
        text: "INVALID 1/1 (no responses; oha measured 0.00 s of the 5 s asked for): excluded",
      },
    ]);
    const text = formatSummary(analyze(r));
    expect(text).toContain("  bun-bare: not measured\n");
    expect(text).toContain("  node-bare: FAILED: unknown\n");
  });

  test("an app the contract says cannot serve the scenario: NOT SUPPORTED with the reason, in every report", () => {
    const why = "Bun.serve speaks HTTP/1.1 only";
    const withCell: Results = {
      ...r,
      unsupported: [{ app: "bun-bare", scenario: "api", reason: why }],
    };
    expect(schemaErrors(withCell)).toEqual([]);
    const analysis = analyze(withCell);
    const flags = analysis.groups.get("api")?.rows.find((x) => x.app === "bun-bare")?.flags;
    expect(flags).toEqual([{ tag: "NOT SUPPORTED", text: `not supported: ${why}` }]);
    // A cell of another scenario, or of another app, leaves this one not measured.
    for (const cell of [
      { app: "bun-bare", scenario: "h2", reason: why },
      { app: "deno-bare", scenario: "api", reason: why },
    ]) {
      const elsewhere = analyze({ ...r, unsupported: [cell] });
      expect(elsewhere.groups.get("api")?.rows.find((x) => x.app === "bun-bare")?.flags).toEqual([
        { tag: "NOT MEASURED", text: "not measured" },
      ]);
    }
    const text = formatSummary(analysis);
    expect(text).toContain(`  bun-bare: not supported: ${why}\n`);
    const extras = summaryExtras(analysis).join("\n");
    expect(extras).toContain(`== not supported (no figure: the app cannot serve the scenario)\n`);
    expect(extras).toMatch(/bun-bare +api +Bun\.serve speaks HTTP\/1\.1 only/);
    const md = markdownReport(analysis);
    expect(md).toContain("## Not supported");
    expect(md).toContain(`| bun-bare | api | ${why} |`);
    expect(markdownReport(analyze(r))).not.toContain("Not supported");
  });

  test("an untestable fastest row does not tie the rest: the first testable row is the reference", () => {
    const rows = [1, 3, 3, 3].map((n) => ({ rps: { n, mean: 1, stddev: 0, cov: 0 } }));
    // Row 3 differs from row 1 (the first testable), row 2 does not.
    const versus = (i: number, j: number) => ({ significant: i === 1 && j === 3 });
    expect(rankRows(rows, versus)).toEqual([
      { position: 1, tie: false },
      { position: 1, tie: true },
      { position: 1, tie: true },
      { position: 4, tie: false },
    ]);
  });

  test("rankRows leaves an unmeasured row unranked, and it opens no group", () => {
    const rows = [3, 0, 1].map((n) => ({ rps: { n, mean: 1, stddev: 0, cov: 0 } }));
    // Row 2 is untestable against row 0 (one process): a tie, with no detectable difference.
    expect(rankRows(rows, () => ({ significant: false }))).toEqual([
      { position: 1, tie: false },
      undefined,
      { position: 1, tie: true },
    ]);
  });
});

describe("scenarios", () => {
  test("each scenario's rows are computed from its own trials only", () => {
    const r = results(
      [
        trial("bun-bare", 41_000),
        trial("bun-bare", 41_400),
        { ...trial("bun-bare", 10_000), scenario: "echo" },
        { ...trial("bun-bare", 10_200), scenario: "echo" },
        { ...trial("bun-bare", 10_400), scenario: "echo" },
      ],
      {},
      ["bun-bare"],
    );
    Object.assign(r.manifest.settings, { scenarios: ["api", "echo"] });
    const summary = summarize(r);
    expect(summary.get("api")?.[0]?.rpsValues).toEqual([41_000, 41_400]);
    expect(summary.get("echo")?.[0]?.rpsValues).toEqual([10_000, 10_200, 10_400]);
    expect(summary.get("echo")?.[0]?.trials).toBe(3);
  });
});

describe("the generators, as the summary's first line states them", () => {
  test("the HTTP tool alone; with ws-load, the scenarios it loaded named", () => {
    const r = results([]);
    const tool = `${r.manifest.tool.name} ${r.manifest.tool.version}`;
    expect(toolsText(r.manifest)).toBe(tool);
    const wsTool = { name: "ws-load" as const, version: "0.1.0", path: "/x/ws-load" };
    Object.assign(r.manifest, { wsTool });
    Object.assign(r.manifest.settings, { scenarios: ["api", "tls-handshake", "sse", "ws-echo"] });
    expect(toolsText(r.manifest)).toBe(`${tool} (tls-handshake, ws-echo: ws-load 0.1.0)`);
  });
});

describe("pinning, as the summary's first line states it", () => {
  test("the CPUs when pinned; the reason when not, if there is one", () => {
    const r = results([]);
    expect(pinningText(r)).toBe("server on CPU 0, load generator on CPU 1");
    Object.assign(r.manifest, { pinning: { enabled: false } });
    expect(pinningText(r)).toBe("not pinned");
    Object.assign(r.manifest, { pinning: { enabled: false, note: "1 core" } });
    expect(pinningText(r)).toBe("not pinned (1 core)");
  });
});

describe("two hosts (--server-host): the setup lines name both", () => {
  const serverHost: NonNullable<Results["manifest"]["serverHost"]> = {
    name: "bench-server",
    address: "10.77.0.2",
    machine: { cpuModel: "Big CPU", cores: 8, memoryGiB: 32, os: "Ubuntu 24", kernel: "6.8" },
    git: { commit: "0123456789abcdef", dirty: false },
    rttMs: 0.1234,
    linkMbps: { load: 10_000, server: 25_000 },
  };
  const twoHosts = (patch: Partial<typeof serverHost> = {}): Results => {
    const r = results([]);
    return { ...r, manifest: { ...r.manifest, serverHost: { ...serverHost, ...patch } } };
  };

  test("pinning: the server's CPU on its host, or why it is not pinned; the generator elsewhere", () => {
    expect(pinningText(twoHosts())).toBe(
      "server on CPU 0 of its host, load generator on the other host",
    );
    const r = twoHosts();
    Object.assign(r.manifest, { pinning: { enabled: false, note: "--no-pin" } });
    expect(pinningText(r)).toBe("server not pinned (--no-pin), load generator on the other host");
  });

  test("machines: the server's, the load generator's, the round trip and the generator's link", () => {
    expect(machinesText(twoHosts())).toBe(
      "server bench-server (10.77.0.2): Big CPU, 8 cores · Ubuntu 24 · " +
        "load generator: test cpu, 2 cores · Debian · round trip 0.123 ms, link 10000 Mbit/s",
    );
    expect(machinesText(twoHosts(), true)).toBe(
      "server bench-server (10.77.0.2): Big CPU, 8 cores, 32 GiB · Ubuntu 24 · 6.8 · " +
        "load generator: test cpu, 2 cores, 24 GiB · Debian · Linux 6 · round trip 0.123 ms, link 10000 Mbit/s",
    );
  });

  test("the link: the server's when the generator's is unknown, none when neither is", () => {
    expect(machinesText(twoHosts({ linkMbps: { server: 25_000 } }))).toEndWith(
      " · round trip 0.123 ms, link 25000 Mbit/s",
    );
    expect(machinesText(twoHosts({ linkMbps: {} }))).toEndWith(" · round trip 0.123 ms");
  });

  test("one machine: just it, long with its memory and kernel", () => {
    expect(machinesText(results([]))).toBe("test cpu, 2 cores · Debian");
    expect(machinesText(results([]), true)).toBe("test cpu, 2 cores, 24 GiB · Debian · Linux 6");
  });
});

describe("latency percentiles: the median of the trials, not their mean", () => {
  // The numbers: one bad trial's p99 averaged the column to 155 ms.
  const r = results([
    trial("bun-bare", 41_000, { p99: 17.99 }),
    trial("bun-bare", 41_200, { p99: 437.65 }),
    trial("bun-bare", 41_400, { p99: 9.93 }),
  ]);

  test("p99 is the middle trial's, with the range over trials beside it", () => {
    const row = summarize(r).get("api")?.[0];
    expect(row?.latencyMs).toEqual({ p50: 1, p90: 2, p99: 17.99, p999: 35.98 });
    expect(row?.latencyRangeMs.p99).toEqual({ low: 9.93, high: 437.65 });
    expect(formatSummary(analyze(r))).toContain(" 17.99 (9.93–437.65) ");
  });
});

describe("confidence intervals, ranks and ties", () => {
  // Three rounds, too few to pair (Welch's test): bun-hono is not significantly slower than
  // bun-elysia (p ≈ 0.16) but is than bun-bare (p ≈ 0.013), the app that opened the tie group:
  // it must get a rank of its own.
  const apps = ["bun-bare", "bun-elysia", "bun-hono", "node-bare", "node-hono", "node-elysia"];
  const ranked = results(
    [
      ...[41_000, 41_200, 41_400].map((v) => trial("bun-bare", v)),
      ...[40_600, 41_100, 41_600].map((v) => trial("bun-elysia", v)),
      ...[40_300, 40_500, 40_700].map((v) => trial("bun-hono", v)),
      ...[30_000, 30_100, 29_900].map((v) => trial("node-bare", v)),
      trial("node-hono", 29_950),
      ...[20_000, 20_500, 19_500].map((v) => trial("node-elysia", v)),
    ],
    {},
    apps,
  );
  const rows = summarize(ranked).get("api") ?? [];
  const row = (app: string) => rows.find((r) => r.app === app);

  test("every mean comes with its 95% CI (Student's t); one trial has none", () => {
    // 41,200 ± t(0.975, 2) × 200 / √3 = 41,200 ± 496.8
    expect(row("bun-bare")?.ci?.low).toBeCloseTo(40_703.17, 1);
    expect(row("bun-bare")?.ci?.high).toBeCloseTo(41_696.83, 1);
    expect(row("node-hono")?.ci).toBeUndefined();
  });

  test("a new rank only when significantly slower than the group's first app", () => {
    const ranks = rows.map((r) => [r.app, r.rank?.position, r.rank?.tie]);
    expect(ranks).toEqual([
      ["bun-bare", 1, false],
      ["bun-elysia", 1, true],
      ["bun-hono", 3, false],
      ["node-bare", 4, false],
      ["node-hono", 4, true], // one trial: untestable, so a tie
      ["node-elysia", 6, false],
    ]);
  });

  test("each row says whether it differs from the fastest and from its bare baseline", () => {
    expect(row("bun-elysia")?.vsFastest?.significant).toBe(false);
    expect(row("bun-hono")?.vsFastest?.significant).toBe(true);
    expect(row("bun-hono")?.vsFastest?.p).toBeCloseTo(0.0127, 3);
    expect(row("bun-hono")?.vsBaseline?.significant).toBe(true);
    expect(row("node-hono")?.vsBaseline).toEqual({ significant: false }); // n = 1: no test
    expect(row("bun-bare")?.vsFastest).toBeUndefined();
  });

  test("the printed table: rank, CI, ≈ on insignificant percentages, the 1-trial note", () => {
    const lines = formatSummary(analyze(ranked)).split("\n");
    const line = (app: string) => lines.find((l) => l.includes(` ${app} `)) ?? "";
    expect(line("bun-bare")).toMatch(
      /^1 +bun-bare +41,200 ± 200 +40,703–41,697 +±1\.2% +0\.5% excellent /,
    );
    expect(line("bun-elysia")).toMatch(/^≈1 +bun-elysia +41,100 ± 500 +39,858–42,342 +±3\.0% /);
    // A tie states what it could have told apart: the detectable difference from the fastest.
    expect(line("bun-elysia")).toMatch(/ ≈100% +≥ \d+\.\d% +≈100% +3 +3\/3$/);
    expect(line("bun-hono")).toMatch(/^3 +bun-hono .* 98% +≥ \d+\.\d% +98% +3 +3\/3$/);
    expect(line("node-hono")).toMatch(/^≈4 +node-hono +29,950 +too few samples +— +— /);
    expect(line("node-hono")).toMatch(/ ≈100% +1 +1\/1$/);
    expect(line("node-elysia")).toMatch(/^6 +node-elysia .* 49% +≥ \d+\.\d% +67% +3 +3\/3$/);
    expect(lines).toContain(
      "  node-hono: 1 process with valid samples: too few samples for a CI, and every comparison is a tie (≈)",
    );
    expect(row("node-hono")?.flags.map((f) => f.tag)).toEqual(["1 PROCESS"]);
  });

  test("the framework tax: a cost when significant, a tie when not, untestable with 1 trial", () => {
    const tax = (app: string) => {
      const r = row(app);
      if (!r) throw new Error(`no row for ${app}`);
      return taxText(r);
    };
    // 40,500 / 41,200 = 98.3%: 1.7% slower, p = 0.013 (Welch)
    expect(tax("bun-hono")).toEqual({ ofBare: "98%", cost: "2%", p: "0.013" });
    // 20,000 / 30,000
    expect(tax("node-elysia")).toEqual({ ofBare: "67%", cost: "33%", p: "< 0.001" });
    // t = −0.32 on 2.6 degrees of freedom: p = 0.772 (numerical integration of the t density);
    // detectable: the noncentral t's 80% point at 0.05/10 and Welch's 2.6 df, times the se.
    expect(tax("bun-elysia")).toEqual({
      ofBare: "≈100%",
      cost: "≈ tie (could detect ≥ 8.5%)",
      p: "0.772",
    });
    expect(tax("node-hono")).toEqual({ ofBare: "≈100%", cost: "≈ tie", p: "— (untestable)" });
  });
});

describe("flags from the trials' checks", () => {
  const idle = { inFlight: 10, ratio: 0.2, checked: true, ok: false };
  const flagged = results([
    trial("bun-bare", 60_000, { checks: { loadGeneratorBound: true, notes: [BOUND_NOTE] } }),
    trial("bun-bare", 61_000, { checks: { loadGeneratorBound: true, notes: [BOUND_NOTE] } }),
    trial("bun-bare", 62_000),
    trial("bun-hono", 30_000, {
      checks: { unsaturated: true, notes: ["server 60%, oha 50% of its core: CPU steal 12%"] },
    }),
    trial("bun-hono", 31_000, {
      checks: { littlesLaw: idle, notes: ["10 requests in flight on 50 connections"] },
    }),
    trial("bun-hono", 32_000),
    trial("bun-hono", 0, {
      checks: { valid: false, invalidReasons: ["error rate 3.10% > 0.01%"], notes: ["hidden"] },
    }),
  ]);
  const text = formatSummary(analyze(flagged));

  test("each flag counted over the valid trials, with its explanation", () => {
    expect(text).toContain(
      "  bun-bare: LOAD-GENERATOR BOUND 2/3: a lower bound (the load generator was saturated, the server was not)",
    );
    expect(text).toContain(
      "  bun-hono: INVALID 1/4 (error rate 3.10% > 0.01%): excluded\n" +
        "  bun-hono: UNSATURATED 1/3: neither the server nor the load generator was saturated (not the server's best)\n" +
        "  bun-hono: IDLE CONNECTIONS 1/3: in-flight requests well below the connections: connections waited without a counted request (unserved by the server, or paced by the load generator; see the notes)\n" +
        "            - server 60%, oha 50% of its core: CPU steal 12%\n" +
        "            - 10 requests in flight on 50 connections\n",
    );
    expect(text).not.toContain("LITTLE'S LAW");
    expect(text).not.toContain("hidden"); // an invalid trial's notes do not qualify the numbers
  });

  test("the rows count the flagged trials", () => {
    const hono = summarize(flagged)
      .get("api")
      ?.find((r) => r.app === "bun-hono");
    expect([hono?.boundTrials, hono?.unsaturatedTrials, hono?.idleTrials]).toEqual([0, 1, 1]);
    expect(hono?.flags.map((f) => f.tag)).toEqual([
      "INVALID 1/4",
      "UNSATURATED 1/3",
      "IDLE CONNECTIONS 1/3",
    ]);
  });
});

/** Checked by hand: 95% CI = 102,000 ± 12.706 × 2,828 / √2; p99 = median of 3 and 5. */
const PRINTED = [
  "oha 1.16.0 · 50 connections · 1 × 5 s sample per process, 3 processes (rounds) per app (+1 s warm-up each) · not pinned (--no-pin)",
  "test cpu, 2 cores · Debian · commit 0123456789ab (dirty)",
  "INTERRUPTED: only the samples that finished are shown",
  "CPU steal on the server's core: median 0.0%, worst 0.0% over 7 samples · none at ≥ 15% (--max-steal)",
  "",
  "== api",
  "rank  app        req/s (mean ± sd)           95% CI      ±             CoV    p99 ms (range)  RSS MiB  srv CPU%  gen CPU%  of fastest  detects  of bare  procs  valid",
  "----  ---------  -----------------  ---------------  -----  --------------  ----------------  -------  --------  --------  ----------  -------  -------  -----  -----",
  "1     bun-bare     102,000 ± 2,000   97,032–106,968  ±4.9%  2.0% excellent  4.00 (3.00–5.00)     44.0        99        60        100%        —        —      3    3/3",
  "2     bun-hono      50,000 ± 1,000    47,516–52,484  ±5.0%  2.0% excellent  8.00 (7.00–9.00)     50.0        99        60         49%   ≥ 5.4%      49%      3    3/3",
  "≈2    node-hono             20,000  too few samples      —               —             30.00     50.0        99        60        ≈20%        —        —      1    1/1",
  "—     node-bare                  —                —      —               —                 —        —         —         —           —        —        —      0    0/0",
  "  node-hono: 1 process with valid samples: too few samples for a CI, and every comparison is a tie (≈)",
  "  node-bare: FAILED: did not start",
  "",
  "±: the 95% CI's half-width as a share of the mean. detects: the smallest difference from the fastest app this run could have detected. procs: processes with valid samples; valid: valid samples / samples.",
  "p99: median of the valid samples (lowest–highest). Each app's mean is over processes (fresh starts), each process the mean of its samples; its 95% CI (Student's t) needs 3 processes or more. ≈ marks a difference that is not significant (a paired t-test on the per-round log ratios of the process means where two apps share 20 rounds or more, as a default run's do; Welch's t-test on the process means where they share fewer; every pair of a table is one family, held to 5% by Holm's step-down) or that cannot be tested (fewer than 2 processes): a tie, not a ranking. Beside a tie, the smallest difference the run could have detected (at Holm's strictest level, 80% power). An app gets a new rank only when it is significantly slower than the app that opened the current tie group; tied apps share that rank (1, ≈1, 3).",
].join("\n");

describe("the whole printed summary, character for character", () => {
  const run = results(
    [
      trial("bun-bare", 100_000, { p99: 3, rssMiB: 40 }),
      trial("bun-bare", 104_000, { p99: 5, rssMiB: 44 }),
      trial("bun-bare", 102_000, { p99: 4, rssMiB: 42 }),
      trial("bun-hono", 51_000, { p99: 9 }),
      trial("bun-hono", 49_000, { p99: 7 }),
      trial("bun-hono", 50_000, { p99: 8 }),
      trial("node-hono", 20_000, { p99: 30 }),
    ],
    { "node-bare": "did not start\nstack trace line" },
  );
  Object.assign(run, { status: "interrupted" });
  Object.assign(run.manifest.pinning, { enabled: false, note: "--no-pin" });
  Object.assign(run.manifest.git, { dirty: true });

  test("header, table, flags and the reading note", () => {
    expect(formatSummary(analyze(run))).toBe(PRINTED);
  });
});

describe("a side-by-side run's summary", () => {
  // bun-hono at 1.2 × 1.01, 0.99, 1.02, 0.98 of bun-bare's 10 µs: geometric mean 1.19985, its
  // crossover interval on 2 df 1.1817–1.2182 (±1.5%, computed apart in Python); 12.12, 11.88,
  // 12.24, 11.76 µs, mean 12.00.
  // Round 1's sample, shared by both rows, at the generators' ceiling.
  const trials = wobbling("bun-bare", "bun-hono", 1.2, [1.01, 0.99, 1.02, 0.98]).map((t) =>
    t.round === 1
      ? { ...t, checks: { ...t.checks, generatorCeiling: true, notes: ["round 1: at 100%"] } }
      : t,
  );
  const run = syntheticSideRun([["bun-bare", "bun-hono"]], trials);
  const CEILING =
    "GENERATOR CEILING 1/4: the generators used all they can while the servers' core had room: a cost measured below saturation";

  test("the table per scenario, each flag with its notes under it, then the reading alone", () => {
    expect(formatSummary(analyze(run)).split("\n").slice(2)).toEqual([
      "CPU steal on the servers' core: median 0.0%, worst 0.0% over 4 samples · none at ≥ 15% (--max-steal)",
      "",
      "== api: CPU time per request, side by side (× the reference; lower is cheaper)",
      "rank  app                                CPU per request (× reference, 95% CI)      ±  CPU µs per request  req/s sharing the core  pairs  valid samples",
      "----  ---------------------------------  -------------------------------------  -----  ------------------  ----------------------  -----  -------------",
      "1     bun-bare ⚠️ generator ceiling 1/4                 ×1.000 (the reference)      —               10.00                  40,000      4            4/4",
      "2     bun-hono ⚠️ generator ceiling 1/4                   ×1.200 (1.182–1.218)  ±1.5%               12.00                  40,000      4            4/4",
      `  bun-bare: ${CEILING}`,
      "            - round 1: at 100%",
      `  bun-hono: ${CEILING}`,
      "            - round 1: at 100%",
      "",
      SIDE_INTRO,
    ]);
  });

  test("--against: its table, all left-aligned, and the outcome line before the reading", () => {
    // bun-hono 1.1 × 1.002, 1.001, 0.998, 0.999, 1, 1 of itself at the commit, a wobble within
    // each arrangement (odd rounds, even ones) that the crossover keeps: +10.0% (+9.8% to
    // +10.2%, 4 df); detectable at 0.05 one-sided, 80% power (noncentral t): 0.20% (computed
    // apart, in Python).
    const at = "bun-hono@1a2b3c4";
    const against = { ref: "HEAD~1", commit: "1a2b3c4d5e6f7a8b" };
    const SMALL = [1.002, 1.001, 0.998, 0.999, 1, 1];
    const slower = syntheticSideRun([[at, "bun-hono"]], wobbling(at, "bun-hono", 1.1, SMALL), {
      against,
    });
    const lines = formatSummary(analyze(slower)).split("\n");
    expect(lines.slice(lines.indexOf("== against HEAD~1") - 1)).toEqual([
      "",
      "== against HEAD~1",
      "app       scenario  CPU per request, this checkout vs the commit (95% CI)  p (1-sided)  detectable  verdict",
      "--------  --------  -----------------------------------------------------  -----------  ----------  -------",
      "bun-hono  api       +10.0% (+9.8% to +10.2%)                               < 0.001      ≥ 0.2%      SLOWER",
      "SLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: bun-hono (api)",
      "",
      SIDE_INTRO,
    ]);
  });

  test("the design line: samples per pair of processes, pairs per comparison", () => {
    const settings = run.manifest.settings;
    const withSettings = (patch: Partial<typeof settings>, status = run.status) => ({
      ...run,
      status,
      manifest: { ...run.manifest, settings: { ...settings, ...patch } },
    });
    expect(designText(run)).toBe(
      "side by side: 5 × 1 s samples per pair of processes, 4 pairs (rounds) per comparison " +
        "(+2 s warm-up each), 50 connections per app",
    );
    expect(designText(withSettings({ samples: 1, trials: 1 }))).toBe(
      "side by side: 1 × 1 s sample per pair of processes, 1 pair (rounds) per comparison " +
        "(+2 s warm-up each), 50 connections per app",
    );
    // cut short: the pairs measured (rounds 1-4 hold samples), of those planned
    expect(designText(withSettings({ trials: 15 }, "interrupted"))).toContain(
      ", 4 of 15 planned pairs (rounds) per comparison",
    );
    const first = { ...withSettings({ trials: 15 }, "interrupted") };
    first.pairTrials = (first.pairTrials ?? []).filter((t) => t.round === 1);
    expect(designText(first)).toContain(", 1 of 15 planned pairs (rounds) per comparison");
  });
});

describe("framework tax in a version matrix (--node 22,24)", () => {
  test("against the bare app on the same version, never another version's", () => {
    expect(baselineName("node-hono@24.21.0")).toBe("node-bare@24.21.0");
    expect(baselineName("deno-elysia@2.8.3")).toBe("deno-bare@2.8.3");
    expect(baselineName("node-hono")).toBe("node-bare");
    expect(baselineName("node-bare@24.21.0")).toBeUndefined();
    expect(baselineName("node-bare")).toBeUndefined();
    expect(baselineName("not-an-app")).toBeUndefined();
    const rows = summarize(syntheticVersionsRun()).get("api") ?? [];
    const row = (app: string) => rows.find((r) => r.app === app);
    // node-hono: 8,000 on both versions; node-bare: 10,000 on 22, 11,000 on 24.
    expect(row("node-hono@22.23.3")?.pctOfBaseline).toBeCloseTo(80, 9);
    expect(row("node-hono@24.21.0")?.pctOfBaseline).toBeCloseTo((8_000 / 11_000) * 100, 9);
    expect(row("node-hono@24.21.0")?.vsBaseline?.significant).toBe(true);
    expect(row("node-bare@24.21.0")?.pctOfBaseline).toBeUndefined();
  });
});

describe("samples within processes", () => {
  // bun-bare: 3 processes of 2 samples; node-bare: 2 processes; every app in rounds 1–3.
  const t = (app: string, round: number, sample: number, rps: number, contended = false) => ({
    ...syntheticTrial(app, "api", round, 50, rps, 5),
    sample,
    checks: { ...cleanChecks(45, 50), contended, ...(contended ? { notes: ["core busy"] } : {}) },
  });
  const run = syntheticRun(
    ["bun-bare", "node-bare"],
    ["api"],
    [
      t("bun-bare", 1, 1, 100),
      t("bun-bare", 1, 2, 110),
      t("bun-bare", 2, 1, 120, true),
      t("bun-bare", 2, 2, 130),
      t("bun-bare", 3, 1, 90),
      t("bun-bare", 3, 2, 100),
      t("node-bare", 1, 1, 40),
      t("node-bare", 2, 1, 42),
    ],
  );
  const group = analyze(run).groups.get("api");
  const row = (app: string) => group?.rows.find((r) => r.app === app);

  test("the mean is over process means; samples count as samples, processes as processes", () => {
    expect(row("bun-bare")?.rpsValues).toEqual([105, 125, 95]);
    expect(row("bun-bare")?.rps.mean).toBeCloseTo(325 / 3, 10);
    expect(row("bun-bare")?.validTrials).toBe(6);
    expect(row("bun-bare")?.rps.n).toBe(3);
    expect(row("bun-bare")?.estimate.components?.perProcess).toBe(2);
  });

  test("contended samples are counted and flagged, with their notes", () => {
    expect(row("bun-bare")?.contendedTrials).toBe(1);
    expect(row("bun-bare")?.flags.map((f) => f.tag)).toEqual(["CONTENDED 1/6"]);
    expect(row("bun-bare")?.notes).toEqual(["core busy"]);
  });

  test("generator-ceiling samples are counted and flagged: a lower bound, not a measure", () => {
    const capped = syntheticRun(
      ["deno-bare"],
      ["api"],
      [1, 2, 3].map((r) => ({
        ...syntheticTrial("deno-bare", "api", r, 50, 100, 5),
        checks: { ...cleanChecks(45, 50), generatorCeiling: r !== 2 },
      })),
    );
    const only = analyze(capped).groups.get("api")?.rows[0];
    expect(only?.ceilingTrials).toBe(2);
    expect(only?.boundTrials).toBe(0);
    expect(only?.flags.map((f) => f.text)).toEqual([
      "GENERATOR CEILING 2/3: a lower bound of the server's capacity, not its measure (the load " +
        "generator was at its ceiling, or connections waited on it while the server's core had " +
        "room; see the notes)",
    ]);
  });

  test("machine-full samples are counted and flagged, apart from the generator's", () => {
    const full = syntheticRun(
      ["bun-bare"],
      ["api"],
      [1, 2, 3].map((r) => ({
        ...syntheticTrial("bun-bare", "api", r, 50, 100, 5),
        checks: { ...cleanChecks(45, 50), machineFull: r === 2 },
      })),
    );
    const only = analyze(full).groups.get("api")?.rows[0];
    expect(only?.machineFullTrials).toBe(1);
    expect(only?.boundTrials).toBe(0);
    expect(only?.flags.map((f) => f.text)).toEqual([
      "MACHINE FULL 1/3: the server and the load generator shared the cores and filled them " +
        "(not the server's best, nor a load-generator limit)",
    ]);
  });

  test("two processes: a tag and a line that say so; the noise line under the table", () => {
    expect(row("node-bare")?.flags.map((f) => f.tag)).toEqual(["2 PROCESSES"]);
    const text = formatSummary(analyze(run));
    expect(text).toContain(
      "  node-bare: 2 processes with valid samples: too few samples for a CI\n",
    );
    expect(text).toContain(
      "  noise (CoV of one sample within a process / between processes): bun-bare ",
    );
    expect(text).toContain("  bun-bare: CONTENDED 1/6: the server's core was busy");
  });

  test("between() answers for any two rows, either way round, and nothing for strangers", () => {
    const ab = group?.between("bun-bare", "node-bare");
    const ba = group?.between("node-bare", "bun-bare");
    // Two rounds in common, too few to pair: Welch's test on the process means.
    expect(ab?.test?.change).toBeCloseTo(41 / (325 / 3) - 1, 10);
    expect(ba?.test?.change).toBeCloseTo(325 / 3 / 41 - 1, 10);
    expect(ab?.test?.paired).toBeUndefined();
    expect(ab?.significant).toBe(ba?.significant as boolean);
    expect(group?.between("bun-bare", "bun-bare")).toEqual({ significant: false });
    expect(group?.between("bun-bare", "deno-bare")).toEqual({ significant: false });
    expect(group?.comparisons).toBe(1);
  });
});

describe("the text helpers the reports share", () => {
  test("mddText: a share as a percentage; nothing for no test, NaN or an infinite MDD", () => {
    expect(mddText(0.071)).toBe("≥ 7.1%");
    expect(mddText(undefined)).toBe("—");
    expect(mddText(Number.NaN)).toBe("—");
    expect(mddText(Number.POSITIVE_INFINITY)).toBe("—");
  });

  test("rankLongText: only a tie with a detectable difference says what it could detect", () => {
    expect(rankLongText({ position: 1, tie: true, mdd: 0.071 })).toBe("≈1 (could detect ≥ 7.1%)");
    expect(rankLongText({ position: 1, tie: true })).toBe("≈1");
    expect(rankLongText({ position: 3, tie: false, mdd: 0.05 })).toBe("3");
    expect(rankLongText(undefined)).toBe("—");
  });

  test("designText: singular and plural samples and processes", () => {
    const design = (settings: Partial<Results["manifest"]["settings"]>) =>
      designText(syntheticRun(["bun-bare"], ["api"], [], settings));
    expect(design({ samples: 1, trials: 1 })).toBe(
      "1 × 5 s sample per process, 1 process (rounds) per app (+2 s warm-up each)",
    );
    expect(design({ samples: 4, trials: 20, durationSec: 2 })).toBe(
      "4 × 2 s samples per process, 20 processes (rounds) per app (+2 s warm-up each)",
    );
  });

  test("a run cut short states the rounds it measured, of those planned (killed or Ctrl-C)", () => {
    // rounds 1 and 2 hold samples (round 2 of one app only: it still counts)
    const trials = [
      syntheticTrial("bun-bare", "api", 1, 64, 1000, 4),
      syntheticTrial("node-bare", "api", 1, 64, 500, 4),
      syntheticTrial("bun-bare", "api", 2, 64, 1000, 4),
    ];
    const cut = (status: Results["status"]) => ({
      ...syntheticRun(["bun-bare", "node-bare"], ["api"], trials, { trials: 20 }),
      status,
    });
    const rounds = (text: string) => /\d+(?: of \d+ planned)? process(?:es)?/.exec(text)?.[0];
    expect(rounds(designText(cut("interrupted")))).toBe("2 of 20 planned processes");
    expect(rounds(designText(cut("running")))).toBe("2 of 20 planned processes");
    expect(rounds(designText(cut("complete")))).toBe("20 processes");
    expect(rounds(formatSummary(analyze(cut("interrupted"))))).toBe("2 of 20 planned processes");
    // one round measured of several planned: still "processes", since the count is of planned
    const one = { ...cut("interrupted"), trials: trials.slice(0, 2) };
    expect(rounds(designText(one))).toBe("1 of 20 planned processes");
  });

  test("p99Text: the range from two valid samples on, none for one", () => {
    const run = syntheticRun(
      ["bun-bare", "node-bare"],
      ["api"],
      [
        syntheticTrial("bun-bare", "api", 1, 64, 100, 4),
        syntheticTrial("bun-bare", "api", 2, 64, 100, 6),
        syntheticTrial("node-bare", "api", 1, 64, 50, 9),
      ],
    );
    const rows = summarize(run).get("api") ?? [];
    // bun-bare: p99s 4 and 6, median 5; node-bare: one sample.
    expect(rows.map((r) => p99Text(r))).toEqual(["5.00 (4.00–6.00)", "9.00"]);
  });

  test("taxText of a row without a baseline comparison: a tie, untestable", () => {
    const row = summarize(
      syntheticRun(["bun-bare"], ["api"], [syntheticTrial("bun-bare", "api", 1, 64, 100, 4)]),
    ).get("api")?.[0];
    if (!row) throw new Error("no row");
    expect(taxText(row)).toEqual({ ofBare: "—", cost: "≈ tie", p: "— (untestable)" });
  });

  test("precisionText: nothing without a target or an outcome; reached, or not and the widest", () => {
    const r = syntheticRun(["bun-bare"], ["api"], []);
    expect(precisionText(r)).toBeUndefined();
    r.manifest.settings.precision = { target: 0.03, maxTimeSec: 600 };
    expect(precisionText(r)).toBeUndefined();
    // 590 s is 9 min 50 s; 600 s 10 min; 61 s 1 min 1 s.
    r.precision = { reached: true, rounds: 12, elapsedSec: 61 };
    expect(precisionText(r)).toBe(
      "PRECISION ±3.0% reached by every mean and comparison: 12 round(s), 1m01s of 10m00s",
    );
    r.precision = { reached: false, rounds: 4, elapsedSec: 590 };
    expect(precisionText(r)).toBe(
      "PRECISION ±3.0% NOT reached in 4 round(s), 9m50s of 10m00s (the tables' ± column shows each)",
    );
    r.precision = { ...r.precision, widest: { what: "bun-bare (api)", halfWidth: 0.0923 } };
    const text =
      "PRECISION ±3.0% NOT reached in 4 round(s), 9m50s of 10m00s; widest bun-bare (api) ±9.2%";
    expect(precisionText(r)).toBe(`${text} (the tables' ± column shows each)`);
    // The summary prints it under the setup lines.
    expect(formatSummary(analyze(r)).split("\n")[2]).toBe(
      `${text} (the tables' ± column shows each)`,
    );
  });

  test("the noise line: each app's within / between CoV, and the rounds' share", () => {
    // Both apps: process means 100, 105, 95 (× 2 for node-bare), samples ±3 around them.
    // Within: SS = 6 · 9 on 6 − 3 = 3 df, √18 / 100 = 4.2%. Between: MSB = 2 · (25 + 25) / 2 =
    // 50, n0 = 2: √((50 − 18) / 2) = 4 → 4.0%. Rounds: both apps move together by
    // ln(1, 1.05, 0.95), no residual: the sd of those logs, 0.0500 → 5.0%.
    const pairs = [
      [97, 103],
      [102, 108],
      [92, 98],
    ];
    const trials = ["bun-bare", "node-bare"].flatMap((app, a) =>
      pairs.flatMap((values, k) =>
        values.map((rps, s) => ({
          ...syntheticTrial(app, "api", k + 1, 64, rps * (a + 1), 4),
          sample: s + 1,
        })),
      ),
    );
    const text = formatSummary(analyze(syntheticRun(["bun-bare", "node-bare"], ["api"], trials)));
    expect(text).toContain(
      "\n  noise (CoV of one sample within a process / between processes): " +
        "node-bare 4.2% / 4.0%, bun-bare 4.2% / 4.0%; between rounds 5.0%\n",
    );
    // Two rounds only: no rounds' share, the line ends after the apps. Means 100 and 105
    // (grand 102.5): within √(4 · 9 / 2) = √18 → 4.1%; between: MSB = 2 · 2 · 2.5² = 25,
    // √((25 − 18) / 2) = √3.5 = 1.87 → 1.8%.
    const early = trials.filter((t) => t.round < 3);
    const two = formatSummary(analyze(syntheticRun(["bun-bare", "node-bare"], ["api"], early)));
    expect(two).toContain(
      "\n  noise (CoV of one sample within a process / between processes): " +
        "node-bare 4.1% / 1.8%, bun-bare 4.1% / 1.8%\n",
    );
  });
});

describe("the database engine", () => {
  const trials = [1, 2, 3].map((round) => syntheticTrial("bun-bare", "db", round, 64, 1000, 4));
  const run = (database?: Results["manifest"]["database"]): Results => {
    const r = syntheticRun(["bun-bare"], ["db"], trials);
    return database ? { ...r, manifest: { ...r.manifest, database } } : r;
  };
  const secondLine = (r: Results) => formatSummary(analyze(r)).split("\n")[1];

  test("the terminal summary names it on its second line, whichever it was", () => {
    const clients = { bun: "bun:sqlite", node: "node:sqlite" };
    expect(secondLine(run({ engine: "sqlite", clients, settings: {} }))).toBe(
      "database: SQLite, a file per app process (bun:sqlite, node:sqlite)",
    );
    const pg = { engine: "postgresql" as const, version: "17.2", cpus: "0", clients, settings: {} };
    expect(secondLine(run(pg))).toBe(
      "database: PostgreSQL 17.2 on CPU 0, a database per app process (bun:sqlite, node:sqlite)",
    );
    expect(secondLine(run())).toStartWith("Test CPU, 2 cores");
  });
});

describe("databaseText: the engine a run's database scenarios measured", () => {
  const withDatabase = (database: Results["manifest"]["database"]): Results => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      [syntheticTrial("bun-bare", "api", 1, 64, 1, 4)],
    );
    return { ...run, manifest: { ...run.manifest, database } };
  };
  const clients = { "bun-bare": "Bun.sql", "node-bare": "postgres.js", "deno-bare": "postgres.js" };

  test("PostgreSQL: its version and CPU when recorded, said so when not", () => {
    const pg = { engine: "postgresql" as const, clients, settings: {} };
    expect(databaseText(withDatabase({ ...pg, version: "16.4", cpus: "1" }))).toBe(
      "PostgreSQL 16.4 on CPU 1, a database per app process (Bun.sql, postgres.js)",
    );
    expect(databaseText(withDatabase(pg))).toBe(
      "PostgreSQL (version unrecorded), a database per app process (Bun.sql, postgres.js)",
    );
  });

  test("SQLite in the app's process; no database, no line", () => {
    const sqlite = { engine: "sqlite" as const, clients: { a: "bun:sqlite" }, settings: {} };
    expect(databaseText(withDatabase(sqlite))).toBe("SQLite, a file per app process (bun:sqlite)");
    expect(databaseText(withDatabase(undefined))).toBeUndefined();
  });
});
