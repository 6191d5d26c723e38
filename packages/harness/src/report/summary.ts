// The terminal summary (and summary.txt): the run's analysis (analysis.ts) as one table per
// group, fastest first, with every flag and note under it. Also the text helpers the reports
// share: ranks, ties with what they could have detected, intervals, the framework tax.

import { findScenario, loadedByWsLoad } from "@bench/contract";
import {
  type Analysis,
  type Difference,
  type Rank,
  type SummaryRow,
  summarize,
} from "../analysis/analysis.ts";
import { MIN_CI_PROCESSES } from "../analysis/estimate.ts";
import { connectionsText, roundsMeasured, workersText } from "../analysis/groups.ts";
import type { Interval } from "../analysis/stats.ts";
import { PAIRED_MIN_ROUNDS } from "../analysis/verdicts.ts";
import { formatSec } from "../common/time.ts";
import type { Results } from "../results/schema.ts";
import { fmt, pct, pValue } from "./format.ts";
import { runHistoryLines } from "./history-report.ts";
import {
  AGAINST_HEADER,
  againstCells,
  againstLine,
  SIDE_HEADER,
  SIDE_INTRO,
  sideCells,
  sideNotes,
} from "./side-by-side.ts";
import { stealLine } from "./steal-table.ts";
import { type Align, textTable } from "./text-table.ts";

export type { Difference, Flag, Rank, SummaryRow } from "../analysis/analysis.ts";
export { ALPHA, baselineName, rankRows } from "../analysis/analysis.ts";
export { summarize };

/** "≥ 7.1%": the smallest difference a test could have detected (a share of a mean). */
export const mddText = (mdd: number | undefined): string =>
  mdd === undefined || !Number.isFinite(mdd) ? "—" : `≥ ${fmt(mdd * 100, 1)}%`;

/** "1", "≈1" (tied with the app that opened its group) or "—" (not measured). */
export const rankText = (rank: Rank | undefined): string =>
  rank === undefined ? "—" : `${rank.tie ? "≈" : ""}${rank.position}`;

/** A tie's rank with what it could have told apart: "≈1 (could detect ≥ 7.1%)". */
export const rankLongText = (rank: Rank | undefined): string =>
  rank?.tie && rank.mdd !== undefined
    ? `${rankText(rank)} (could detect ${mddText(rank.mdd)})`
    : rankText(rank);

/** A percentage against another app: "≈" before it when the difference is not significant. */
export const relativeText = (value: number | undefined, d: Difference | undefined): string =>
  value === undefined ? "—" : `${d && !d.significant ? "≈" : ""}${pct(value)}`;

/** "41,200 ± 200": the mean and sd of the process means; one process has no spread. */
export const meanText = (r: SummaryRow): string =>
  r.rps.n === 0
    ? "—"
    : r.rps.n === 1
      ? fmt(r.rps.mean)
      : `${fmt(r.rps.mean)} ± ${fmt(r.rps.stddev)}`;

/** "40,703–41,697", or why there is none: fewer than MIN_CI_PROCESSES processes ("—": none). */
export const ciText = (ci: Interval | undefined, processes = 1): string =>
  ci ? `${fmt(ci.low)}–${fmt(ci.high)}` : processes === 0 ? "—" : "too few samples";

/** The CI's half-width as a share of the mean: "±3.1%". */
export const halfWidthText = (r: Pick<SummaryRow, "estimate">): string =>
  r.estimate.halfWidth === undefined ? "—" : `±${fmt(r.estimate.halfWidth * 100, 1)}%`;

/** The median p99 with the range over trials: "17.99 (9.93–437.65)". */
export function p99Text(row: SummaryRow): string {
  const r = row.latencyRangeMs.p99;
  if (row.validTrials < 2) return fmt(row.latencyMs.p99, 2);
  return `${fmt(row.latencyMs.p99, 2)} (${fmt(r.low, 2)}–${fmt(r.high, 2)})`;
}

/** The framework tax of a row against its bare baseline: a cost, or a tie and what it could detect. */
export function taxText(row: SummaryRow): { ofBare: string; cost: string; p: string } {
  const d = row.vsBaseline;
  return {
    ofBare: relativeText(row.pctOfBaseline, d),
    cost: d?.significant
      ? pct(100 - (row.pctOfBaseline ?? 100))
      : d?.mdd === undefined
        ? "≈ tie"
        : `≈ tie (could detect ${mddText(d.mdd)})`,
    p: d?.p === undefined ? "— (untestable)" : pValue(d.p),
  };
}

/** What the marks mean, said once wherever ranks and ≈ appear. */
export const SIGNIFICANCE_NOTE =
  "Each app's mean is over processes (fresh starts), each process the mean of its samples; " +
  `its 95% CI (Student's t) needs ${MIN_CI_PROCESSES} processes or more. ≈ marks a difference ` +
  "that is not significant (a paired t-test on the per-round log ratios of the process means " +
  `where two apps share ${PAIRED_MIN_ROUNDS} rounds or more, as a default run's do; Welch's t-test on the process ` +
  "means where they share fewer; every pair of a table is one family, held to 5% by Holm's " +
  "step-down) or that cannot be tested (fewer than 2 processes): a " +
  "tie, not a ranking. Beside a tie, the smallest difference the run could have detected (at " +
  "Holm's strictest level, 80% power). An app gets a new rank only when it is significantly " +
  "slower than the app that opened the current tie group; tied apps share that rank (1, ≈1, 3).";

