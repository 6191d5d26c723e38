// From results.json to the table a person reads: per scenario, apps sorted by mean req/s, with
// the spread and 95% confidence interval, ranks that call untestable or insignificant
// differences ties (≈), the comparison to the fastest and to the runtime's bare baseline, and
// every flag. Noise here is high-frequency (one process swings 32k → 41k req/s back to back),
// so an ordering of means alone claims more than the trials hold.

import { baselineOf, findApp } from "@bench/contract";
import { connectionsText, type Group, groupsOf, inGroup, workersText } from "./groups.ts";
import { fmt, pct, pValue } from "./report/format.ts";
import { registryName, versionedName, versionOfName } from "./runtimes.ts";
import type { Results, Trial } from "./schema.ts";
import {
  confidenceInterval,
  type Interval,
  median,
  type Spread,
  spread,
  type Verdict,
  verdict,
  welch,
} from "./stats.ts";

/** Significance level of every comparison; each pair is tested on its own (no correction). */
export const ALPHA = 0.05;

export interface Difference {
  /** Welch's two-sided p; undefined when a side has fewer than two valid trials. */
  readonly p?: number;
  /** p < ALPHA. An untestable difference is never significant: it counts as a tie. */
  readonly significant: boolean;
}

/** Whether two samples of req/s differ by more than noise explains (Welch's t-test). */
export function difference(a: readonly number[], b: readonly number[]): Difference {
  const w = welch(a, b);
  return w === undefined ? { significant: false } : { p: w.p, significant: w.p < ALPHA };
}

/** A qualifier of a row: `tag` fits in a table cell, `text` explains it. */
export interface Flag {
  readonly tag: string;
  readonly text: string;
}

export interface Rank {
  /** Competition ranking: tied apps share the position of the app that opened their group. */
  readonly position: number;
  /** Not significantly slower than the group's first app (or not testable): shown "≈n". */
  readonly tie: boolean;
}

type Percentiles<T> = { readonly p50: T; readonly p90: T; readonly p99: T; readonly p999: T };
const PERCENTILES = ["p50", "p90", "p99", "p999"] as const;

export interface SummaryRow {
  readonly app: string;
  readonly scenario: string;
  /** failed: never measured (or stopped being measured); see `failure`. */
  readonly status: "ok" | "failed";
  readonly failure?: string;
  readonly validTrials: number;
  /** Valid trials in which the load generator, not the server, was the limit. */
  readonly boundTrials: number;
  /** Valid trials in which neither was saturated: something else limited the run. */
  readonly unsaturatedTrials: number;
  /** Valid trials whose in-flight requests were far below the connections (Little's law). */
  readonly idleTrials: number;
  readonly trials: number;
  /** The valid trials' req/s, in trial order: what every significance test is run on. */
  readonly rpsValues: readonly number[];
  readonly rps: Spread;
  /** 95% confidence interval of the mean req/s; undefined with fewer than two valid trials. */
  readonly ci?: Interval;
  readonly verdict?: Verdict;
  /**
   * Medians over the valid trials of each trial's percentile: a percentile of one bad trial
   * must not dominate (a mean of p99s 17.99, 437.65 and 9.93 ms read 155 ms).
   */
  readonly latencyMs: Percentiles<number>;
  /** Lowest and highest of each percentile over the valid trials (NaN when none). */
  readonly latencyRangeMs: Percentiles<Interval>;
  readonly peakRssMiB: number;
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  readonly rank?: Rank;
  /** mean req/s as a percentage of the fastest app in this scenario */
  readonly pctOfFastest?: number;
  /** Against the fastest app; undefined for the fastest itself. */
  readonly vsFastest?: Difference;
  /** mean req/s as a percentage of the same runtime's bare app (framework apps only) */
  readonly pctOfBaseline?: number;
  readonly vsBaseline?: Difference;
  /** Everything that qualifies these numbers: failed, invalid trials, load-generator bound, ... */
  readonly flags: readonly Flag[];
  /** The distinct explanations the valid trials carry (checks.notes), in first-seen order. */
  readonly notes: readonly string[];
}

type ValidTrial = Trial & { result: NonNullable<Trial["result"]> };

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

const range = (values: readonly number[]): Interval =>
  values.length === 0
    ? { low: Number.NaN, high: Number.NaN }
    : { low: Math.min(...values), high: Math.max(...values) };

