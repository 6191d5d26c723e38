// --compare on synthetic runs, never on this machine's noise: every pair's trials are chosen so
// the p-value or the spread is known in advance, and each test fails when the rule it names is
// broken (Holm turned into Bonferroni or into no correction, the threshold-only path dropped,
// p99 gating the exit code, a setup difference let through).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ComparisonRow,
  compareRuns,
  DEFAULT_COMPARE,
  holm,
  runMismatches,
} from "../src/analysis/comparison.ts";
import { tCritical, welch } from "../src/analysis/stats.ts";
import { runCli } from "../src/report/cli.ts";
import { formatComparison } from "../src/report/compare.ts";
import { type Manifest, type Results, schemaErrors, type Trial } from "../src/results/schema.ts";
import { cleanChecks, syntheticResult } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const CLI = join(import.meta.dir, "..", "src", "report", "cli.ts");

interface PairSpec {
  readonly app: string;
  readonly scenario?: string;
  /** One trial per value. */
  readonly rps: readonly number[];
  readonly p99?: readonly number[];
  /** false: every trial of the pair failed its checks. */
  readonly valid?: boolean;
}

function trial(app: string, scenario: string, round: number, rps: number, p99: number): Trial {
  return {
    app,
    scenario,
    round,
    startedAt: "2025-01-01T00:00:00.000Z",
    command: ["wrk", "-c", "400", "http://127.0.0.1:3000/"],
    result: syntheticResult(rps, 30, {
      mean: p99 / 4,
      p50: p99 / 5,
      p90: p99 / 2,
      p99,
      p999: p99 * 1.5,
      max: p99 * 2,
    }),
    connections: 400,
    requestedSec: 30,
    cpuWindowSec: 30,
    server: { pid: 4242, cpuPercent: 99, peakRssMiB: 60 },
    loadGenerator: { cpuPercent: 80, capacityCores: 1, threads: 2 },
    stealPercent: 0,
    checks: cleanChecks(390, 400),
  };
}

/** A complete schema-2 run whose apps and scenarios are the pairs given, in order. */
function run(pairs: readonly PairSpec[], patch: (m: Manifest) => void = () => {}): Results {
  const apps = [...new Set(pairs.map((p) => p.app))];
  const scenarios = [...new Set(pairs.map((p) => p.scenario ?? "api"))];
  const manifest: Manifest = {
    tool: { name: "wrk", version: "4.1.0", path: "/usr/bin/wrk" },
    settings: {
      apps,
      scenarios,
      durationSec: 30,
      warmupSec: 10,
      connections: 400,
      trials: 3,
      keepAlive: true,
      errorThreshold: 0.001,
      argv: [],
    },
    pinning: { enabled: true, serverCpus: "1", loadCpus: "0" },
    machine: {
      cpuModel: "AMD EPYC 7763",
      cores: 2,
      memoryGiB: 8,
      os: "Ubuntu 24.04",
      kernel: "6.8.0",
    },
    versions: { lockfile: { hono: "4.7.0" }, harnessBun: "1.2.0" },
    git: { commit: "0".repeat(40), dirty: false },
  };
  patch(manifest);
  const trials = pairs.flatMap((p) =>
    p.rps.map((rps, i) => {
      const t = trial(p.app, p.scenario ?? "api", i + 1, rps, p.p99?.[i] ?? 10);
      if (p.valid === false) return { ...t, checks: { ...t.checks, valid: false } };
      return t;
    }),
  );
  return {
    schemaVersion: 2,
    status: "complete",
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T01:00:00.000Z",
    manifest,
    apps: apps.map((name, i) => ({
      name,
      runtime: "bun",
      framework: "bare",
      port: 3000 + i,
      status: "ok" as const,
    })),
    trials,
  };
}

const BASE3 = [960, 1000, 1040];

/**
 * New-run trials for BASE3 whose one-sided Welch p (new slower) is exactly `p`: both sides have
 * standard deviation 40 and three trials, so t = Δ / (40·√(2/3)) with 4 degrees of freedom.
 */
function slowerWithP(p: number): number[] {
  const delta = tCritical(2 * p, 4) * 40 * Math.sqrt(2 / 3);
  return BASE3.map((v) => v - delta);
}

