// The reports' "Side by side" section (--side-by-side): per scenario, each row's CPU time per
// request relative to its reference, with its interval and rank, and with --against each
// app's verdict. One model (cells and prose), rendered by summary.ts, markdown.ts and html.ts;
// every figure and verdict comes from analysis/ratios.ts.

import type { Analysis } from "../analysis/analysis.ts";
import type { SideGroup, SideRow } from "../analysis/ratios.ts";
import { change, fmt, pValue } from "./format.ts";

// Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
export const SIDE_INTRO =
  "Side by side: the two apps of each pair served at the same moment from the server's CPUs, " +
  "each loaded by its own load generator on the generator's CPUs, started afresh for every " +
  "pair and round, their positions (address, start order, which generator starts first) " +
  "alternated. The figure is each server's CPU time per request (every thread's schedstat time " +
  "over the sample, divided by the requests its generator counted): the cost of a request " +
  "while sharing a core, relative to the reference. What the machine throws at both (steal, a " +
  "neighbour's cache and memory traffic) cancels in the ratio; it is not a throughput, and " +
  "req/s while sharing is shown for context only. × reference: each pair of processes gives " +
  "the mean log ratio of its samples; the pairs are averaged within each arrangement of the " +
  "positions (they swap every round) and the two arrangements weighed alike, and the 95% CI is " +
  "Student's t on the spread within the arrangements, so what a position adds cancels instead " +
  "of widening it (a crossover). Rows " +
  "with one reference are compared round by round through it; every comparison of a table is " +
  "one family, held to 5% by Holm; a tie (≈) states the smallest difference the run could have " +
  "detected (80% power). Lower is cheaper.";

export const AGAINST_INTRO =
  "Each app as this checkout has it, against the same app at the commit it was compared with " +
  "(its row named app@commit), side by side. slower / faster: its CPU time per request rose or " +
  "fell by the threshold or more, significantly (one-sided test on the per-pair log ratios, " +
  "Holm over the apps and scenarios); no change beyond the threshold: an equivalence test (TOST " +
  "against ±threshold) shows it; inconclusive: neither, with the smallest change the run could " +
  "have detected. A slower app makes the run exit 1 (with --fail-inconclusive, an inconclusive one too).";
// Stryker restore StringLiteral

export const SIDE_HEADER = [
  "rank",
  "app",
  "CPU per request (× reference, 95% CI)",
  "±",
  "CPU µs per request",
  "req/s sharing the core",
  "pairs",
  "valid samples",
];

const ratioText = (r: number) => `×${fmt(r, 3)}`;

/** "≈1 (could detect ≥ 1.2%)", "2", "—". */
export function sideRankText(row: SideRow): string {
  const rank = row.rank;
  if (!rank) return "—";
  const head = `${rank.tie ? "≈" : ""}${rank.position}`;
  return rank.tie && rank.mdd !== undefined
    ? `${head} (could detect ≥ ${fmt(rank.mdd * 100, 1)}%)`
    : head;
}

/** "×1.217 (1.195–1.240)", "×1.000 (the reference)", or why there is no interval. */
export function sideRatioText(row: SideRow): string {
  if (!row.reference) return `${ratioText(1)} (the reference)`;
  if (!Number.isFinite(row.ratio)) return "—";
  const ci = row.ci
    ? ` (${fmt(row.ci.low, 3)}–${fmt(row.ci.high, 3)})`
    : " (too few pairs for a CI)";
  return `${row.vsReference?.significant ? "" : "≈"}${ratioText(row.ratio)}${ci}`;
}

/** The CI's half-width as a share of the ratio. */
export const sideHalfWidth = (row: SideRow): string =>
  row.ci && row.reference ? `±${fmt(((row.ci.high - row.ci.low) / 2 / row.ratio) * 100, 1)}%` : "—";

export function sideCells(row: SideRow): string[] {
  const ns = row.nsPerRequest;
  return [
    sideRankText(row),
    [row.app, ...row.flags.map((f) => `⚠️ ${f.tag.toLowerCase()}`)].join(" "),
    sideRatioText(row),
    sideHalfWidth(row),
    ns.processes > 0 ? fmt(ns.mean / 1000, 2) : "—",
    Number.isFinite(row.rps) ? fmt(row.rps) : "—",
    String(row.pairs),
    `${row.validSamples}/${row.samples}`,
  ];
}

/** Each row's flags and its samples' notes, one after another. */
export function sideNotes(group: SideGroup): { app: string; text: string; notes: string[] }[] {
  return group.rows.flatMap((r) =>
    r.flags.map((flag, i) => ({
      app: r.app,
      text: flag.text,
      notes: i === r.flags.length - 1 ? [...r.notes] : [],
    })),
  );
}

export const AGAINST_HEADER = [
  "app",
  "scenario",
  "CPU per request, this checkout vs the commit (95% CI)",
  "p (1-sided)",
  "detectable",
  "verdict",
];

const VERDICT_WORD = {
  regression: "SLOWER",
  improvement: "faster",
  "no change beyond the threshold": "no change beyond the threshold",
  inconclusive: "inconclusive",
} as const;

/** "+5.1% (+4.2% to +6.0%)": the row's change in CPU per request against its reference. */
const changeText = (row: SideRow): string =>
  !Number.isFinite(row.ratio)
    ? "—"
    : `${change(row.ratio - 1)} (${row.ci ? `${change(row.ci.low - 1)} to ${change(row.ci.high - 1)}` : "too few pairs for a CI"})`;

/** --against: one line per app and scenario with its verdict; none for any other run. */
export function againstCells(analysis: Analysis): string[][] {
  const out: string[][] = [];
  for (const [scenario, group] of analysis.side?.groups ?? []) {
    for (const row of group.rows) {
      if (!row.reference || !analysis.side?.against) continue;
      const gate = row.gate;
      out.push([
        row.app,
        scenario,
        changeText(row),
        gate ? pValue(gate.p) : "—",
        gate ? `≥ ${fmt(gate.detectable * 100, 1)}%` : "—",
        gate
          ? `${VERDICT_WORD[gate.verdict]}${gate.note ? `: ${gate.note}` : ""}`
          : row.status === "failed"
            ? "FAILED"
            : "not measured",
      ]);
    }
  }
  return out;
}

/**
 * The one-line outcome of --against, the last line of its section: which apps are slower; or
 * INCONCLUSIVE, naming the apps shown neither faster nor within the threshold (a reader must
 * not take "none slower" for a pass); or none slower.
 */
export function againstLine(analysis: Analysis): string | undefined {
  const against = analysis.side?.against;
  if (!against) return undefined;
  const { verdict, slower, unsettled } = against.outcome;
  const threshold = `${fmt(against.threshold * 100, 1)}%`;
  const commit = `${against.ref} (${against.commit.slice(0, 12)})`;
  if (verdict === "slower")
    return `SLOWER than ${commit} by ${threshold} or more: ${slower.join(", ")}`;
  if (verdict === "inconclusive") {
    return (
      `INCONCLUSIVE against ${commit}: none shown slower by ${threshold} or more, but not shown ` +
      `within ±${threshold} either: ${unsettled.join(", ")} (--fail-inconclusive makes this exit 1)`
    );
  }
  return `no app slower than ${commit} by ${threshold} or more: each faster or within ±${threshold}`;
}