/** The flags of one row, counted over its valid trials like LOAD-GENERATOR BOUND k/n. */
interface FlagCounts {
  readonly boundTrials: number;
  readonly unsaturatedTrials: number;
  readonly idleTrials: number;
}

function flagsFor(
  trials: readonly Trial[],
  valid: readonly ValidTrial[],
  counts: FlagCounts,
  failure?: string,
): Flag[] {
  const flags: Flag[] = [];
  // The first line says what happened; results.json keeps the app's whole output.
  if (failure !== undefined)
    flags.push({ tag: "FAILED", text: `FAILED: ${failure.split("\n")[0]}` });
  const invalid = trials.length - valid.length;
  if (invalid > 0) {
    const reasons = [...new Set(trials.flatMap((t) => t.checks.invalidReasons))];
    const tag = `INVALID ${invalid}/${trials.length}`;
    flags.push({ tag, text: `${tag} (${reasons.join("; ")}): excluded` });
  }
  const counted = (tag: string, count: number, why: string) => {
    if (count > 0)
      flags.push({
        tag: `${tag} ${count}/${valid.length}`,
        text: `${tag} ${count}/${valid.length}: ${why}`,
      });
  };
  counted(
    "LOAD-GENERATOR BOUND",
    counts.boundTrials,
    "a lower bound (the load generator was saturated, the server was not)",
  );
  counted(
    "UNSATURATED",
    counts.unsaturatedTrials,
    "neither the server nor the load generator was saturated (not the server's best)",
  );
  // On a valid trial, a failed Little's law check can only mean in-flight far below the
  // connections: above the upper bound the trial would be invalid.
  counted(
    "IDLE CONNECTIONS",
    counts.idleTrials,
    "in-flight requests well below the connections: connections waited without a counted " +
      "request (unserved by the server, or paced by the load generator; see the notes)",
  );
  if (valid.length === 1)
    flags.push({
      tag: "1 VALID TRIAL",
      text: "1 valid trial: no spread and no confidence interval, so every comparison is a tie (≈)",
    });
  if (failure === undefined && trials.length === 0)
    flags.push({ tag: "NOT MEASURED", text: "not measured" });
  return flags;
}

type BaseRow = Omit<
  SummaryRow,
  "rank" | "pctOfFastest" | "vsFastest" | "pctOfBaseline" | "vsBaseline"
>;

function rowFor(results: Results, app: string, group: Group): BaseRow {
  const record = results.apps.find((a) => a.name === app);
  const trials = results.trials.filter((t) => t.app === app && inGroup(t, group));
  const valid = trials.filter((t): t is ValidTrial => t.checks.valid && t.result !== null);
  const failed = record?.status === "failed";
  const rpsValues = valid.map((t) => t.result.rps);
  const rps = spread(rpsValues);
  const ci = confidenceInterval(rpsValues);
  const percentile = (p: (typeof PERCENTILES)[number]) => valid.map((t) => t.result.latencyMs[p]);
  const of = <T>(f: (values: number[]) => T): Percentiles<T> => ({
    p50: f(percentile("p50")),
    p90: f(percentile("p90")),
    p99: f(percentile("p99")),
    p999: f(percentile("p999")),
  });
  const counts: FlagCounts = {
    boundTrials: valid.filter((t) => t.checks.loadGeneratorBound).length,
    unsaturatedTrials: valid.filter((t) => t.checks.unsaturated).length,
    // On a valid trial a failed Little's law check means in-flight far below the connections.
    idleTrials: valid.filter((t) => !t.checks.littlesLaw.ok).length,
  };
  return {
    app,
    scenario: group.key,
    status: failed ? "failed" : "ok",
    ...(failed && record?.failure ? { failure: record.failure } : {}),
    validTrials: valid.length,
    ...counts,
    trials: trials.length,
    rpsValues,
    rps,
    ...(ci ? { ci } : {}),
    ...(rps.n > 1 ? { verdict: verdict(rps.cov) } : {}),
    latencyMs: of(median),
    latencyRangeMs: of(range),
    peakRssMiB: valid.length > 0 ? Math.max(...valid.map((t) => t.server.peakRssMiB)) : Number.NaN,
    serverCpuPercent: mean(valid.map((t) => t.server.cpuPercent)),
    loadCpuPercent: mean(valid.map((t) => t.loadGenerator.cpuPercent)),
    flags: flagsFor(trials, valid, counts, failed ? (record?.failure ?? "unknown") : undefined),
    notes: [...new Set(valid.flatMap((t) => t.checks.notes))],
  };
}