/** The mirror of slowerWithP: new-run trials whose one-sided p (new faster) is exactly `p`. */
function fasterWithP(p: number): number[] {
  const delta = tCritical(2 * p, 4) * 40 * Math.sqrt(2 / 3);
  return BASE3.map((v) => v + delta);
}

/** Compares base and new runs built from [app, base trials, new trials] rows. */
function compare(rows: [string, number[], number[]][], threshold = 0.05): ComparisonRow[] {
  const base = run(rows.map(([app, rps]) => ({ app, rps })));
  const next = run(rows.map(([app, , rps]) => ({ app, rps })));
  return compareRuns(base, next, { threshold, alpha: 0.05 });
}

const byApp = (rows: readonly ComparisonRow[], app: string): ComparisonRow => {
  const row = rows.find((r) => r.app === app);
  if (!row) throw new Error(`no row for ${app}`);
  return row;
};

/** The compare command on two files, in this process (the process itself: one test below). */
function cli(base: Results, next: Results, ...flags: string[]) {
  const dir = temp("compare-test-");
  const [a, b] = [join(dir, "a.json"), join(dir, "b.json")];
  writeFileSync(a, JSON.stringify(base));
  writeFileSync(b, JSON.stringify(next));
  const out: string[] = [];
  const err: string[] = [];
  const code = runCli(["compare", a, b, ...flags], {
    out: (l) => out.push(`${l}\n`),
    err: (l) => err.push(`${l}\n`),
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

test("the synthetic runs are valid results.json files", () => {
  expect(schemaErrors(run([{ app: "bun-bare", rps: BASE3 }]))).toEqual([]);
  // The helper's p-values are what the comparison sees.
  expect(byApp(compare([["x", BASE3, slowerWithP(0.04)]]), "x").p).toBeCloseTo(0.04, 9);
});

describe("multiple comparisons: Holm's step-down", () => {
  test("holm() holds the k-th smallest p to alpha / (m − k) and stops at the first failure", () => {
    expect(holm([0.001, 0.04], 0.05)).toEqual([true, true]); // Bonferroni (0.025) rejects only one
    expect(holm([0.03, 0.04], 0.05)).toEqual([false, false]); // unadjusted rejects both
    expect(holm([0.04, 0.001, 0.011, 0.3], 0.05)).toEqual([false, true, true, false]);
    expect(holm([], 0.05)).toEqual([]);
  });

  test("a p that passes Holm but not Bonferroni is a regression", () => {
    const rows = compare([
      ["clear", BASE3, slowerWithP(0.001)],
      ["holm-only", BASE3, slowerWithP(0.04)], // 0.025 < p < 0.05: Holm's second step only
    ]);
    expect(byApp(rows, "clear").verdict).toBe("regression");
    expect(byApp(rows, "holm-only").rpsChange).toBeLessThan(-0.05);
    expect(byApp(rows, "holm-only").verdict).toBe("regression");
  });

  test("p-values that pass unadjusted but not Holm are no regression", () => {
    const rows = compare([
      ["a", BASE3, slowerWithP(0.03)], // both below 0.05, neither below 0.05 / 2
      ["b", BASE3, slowerWithP(0.04)],
    ]);
    for (const row of rows) {
      expect(row.rpsChange).toBeLessThan(-0.05);
      expect(row.verdict).toBe("inconclusive");
    }
  });

  test("a pair that moved the other way does not lower Holm's bar for the rest", () => {
    // Beside one other pair, a one-sided p of 0.04 must pass 0.05 / 2 first: it does not. A
    // clear rise, or a small one (two-sided p 0.89), is no step passed in the "slower" family...
    for (const other of [
      [1300, 1350, 1400],
      [965, 1005, 1045],
    ]) {
      const rows = compare([
        ["other", BASE3, other],
        ["slow", BASE3, slowerWithP(0.04)],
      ]);
      expect(byApp(rows, "slow").verdict).toBe("inconclusive");
    }
    // ...nor is a clear drop one in the "faster" family.
    const rows = compare([
      ["other", BASE3, [660, 700, 740]],
      ["fast", BASE3, fasterWithP(0.04)],
    ]);
    expect(byApp(rows, "other").verdict).toBe("regression");
    expect(byApp(rows, "fast").rpsChange).toBeGreaterThan(0.05);
    expect(byApp(rows, "fast").verdict).toBe("inconclusive");
  });

  test("a 30% drop at 5% CoV, 3 trials a side, among 36 pairs is detected", () => {
    const apps = ["bun-hono", "bun-elysia", "node-hono", "node-elysia", "bun-bare", "node-bare"];
    const scenarios = ["api", "json", "text", "params", "body", "headers"];
    const pairs = (dropped: boolean) =>
      scenarios.flatMap((scenario) =>
        apps.map((app) => {
          const drop = dropped && app === "node-hono" && scenario === "json";
          return { app, scenario, rps: drop ? [665, 700, 735] : [950, 1000, 1050] };
        }),
      );
    const rows = compareRuns(run(pairs(false)), run(pairs(true)), DEFAULT_COMPARE);
    expect(rows).toHaveLength(36);
    // The case: two-sided Welch at Bonferroni's 0.05 / 36 misses it.
    const twoSided = welch([950, 1000, 1050], [665, 700, 735]);
    expect(twoSided?.p).toBeGreaterThan(0.05 / 36);
    const flagged = rows.filter((r) => r.verdict === "regression");
    expect(flagged.map((r) => `${r.scenario}/${r.app}`)).toEqual(["json/node-hono"]);
  });
});

describe("verdicts", () => {
  test("fewer than two trials a side: the threshold alone decides", () => {
    const rows = compare([
      ["one-each", [1000], [900]],
      ["one-new", [990, 1000, 1010], [900]],
      ["small", [1000], [980]],
    ]);
    for (const app of ["one-each", "one-new"]) {
      expect(byApp(rows, app).verdict).toBe("regression");
      expect(byApp(rows, app).note).toContain("threshold only");
      expect(byApp(rows, app).detectable).toBeUndefined();
    }
    // Within the threshold but no spread to judge it by: not "no change".
    expect(byApp(rows, "small").verdict).toBe("inconclusive");
    const up = byApp(compare([["up", [1000], [1100]]]), "up");
    expect([up.verdict, up.note]).toEqual([
      "improvement",
      "threshold only (fewer than 2 processes a side, no spread to test against)",
    ]);
    const out = formatComparison(rows, DEFAULT_COMPARE);
    expect(out.split("\n").find((l) => l.includes("one-each"))).toContain("threshold only");
    expect(out).toContain("2 regression(s)");
  });

  test("a significant rise beyond the threshold is an improvement, not a regression", () => {
    const rows = compare([["faster", BASE3, [1300, 1350, 1400]]]);
    expect(rows[0]?.verdict).toBe("improvement");
    expect(formatComparison(rows, DEFAULT_COMPARE)).toContain("no regression detected");
  });

  test("no valid trials on one side: not comparable, and not counted among the pairs tested", () => {
    const base = run([
      { app: "broken", rps: BASE3, valid: false },
      { app: "fine", rps: BASE3 },
    ]);
    const next = run([
      { app: "broken", rps: BASE3 },
      { app: "fine", rps: slowerWithP(0.04) }, // a regression at m = 1, not at m = 2
    ]);
    const rows = compareRuns(base, next, DEFAULT_COMPARE);
    expect(byApp(rows, "broken").verdict).toBe("not comparable");
    expect(byApp(rows, "broken").note).toBe("no valid samples in the base run");
    expect(byApp(rows, "fine").verdict).toBe("regression");
    expect(formatComparison(rows, DEFAULT_COMPARE)).toContain("over the 1 pair(s) tested");
    const gone = compareRuns(
      run([{ app: "gone", rps: BASE3 }]),
      run([{ app: "gone", rps: BASE3, valid: false }]),
    )[0];
    // Measured before, not now: that fails the comparison.
    expect([gone?.verdict, gone?.note]).toEqual([
      "not measured",
      "no valid samples in the new run",
    ]);
  });

  test("a significant change within the threshold is no change beyond it, either way", () => {
    // ±2% at ±1% spread: one-sided p = 0.035, but only 2% moved
    for (const next of [
      [970, 980, 990],
      [1010, 1020, 1030],
    ]) {
      const row = byApp(compare([["a", [990, 1000, 1010], next]]), "a");
      expect(row.p).toBeCloseTo(0.0352, 4);
      expect(row.verdict).toBe("no change beyond the threshold");
    }
  });

  test("a rise beyond the threshold that is not significant is no improvement", () => {
    const row = byApp(compare([["a", [800, 1000, 1200], [880, 1100, 1320]]]), "a");
    expect(row.rpsChange).toBeCloseTo(0.1, 10);
    expect(row.verdict).toBe("inconclusive");
    // Not significant: the note claims no direction.
    expect(row.note).toMatch(/^not shown within ±5\.0% \(detectable ≥ \d+\.\d%\)$/);
  });

  test("no change beyond the threshold only where a change that large was detectable", () => {
    const rows = compare([
      ["steady", [990, 1000, 1010], [985, 995, 1005]], // spread ±1%: a 5% change would show
      ["noisy", [800, 1000, 1200], [790, 990, 1190]], // spread ±20%: it would not
    ]);
    expect(byApp(rows, "steady").verdict).toBe("no change beyond the threshold");
    const noisy = byApp(rows, "noisy");
    expect(noisy.verdict).toBe("inconclusive");
    expect(noisy.detectable).toBeGreaterThan(0.05);
    const out = formatComparison(rows, DEFAULT_COMPARE);
    const line = out.split("\n").find((l) => l.includes("noisy")) ?? "";
    // The noncentrality at which a one-sided test at 0.05 / 2 (4 df) has 80% power (3.7611,
    // scipy.stats.nct), × √(2 × 200² / 3) / 1,000 = 163.30 / 1,000
    expect(line).toContain("inconclusive: not shown within ±5.0% (detectable ≥ 61.4%)");
    expect(out).toContain("no regression detected; 1 pair(s) inconclusive");
  });

  test("the detectable change: the noncentrality of 80% power (one-sided, alpha / m) × the se", () => {
    // se = √(100/3 + 100/3) = 8.165, 4 df. scipy.stats.nct, solved for 80% power: 3.0397 at
    // one-sided 0.05, 3.7611 at 0.025. The t table's shortcut (2.1318 + 0.9410, 2.7764 +
    // 0.9410) is short of both.
    const se = Math.sqrt(200 / 3);
    const one = compare([["a", [990, 1000, 1010], [960, 970, 980]]]);
    expect(one[0]?.detectable).toBeCloseTo(0.0248194627, 8);
    expect(one[0]?.detectable).toBeGreaterThan(((2.1318 + 0.941) * se) / 1000 - 0.001);
    const two = compare([
      ["a", [990, 1000, 1010], [960, 970, 980]],
      ["b", [990, 1000, 1010], [990, 1000, 1010]],
    ]);
    expect(byApp(two, "a").detectable).toBeCloseTo(0.0307089284, 8);
    expect(formatComparison(two, DEFAULT_COMPARE)).toContain("≥ 3.1%");
  });

  test("a 4.8% drop with a ±3% detectable difference is not 'no change': it is inconclusive", () => {
    // Ten processes a side with sd 26 (2.6%): detectable ≈ 3.0% at the 5% threshold. The
    // old rule (detectable ≤ threshold ⇒ no change) would have called this no change.
    const spread = [-36, -31, -24, -16, -6, 6, 16, 24, 31, 36];
    const base = spread.map((d) => 1000 + d);
    const row = byApp(compare([["a", base, base.map((v) => v * 0.952)]]), "a");
    expect(row.detectable).toBeGreaterThan(0.028);
    expect(row.detectable).toBeLessThan(0.031);
    expect(row.rpsChange).toBeCloseTo(-0.048, 10);
    expect(row.verdict).toBe("inconclusive");
    expect(row.note).toBe("slower, significantly, but not shown within ±5.0% (detectable ≥ 3.0%)");
    expect(row.equivalenceP).toBeGreaterThan(0.05);
  });

  test("an equivalence within the threshold needs both one-sided tests (TOST)", () => {
    // Centred and tight: shown within ±5%. Shifted to −4% with the same spread: the lower
    // one-sided test fails (−4% is within 1 standard error of −5%).
    const base = [970, 985, 1000, 1015, 1030];
    const same = byApp(compare([["a", base, base]]), "a");
    expect(same.verdict).toBe("no change beyond the threshold");
    const near = byApp(compare([["a", base, base.map((v) => v * 0.96)]]), "a");
    expect(near.verdict).toBe("inconclusive");
  });
});

describe("the new run must have measured every app", () => {
  const two = [
    { app: "bun-bare", rps: BASE3 },
    { app: "bun-hono", rps: BASE3 },
  ];

  test("an app that failed in the new run: FAILED, exit 1, whatever its numbers", () => {
    const next = run(two);
    next.apps = next.apps.map((a) =>
      a.name === "bun-hono" ? { ...a, status: "failed" as const, failure: "exited (1)\nstack" } : a,
    );
    const rows = compareRuns(run(two), next);
    expect([byApp(rows, "bun-hono").verdict, byApp(rows, "bun-hono").note]).toEqual([
      "failed",
      "exited (1)",
    ]);
    const r = cli(run(two), next);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAILED: exited (1)");
    expect(r.stdout).toContain("1 app(s) failed, not measured or missing in the new run");
  });

  test("an app the new run does not have: MISSING, exit 1", () => {
    const rows = compareRuns(run(two), run([two[0] as PairSpec]));
    expect(byApp(rows, "bun-hono").verdict).toBe("missing");
    expect(byApp(rows, "bun-hono").note).toBe("in the base run, not in the new one");
    expect(cli(run(two), run([two[0] as PairSpec])).code).toBe(1);
  });

  test("a new app the base run did not have is no failure", () => {
    const rows = compareRuns(run([two[0] as PairSpec]), run(two));
    expect(byApp(rows, "bun-hono").verdict).toBe("not comparable");
    expect(cli(run([two[0] as PairSpec]), run(two)).code).toBe(0);
  });
});

describe("edges of the verdicts", () => {
  test("a change of exactly the threshold counts, with or without a test", () => {
    // 75 / 100 − 1 and 125 / 100 − 1 are ±0.25 exactly in binary floating point; so are the
    // changes of the means 75 and 125 against 100 (sums 225, 375 and 300 of whole numbers).
    const rows = compare(
      [
        ["down-1", [100], [75]],
        ["up-1", [100], [125]],
        ["down-3", [99, 100, 101], [74, 75, 76]],
        ["up-3", [99, 100, 101], [124, 125, 126]],
      ],
      0.25,
    );
    expect(rows.map((r) => [r.app, r.rpsChange, r.verdict])).toEqual([
      ["down-1", -0.25, "regression"],
      ["up-1", 0.25, "improvement"],
      ["down-3", -0.25, "regression"],
      ["up-3", 0.25, "improvement"],
    ]);
  });

  test("a significant rise short of the threshold says it was faster, significantly", () => {
    // The mirror of the 4.8% drop below: +4.8%, ten processes a side, sd 2.6%.
    const spread = [-36, -31, -24, -16, -6, 6, 16, 24, 31, 36];
    const base = spread.map((d) => 1000 + d);
    const row = byApp(compare([["a", base, base.map((v) => v * 1.048)]]), "a");
    expect(row.verdict).toBe("inconclusive");
    expect(row.note).toMatch(
      /^faster, significantly, but not shown within ±5\.0% \(detectable ≥ 3\.\d%\)$/,
    );
  });

  test("the last line counts every app failed, not measured or missing", () => {
    const base = run(["a", "b", "c"].map((app) => ({ app, rps: BASE3 })));
    const next = run([
      { app: "a", rps: BASE3 },
      { app: "b", rps: BASE3, valid: false },
    ]);
    next.apps = next.apps.map((a) => (a.name === "a" ? { ...a, status: "failed" as const } : a));
    const rows = compareRuns(base, next);
    expect(rows.map((r) => r.verdict)).toEqual(["failed", "not measured", "missing"]);
    const last = formatComparison(rows, DEFAULT_COMPARE).split("\n").at(-1);
    expect(last).toBe(
      "no regression detected; 3 app(s) failed, not measured or missing in the new run",
    );
  });
});

describe("p99", () => {
  const steady = { app: "bun-bare", rps: BASE3 };

  test("shown as the median of the trials' p99, base → new", () => {
    const rows = compareRuns(
      run([{ ...steady, p99: [10, 10, 100] }]), // the mean would be 40
      run([{ ...steady, p99: [20, 20, 20] }]),
    );
    expect(rows[0]?.baseP99).toBe(10);
    expect(formatComparison(rows, DEFAULT_COMPARE)).toMatch(/10\.00 → 20\.00\s+\+100\.0%/);
  });

  test("p99 doubling at equal req/s is no regression: exit 0", () => {
    const base = run([{ ...steady, p99: [10, 10, 10] }]);
    const next = run([{ ...steady, p99: [20, 20, 20] }]);
    expect(compareRuns(base, next)[0]?.verdict).not.toBe("regression");
    const r = cli(base, next);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("+100.0%");
    expect(r.stdout).toContain("never gated");
  });
});

describe("side-by-side runs", () => {
  test("are not compared across runs: one line, exit 2", () => {
    const base = run([{ app: "bun-bare", rps: BASE3 }]);
    const side = {
      ...base,
      manifest: {
        ...base.manifest,
        settings: {
          ...base.manifest.settings,
          sideBySide: {
            pairs: [["bun-bare", "bun-bare#2"]],
            addresses: ["127.0.0.1", "127.0.0.2"],
          },
        },
      },
    } as Results;
    for (const [a, b] of [
      [base, side],
      [side, base],
    ] as const) {
      const r = cli(a, b);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "report: compare takes runs measured one app at a time; a side-by-side run compares within itself (--side-by-side, or --against GIT_REF for two commits)\n",
      );
    }
    // Nor does one take the README's results section.
    const dir = temp("readme-side-");
    writeFileSync(join(dir, "results.json"), JSON.stringify(side));
    writeFileSync(join(dir, "README.md"), "untouched\n");
    const err: string[] = [];
    const code = runCli(["readme", join(dir, "results.json"), "--readme", join(dir, "README.md")], {
      out: () => {},
      err: (l) => err.push(l),
    });
    expect(code).toBe(2);
    expect(err).toEqual([
      "report: readme's results section shows a run measured one app at a time, not a side-by-side run",
    ]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("untouched\n");
  });
});

describe("runs that were not measured alike", () => {
  const steady = [{ app: "bun-bare", rps: BASE3 }];
  const differs: [string, (m: Manifest) => void, string][] = [
    [
      "tool name",
      (m) => Object.assign(m, { tool: { ...m.tool, name: "oha", version: "1.15.0" } }),
      "tool: wrk 4.1.0 vs oha 1.15.0",
    ],
    [
      "tool version",
      (m) => Object.assign(m, { tool: { ...m.tool, version: "4.2.0" } }),
      "tool: wrk 4.1.0 vs wrk 4.2.0",
    ],
    [
      "connections",
      (m) => Object.assign(m.settings, { connections: 200 }),
      "connections: 400 vs 200",
    ],
    ["duration", (m) => Object.assign(m.settings, { durationSec: 10 }), "duration: 30 s vs 10 s"],
    ["warm-up", (m) => Object.assign(m.settings, { warmupSec: 0 }), "warm-up: 10 s vs 0 s"],
    ["keep-alive", (m) => Object.assign(m.settings, { keepAlive: false }), "keep-alive: on vs off"],
    [
      "pinning off",
      (m) => Object.assign(m, { pinning: { enabled: false, note: "1 core" } }),
      "pinning: server CPUs 1, load CPUs 0 vs off",
    ],
    [
      "server CPUs",
      (m) => Object.assign(m.pinning, { serverCpus: "2" }),
      "pinning: server CPUs 1, load CPUs 0 vs server CPUs 2, load CPUs 0",
    ],
    [
      "load CPUs",
      (m) => Object.assign(m.pinning, { loadCpus: "3" }),
      "pinning: server CPUs 1, load CPUs 0 vs server CPUs 1, load CPUs 3",
    ],
    [
      "pinned CPUs unknown",
      (m) => Object.assign(m, { pinning: { enabled: true } }),
      "pinning: server CPUs 1, load CPUs 0 vs server CPUs ?, load CPUs ?",
    ],
    [
      "server processes",
      (m) => Object.assign(m.settings, { workers: 2 }),
      "server processes: 1 process per app vs 2 worker(s) per app",
    ],
    [
      "CPU model",
      (m) => Object.assign(m.machine, { cpuModel: "Intel Xeon 8375C" }),
      "machine: AMD EPYC 7763, 2 cores vs Intel Xeon 8375C, 2 cores",
    ],
    [
      "samples per process",
      (m) => Object.assign(m.settings, { samples: 3 }),
      "samples per process: 1 vs 3",
    ],
    [
      "cores",
      (m) => Object.assign(m.machine, { cores: 4 }),
      "machine: AMD EPYC 7763, 2 cores vs AMD EPYC 7763, 4 cores",
    ],
    [
      "server host",
      (m) =>
        Object.assign(m, { serverHost: { machine: { ...m.machine, cpuModel: "Xeon", cores: 8 } } }),
      "server host: the load generator's vs Xeon, 8 cores",
    ],
  ];

  for (const [field, patch, named] of differs) {
    test(`${field} differs: named`, () => {
      expect(runMismatches(run(steady), run(steady, patch))).toEqual([named]);
    });
  }

  test("schema version differs: named", () => {
    const old = { ...run(steady), schemaVersion: 1 } as unknown as Results;
    expect(runMismatches(old, run(steady))).toEqual(["schema version: 1 vs 2"]);
  });

  test("what does not change the numbers' meaning is no mismatch", () => {
    const other = run([...steady, { app: "node-bare", rps: BASE3 }], (m) => {
      Object.assign(m.settings, { trials: 5, argv: ["-n", "5"], errorThreshold: 0.01 });
      Object.assign(m.tool, { path: "/opt/wrk" });
      Object.assign(m.machine, { memoryGiB: 16, kernel: "6.9.0" });
      Object.assign(m.pinning, { note: "pinned" });
      Object.assign(m.git, { commit: "1".repeat(40) });
    });
    expect(runMismatches(run(steady), other)).toEqual([]);
  });

  test("the CLI refuses them with exit 2, naming every difference", () => {
    const r = cli(
      run(steady),
      run(steady, (m) => {
        Object.assign(m.settings, { connections: 200 });
        Object.assign(m.tool, { name: "oha", version: "1.15.0" });
      }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("tool: wrk 4.1.0 vs oha 1.15.0");
    expect(r.stderr).toContain("connections: 400 vs 200");
    expect(r.stderr).toContain("--allow-mismatch");
    expect(r.stdout).toBe("");
  });

  test("the CLI refuses a SQLite run against a PostgreSQL run with exit 2", () => {
    const engine = (name: "sqlite" | "postgresql") => (m: Manifest) =>
      Object.assign(m, { database: { engine: name, clients: {}, settings: {} } });
    const r = cli(run(steady, engine("sqlite")), run(steady, engine("postgresql")));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("\n  database engine: sqlite vs postgresql\n");
    expect(r.stdout).toBe("");
  });

  test("--allow-mismatch compares anyway and says so on the first line", () => {
    const next = run([{ app: "bun-bare", rps: [660, 700, 740] }], (m) =>
      Object.assign(m.settings, { connections: 200 }),
    );
    const r = cli(run(steady), next, "--allow-mismatch");
    expect(r.stdout.split("\n")[0]).toBe("COMPARED DESPITE MISMATCH: connections: 400 vs 200");
    expect(r.code).toBe(1);
  });
});

describe("the CLI's exit status", () => {
  const base = run([{ app: "bun-bare", rps: BASE3 }]);

  test("1 for a regression, 0 for none, 2 for a file that is not there", () => {
    const slower = cli(base, run([{ app: "bun-bare", rps: [660, 700, 740] }]));
    expect(slower.code).toBe(1);
    expect(slower.stdout).toContain("REGRESSION");
    expect(slower.stdout).toContain("Holm");
    expect(cli(base, run([{ app: "bun-bare", rps: [1300, 1350, 1400] }])).code).toBe(0);
    const missing = spawnSync(process.execPath, [CLI, "compare", "/nonexistent/a.json", CLI], {
      encoding: "utf8",
    });
    expect(missing.status).toBe(2);
  });
});

describe("the printed comparison", () => {
  /** The table's cells, cut where the dashes under the header start. */
  function cells(out: string): string[][] {
    const lines = out.split("\n");
    const dashes = lines.findIndex((l) => /^-+( +-+)+$/.test(l));
    expect(dashes).toBeGreaterThan(0);
    const starts = [...(lines[dashes] ?? "").matchAll(/-+/g)].map((m) => m.index);
    const end = lines.indexOf("", dashes);
    return [lines[dashes - 1] ?? "", ...lines.slice(dashes + 1, end)].map((l) =>
      starts.map((s, i) => l.slice(s, starts[i + 1]).trimEnd()),
    );
  }

  /** Two pairs tested, one on the threshold alone, one not comparable (when `gone`). */
  const rows = (options = DEFAULT_COMPARE, gone = true) => {
    const base = run([
      { app: "steady", rps: [990, 1000, 1010] },
      { app: "noisy", rps: [800, 1000, 1200] },
      { app: "one-each", rps: [1000] },
      ...(gone ? [{ app: "gone", rps: BASE3 }] : []),
    ]);
    const next = run([
      { app: "steady", rps: [985, 995, 1005] },
      { app: "noisy", rps: [790, 990, 1190] },
      { app: "one-each", rps: [900] },
      ...(gone ? [{ app: "gone", rps: BASE3, valid: false }] : []),
    ]);
    return compareRuns(base, next, options);
  };

  test("one line per pair, its columns under the header's, no trailing spaces", () => {
    const out = formatComparison(rows(), DEFAULT_COMPARE);
    expect(cells(out)).toEqual([
      [
        "scenario",
        "app",
        "base req/s",
        "new req/s",
        "change",
        "p (1-sided)",
        "detectable",
        "p99 base→new ms",
        "p99 change",
        "verdict",
      ],
      // p: half of Welch's two-sided p; detectable: the noncentrality of 80% power at one-sided
      // alpha / 2, 4 df (3.7611) × se / mean (t = −0.612, p = 0.573; se = 8.165 and 163.3)
      [
        "api",
        "steady",
        "1,000",
        "995",
        "−0.5%",
        "0.29",
        "≥ 3.1%",
        "10.00 → 10.00",
        "+0.0%",
        "no change beyond the threshold",
      ],
      [
        "api",
        "noisy",
        "1,000",
        "990",
        "−1.0%",
        "0.48",
        "≥ 61.4%",
        "10.00 → 10.00",
        "+0.0%",
        "inconclusive: not shown within ±5.0% (detectable ≥ 61.4%)",
      ],
      [
        "api",
        "one-each",
        "1,000",
        "900",
        "−10.0%",
        "—",
        "threshold only",
        "10.00 → 10.00",
        "+0.0%",
        "REGRESSION: threshold only (fewer than 2 processes a side, no spread to test against)",
      ],
      [
        "api",
        "gone",
        "1,000",
        "—",
        "—",
        "—",
        "—",
        "10.00 → —",
        "—",
        "NOT MEASURED: no valid samples in the new run",
      ],
    ]);
    for (const line of out.split("\n")) expect(line).toBe(line.trimEnd());
  });

  test("the legend states the rule with the options given, the last line the outcome", () => {
    const options = { threshold: 0.09, alpha: 0.01 };
    const lines = formatComparison(rows(options, false), options).split("\n");
    expect(lines.slice(0, 10)).toEqual([
      "Regression: req/s down by more than 9.0%, and significantly so by a one-sided",
      "Welch's t-test on the runs' process means, with Holm's step-down over the 2 pair(s) tested",
      "(family-wise error 0.01); fewer than 2 processes a side: threshold only. No change",
      "beyond the threshold: shown by an equivalence test (two one-sided tests against ±9.0%,",
      "Holm over the pairs); otherwise inconclusive. Detectable: the smallest change the pair would",
      "detect with 80% power at Holm's strictest level 0.01/2 (conservative).",
      "An app that failed, was not measured or is missing in the new run fails the comparison;",
      "an inconclusive pair does not: read its detectable change.",
      "p99: median of the samples' p99, never gated.",
      "",
    ]);
    expect(lines.slice(-2)).toEqual([
      "",
      "1 regression(s); 1 pair(s) inconclusive: a change beyond 9.0% there could have gone unseen",
    ]);
    const clean = compare([["steady", [990, 1000, 1010], [985, 995, 1005]]]);
    expect(formatComparison(clean, DEFAULT_COMPARE).split("\n").at(-1)).toBe(
      "no regression detected",
    );
  });

  test("setup differences compared anyway head the output, one line, then a blank one", () => {
    const out = formatComparison(rows(), DEFAULT_COMPARE, ["tool: a vs b", "duration: 1 s vs 2 s"]);
    expect(out.split("\n").slice(0, 3)).toEqual([
      "COMPARED DESPITE MISMATCH: tool: a vs b; duration: 1 s vs 2 s",
      "",
      "Regression: req/s down by more than 5.0%, and significantly so by a one-sided",
    ]);
  });
});