function table(header: string[], rows: string[][], align?: readonly Align[]): string {
  return textTable(header, rows, align).join("\n");
}

export function pinningText(results: Results): string {
  const p = results.manifest.pinning;
  if (results.manifest.serverHost) {
    return (
      (p.enabled ? `server on CPU ${p.serverCpus} of its host` : `server not pinned (${p.note})`) +
      ", load generator on the other host"
    );
  }
  return p.enabled
    ? `server on CPU ${p.serverCpus}, load generator on CPU ${p.loadCpus}`
    : `not pinned${p.note ? ` (${p.note})` : ""}`;
}

/**
 * The database scenarios' engine, where it ran and each client, or undefined for a run without
 * them: a SQLite run and a PostgreSQL run measure different things under the same names.
 */
export function databaseText(results: Results): string | undefined {
  const db = results.manifest.database;
  if (!db) return undefined;
  const clients = [...new Set(Object.values(db.clients))].join(", ");
  if (db.engine === "sqlite") return `SQLite, a file per app process (${clients})`;
  const where = db.cpus === undefined ? "" : ` on CPU ${db.cpus}`;
  return `PostgreSQL ${db.version ?? "(version unrecorded)"}${where}, a database per app process (${clients})`;
}

/** The machine, or across two hosts both of them and the network between them. */
export function machinesText(results: Results, long = false): string {
  const m = results.manifest;
  const one = (x: typeof m.machine) =>
    `${x.cpuModel}, ${x.cores} cores${long ? `, ${x.memoryGiB} GiB` : ""} · ${x.os}${long ? ` · ${x.kernel}` : ""}`;
  const server = m.serverHost;
  if (!server) return one(m.machine);
  const link = server.linkMbps.load ?? server.linkMbps.server;
  return (
    `server ${server.name} (${server.address}): ${one(server.machine)} · load generator: ${one(m.machine)} · ` +
    `round trip ${server.rttMs.toFixed(3)} ms${link ? `, link ${link} Mbit/s` : ""}`
  );
}

const SUMMARY_HEADER = [
  "rank",
  "app",
  "req/s (mean ± sd)",
  "95% CI",
  "±",
  "CoV",
  "p99 ms (range)",
  "RSS MiB",
  "srv CPU%",
  "gen CPU%",
  "of fastest",
  "detects",
  "of bare",
  "procs",
  "valid",
];

function summaryRow(r: SummaryRow): string[] {
  return [
    rankText(r.rank),
    r.app,
    meanText(r),
    ciText(r.ci, r.rps.n),
    halfWidthText(r),
    r.quality ? `${fmt(r.rps.cov * 100, 1)}% ${r.quality}` : "—",
    p99Text(r),
    fmt(r.peakRssMiB, 1),
    fmt(r.serverCpuPercent),
    fmt(r.loadCpuPercent),
    relativeText(r.pctOfFastest, r.vsFastest),
    mddText(r.vsFastest?.mdd),
    relativeText(r.pctOfBaseline, r.vsBaseline),
    String(r.rps.n),
    `${r.validTrials}/${r.trials}`,
  ];
}

/**
 * The run's generators: "wrk 4.1.0", and ws-load's version with the scenarios it loaded
 * ("wrk 4.1.0 (tls-handshake, ws-echo: ws-load 0.1.0)").
 */
export function toolsText(m: Results["manifest"]): string {
  if (!m.wsTool) return `${m.tool.name} ${m.tool.version}`;
  const loaded = m.settings.scenarios.filter((name) => {
    const scenario = findScenario(name);
    return scenario !== undefined && loadedByWsLoad(scenario);
  });
  return `${m.tool.name} ${m.tool.version} (${loaded.join(", ")}: ${m.wsTool.name} ${m.wsTool.version})`;
}

/**
 * "5 × 2 s samples per process, 20 processes per app (+2 s warm-up each)". A run that did not
 * complete states the rounds it measured, and the planned ones beside them.
 */
export function designText(
  results: Pick<Results, "manifest" | "status" | "trials" | "pairTrials">,
): string {
  const { settings } = results.manifest;
  const samples = settings.samples ?? 1;
  const planned = settings.trials;
  const rounds = results.status === "complete" ? planned : roundsMeasured(results);
  const of = rounds === planned ? "" : ` of ${planned} planned`;
  if (settings.sideBySide) {
    return (
      `side by side: ${samples} × ${settings.durationSec} s sample${samples === 1 ? "" : "s"} per pair ` +
      `of processes, ${rounds}${of} pair${rounds === 1 && of === "" ? "" : "s"} (rounds) per comparison ` +
      `(+${settings.warmupSec} s warm-up each), ${settings.connections} connections per app`
    );
  }
  return (
    `${samples} × ${settings.durationSec} s sample${samples === 1 ? "" : "s"} per process, ` +
    `${rounds}${of} process${rounds === 1 && of === "" ? "" : "es"} (rounds) per app ` +
    `(+${settings.warmupSec} s warm-up each)`
  );
}