/**
 * Ranks of rows sorted fastest first. The first measured app opens a group at rank 1; each
 * next app joins the open group (rank "≈k") unless Welch's test says it is significantly
 * slower than the app that opened the group, in which case it opens a new group at its own
 * position (1, ≈1, 3). Comparing with the group's opener, not the previous app, keeps a chain
 * of small insignificant steps from adding up to a tie between clearly different apps.
 */
export function rankRows(sorted: readonly Pick<SummaryRow, "rpsValues">[]): (Rank | undefined)[] {
  let opener: readonly number[] | undefined;
  let openerRank = 0;
  return sorted.map((row, i) => {
    if (row.rpsValues.length === 0) return undefined;
    if (opener === undefined || difference(opener, row.rpsValues).significant) {
      opener = row.rpsValues;
      openerRank = i + 1;
      return { position: openerRank, tie: false };
    }
    return { position: openerRank, tie: true };
  });
}

/**
 * The row a framework app's cost is measured against: the bare app on the same runtime, and in
 * a version matrix on the same version ("node-hono@22.23.3" → "node-bare@22.23.3").
 */
export function baselineName(row: string): string | undefined {
  const spec = findApp(registryName(row));
  if (!spec || spec.framework === "bare") return undefined;
  const version = versionOfName(row);
  const name = baselineOf(spec).name;
  return version === undefined ? name : versionedName(name, version);
}

/** Rows per scenario (per scenario and connection count: see groups.ts), fastest first; apps with no valid trial last. */
export function summarize(results: Results): Map<string, SummaryRow[]> {
  const byScenario = new Map<string, SummaryRow[]>();
  for (const group of groupsOf(results)) {
    const rows = results.manifest.settings.apps.map((app) => rowFor(results, app, group));
    rows.sort((a, b) => (b.rps.n > 0 ? b.rps.mean : -1) - (a.rps.n > 0 ? a.rps.mean : -1));
    const fastest = rows[0]?.rps.n ? rows[0] : undefined;
    const measured = (name?: string) => rows.find((r) => r.app === name && r.rps.n > 0);
    const ranks = rankRows(rows);
    const complete: SummaryRow[] = rows.map((row, i) => {
      if (row.rps.n === 0 || fastest === undefined) return row;
      const baseline = measured(baselineName(row.app));
      return {
        ...row,
        ...(ranks[i] ? { rank: ranks[i] } : {}),
        pctOfFastest: (row.rps.mean / fastest.rps.mean) * 100,
        ...(row === fastest ? {} : { vsFastest: difference(fastest.rpsValues, row.rpsValues) }),
        ...(baseline
          ? {
              pctOfBaseline: (row.rps.mean / baseline.rps.mean) * 100,
              vsBaseline: difference(baseline.rpsValues, row.rpsValues),
            }
          : {}),
      };
    });
    byScenario.set(group.key, complete);
  }
  return byScenario;
}

/** "1", "≈1" (tied with the app that opened its group) or "—" (not measured). */
export const rankText = (rank: Rank | undefined): string =>
  rank === undefined ? "—" : `${rank.tie ? "≈" : ""}${rank.position}`;

/** A percentage against another app: "≈" before it when the difference is not significant. */
export const relativeText = (value: number | undefined, d: Difference | undefined): string =>
  value === undefined ? "—" : `${d && !d.significant ? "≈" : ""}${pct(value)}`;

/** "41,200 ± 200"; a single trial has no spread, so no "± 0" that would claim one. */
export const meanText = (r: SummaryRow): string =>
  r.rps.n === 0
    ? "—"
    : r.rps.n === 1
      ? fmt(r.rps.mean)
      : `${fmt(r.rps.mean)} ± ${fmt(r.rps.stddev)}`;

/** "40,703–41,697", or "—" with fewer than two valid trials. */
export const ciText = (ci: Interval | undefined): string =>
  ci ? `${fmt(ci.low)}–${fmt(ci.high)}` : "—";