/** --precision: whether every width reached the target, after how many rounds and how long. */
export function precisionText(results: Results): string | undefined {
  const target = results.manifest.settings.precision;
  const outcome = results.precision;
  if (!target || !outcome) return undefined;
  const want = `±${fmt(target.target * 100, 1)}%`;
  const took = `${outcome.rounds} round(s), ${formatSec(outcome.elapsedSec)} of ${formatSec(target.maxTimeSec)}`;
  if (outcome.reached) return `PRECISION ${want} reached by every mean and comparison: ${took}`;
  const widest = outcome.widest
    ? `; widest ${outcome.widest.what} ±${fmt(outcome.widest.halfWidth * 100, 1)}%`
    : "";
  return `PRECISION ${want} NOT reached in ${took}${widest} (the tables' ± column shows each)`;
}

/** The variance components of a group's rows, for the line under its table. */
function noiseLine(analysis: Analysis, key: string): string | undefined {
  const g = analysis.groups.get(key);
  const parts = (g?.rows ?? [])
    .filter((r) => r.estimate.components)
    .map((r) => {
      const c = r.estimate.components as NonNullable<SummaryRow["estimate"]["components"]>;
      return `${r.app} ${fmt(c.within * 100, 1)}% / ${fmt(c.between * 100, 1)}%`;
    });
  if (parts.length === 0) return undefined;
  const round = g?.roundCov === undefined ? "" : `; between rounds ${fmt(g.roundCov * 100, 1)}%`;
  return `  noise (CoV of one sample within a process / between processes): ${parts.join(", ")}${round}`;
}

/** --side-by-side: a table per scenario, its flags and notes, --against's outcome, the reading. */
function sideSummary(analysis: Analysis): string[] {
  if (!analysis.side) return [];
  const out: string[] = [];
  for (const [scenario, group] of analysis.side.groups) {
    out.push(
      "",
      `== ${scenario}: CPU time per request, side by side (× the reference; lower is cheaper)`,
    );
    const align: Align[] = SIDE_HEADER.map((_, i) => (i < 2 ? "l" : "r"));
    out.push(table(SIDE_HEADER, group.rows.map(sideCells), align));
    for (const n of sideNotes(group)) {
      out.push(
        `  ${n.app}: ${n.text}`,
        ...n.notes.map((x) => `  ${" ".repeat(n.app.length + 2)}- ${x}`),
      );
    }
  }
  const against = againstCells(analysis);
  if (against.length > 0) {
    out.push("", `== against ${analysis.side.against?.ref}`);
    out.push(table(AGAINST_HEADER, against));
    out.push(againstLine(analysis) ?? "");
  }
  out.push("", SIDE_INTRO);
  return out;
}

/** The terminal summary: one table per group, then every flag (and its notes) by its app. */
export function formatSummary(analysis: Analysis): string {
  const { results } = analysis;
  const m = results.manifest;
  const out: string[] = [];
  const pin = pinningText(results);
  const workers = (m.settings.workers ?? 1) > 1 ? `${workersText(m.settings)} · ` : "";
  const database = databaseText(results);
  out.push(
    `${toolsText(m)} · ${connectionsText(m.settings)} connections · ` +
      `${designText(results)} · ${workers}${pin}`,
    ...(database ? [`database: ${database}`] : []),
    `${machinesText(results)} · commit ${m.git.commit.slice(0, 12)}${m.git.dirty ? " (dirty)" : ""}`,
  );
  if (results.status === "interrupted")
    out.push("INTERRUPTED: only the samples that finished are shown");
  const precision = precisionText(results);
  if (precision) out.push(precision);
  out.push(stealLine(analysis), ...runHistoryLines(results));
  out.push(...sideSummary(analysis));
  for (const [key, group] of analysis.groups) {
    out.push("", `== ${key}`);
    const align: Align[] = SUMMARY_HEADER.map((_, i) => (i < 2 ? "l" : "r"));
    out.push(table(SUMMARY_HEADER, group.rows.map(summaryRow), align));
    const noise = noiseLine(analysis, key);
    if (noise) out.push(noise);
    for (const r of group.rows) {
      for (const flag of r.flags) out.push(`  ${r.app}: ${flag.text}`);
      // Notes explain the flags above them, so they sit indented under the app's name.
      for (const note of r.notes) out.push(`  ${" ".repeat(r.app.length + 2)}- ${note}`);
    }
  }
  if (analysis.side) return out.join("\n");
  out.push(
    "",
    "±: the 95% CI's half-width as a share of the mean. detects: the smallest difference from " +
      "the fastest app this run could have detected. procs: processes with valid samples; " +
      "valid: valid samples / samples.",
    `p99: median of the valid samples (lowest–highest). ${SIGNIFICANCE_NOTE}`,
  );
  return out.join("\n");
}