/** The median p99 with the range over trials: "17.99 (9.93–437.65)". */
export function p99Text(row: SummaryRow): string {
  const r = row.latencyRangeMs.p99;
  if (row.validTrials < 2) return fmt(row.latencyMs.p99, 2);
  return `${fmt(row.latencyMs.p99, 2)} (${fmt(r.low, 2)}–${fmt(r.high, 2)})`;
}

/** The framework tax of a row against its bare baseline: a cost, or "≈ tie". */
export function taxText(row: SummaryRow): { ofBare: string; cost: string; p: string } {
  const d = row.vsBaseline;
  return {
    ofBare: relativeText(row.pctOfBaseline, d),
    cost: d?.significant ? pct(100 - (row.pctOfBaseline ?? 100)) : "≈ tie",
    p: d?.p === undefined ? "— (untestable)" : pValue(d.p),
  };
}

/** What the marks mean, said once wherever ranks and ≈ appear. */
export const SIGNIFICANCE_NOTE =
  "≈ marks a difference that is not significant (Welch's t-test, p ≥ 0.05, each comparison on " +
  "its own, no correction for multiple comparisons) or that cannot be tested (fewer than 2 valid " +
  "trials): a tie, not a ranking. An app gets a new rank only when it is significantly slower than " +
  "the app that opened the current tie group; tied apps share that rank (1, ≈1, 3).";

type Align = "l" | "r";

function table(header: string[], align: readonly Align[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (align[i] === "l" ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function pinningText(results: Results): string {
  const p = results.manifest.pinning;
  return p.enabled
    ? `server on CPU ${p.serverCpus}, load generator on CPU ${p.loadCpus}`
    : `not pinned${p.note ? ` (${p.note})` : ""}`;
}

const SUMMARY_HEADER = [
  "rank",
  "app",
  "req/s (mean ± sd)",
  "95% CI",
  "CoV",
  "p99 ms (range)",
  "RSS MiB",
  "srv CPU%",
  "gen CPU%",
  "of fastest",
  "of bare",
  "valid",
];

function summaryRow(r: SummaryRow): string[] {
  return [
    rankText(r.rank),
    r.app,
    meanText(r),
    ciText(r.ci),
    r.verdict ? `${fmt(r.rps.cov * 100, 1)}% ${r.verdict}` : "—",
    p99Text(r),
    fmt(r.peakRssMiB, 1),
    fmt(r.serverCpuPercent),
    fmt(r.loadCpuPercent),
    relativeText(r.pctOfFastest, r.vsFastest),
    relativeText(r.pctOfBaseline, r.vsBaseline),
    `${r.validTrials}/${r.trials}`,
  ];
}

/** The terminal summary: one table per scenario, then every flag (and its notes) by its app. */
export function formatSummary(results: Results): string {
  const m = results.manifest;
  const out: string[] = [];
  const pin = pinningText(results);
  const workers = (m.settings.workers ?? 1) > 1 ? `${workersText(m.settings)} · ` : "";
  out.push(
    `${m.tool.name} ${m.tool.version} · ${connectionsText(m.settings)} connections · ` +
      `${m.settings.durationSec} s trials × ${m.settings.trials} (+${m.settings.warmupSec} s warm-up) · ${workers}${pin}`,
    `${m.machine.cpuModel}, ${m.machine.cores} cores · ${m.machine.os} · commit ${m.git.commit.slice(0, 12)}${m.git.dirty ? " (dirty)" : ""}`,
  );
  if (results.status === "interrupted")
    out.push("INTERRUPTED: only the trials that finished are shown");
  for (const [scenario, rows] of summarize(results)) {
    out.push("", `== ${scenario}`);
    const align: Align[] = SUMMARY_HEADER.map((_, i) => (i < 2 ? "l" : "r"));
    out.push(table(SUMMARY_HEADER, align, rows.map(summaryRow)));
    for (const r of rows) {
      for (const flag of r.flags) out.push(`  ${r.app}: ${flag.text}`);
      // Notes explain the flags above them, so they sit indented under the app's name.
      for (const note of r.notes) out.push(`  ${" ".repeat(r.app.length + 2)}- ${note}`);
    }
  }
  out.push("", `p99: median of the valid trials (lowest–highest). ${SIGNIFICANCE_NOTE}`);
  return out.join("\n");
}
