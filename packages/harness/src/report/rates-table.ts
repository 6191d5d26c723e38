// The reports' open-loop part (--rates): per scenario, each app's latency at each offered rate
// and its capacity at the p99 budget. One model, rendered by markdown.ts and html.ts.

import type { Analysis } from "../analysis/analysis.ts";
import { type Capacity, RATE_TOLERANCE, type RateLevel } from "../analysis/rate-levels.ts";
import type { Results } from "../results/schema.ts";
import { fmt } from "./format.ts";
import { BUDGET_RULE, SEARCH_INTRO, searchView } from "./search-table.ts";

export const RATES_HEADER = [
  "app",
  "rate",
  "offered req/s",
  "achieved req/s",
  "p50 ms",
  "p99 ms",
  "budget",
];
export const CAPACITY_HEADER = ["app", "capacity at the p99 budget", "how it was found"];

export function ratesIntro(results: Results): string {
  const budget = results.manifest.settings.sloP99Ms ?? Number.NaN;
  return (
    // Stryker disable StringLiteral: the section's prose, read by people; no figure or verdict comes from it
    "Open-loop trials (--rates): after each closed-loop trial, the same warm server was sent a " +
    "constant offered rate by oha (-q, --latency-correction), latency counted from when each " +
    "request was due, so waiting in a queue counts. A share (50%) is of the app's closed-loop " +
    // Stryker restore StringLiteral
    `req/s in that same trial. A rate achieved more than ${fmt(RATE_TOLERANCE * 100)}% short of ` +
    "its offer is over capacity: its latencies are those of a queue that only grows. Medians " +
    `over the valid trials, p99 with its lowest–highest over them; budget: p99 within ${fmt(budget, 1)} ms (--slo-p99): every trial kept up with the rate ` +
    `and most kept the budget. ${BUDGET_RULE}` +
    ((results.rateTrials ?? []).some((t) => t.requested === "search") ? ` ${SEARCH_INTRO}` : "")
  );
}

export interface RateView {
  readonly scenario: string;
  readonly rows: string[][];
  readonly capacity: string[][];
  /** Per app, its levels, for the chart. */
  readonly series: { readonly app: string; readonly levels: readonly RateLevel[] }[];
}

function budgetCell(l: RateLevel): string {
  if (l.machineFull) return "not judged: machine full";
  if (l.loadGeneratorBound) return "not judged: load generator saturated";
  if (l.overCapacity) return "over capacity";
  return l.withinBudget ? "within" : "missed";
}

function capacityCells(app: string, levels: readonly RateLevel[], c: Capacity): string[] {
  const judged = levels.filter((l) => !l.loadGeneratorBound);
  if (judged.length === 0) {
    return [app, "—", "the load generator was saturated at every measured rate"];
  }
  const figure =
    c.withinRps === undefined
      ? `below ${fmt(Math.min(...judged.map((l) => l.offeredRps)))} req/s`
      : c.missedRps === undefined
        ? `at least ${fmt(c.withinRps)} req/s`
        : `${fmt(c.withinRps)} req/s (below ${fmt(c.missedRps)})`;
  const how =
    c.withinRps === undefined
      ? "even the lowest measured rate missed the budget"
      : c.missedRps === undefined
        ? "the highest measured rate met the budget; measure higher rates for the limit"
        : "the highest measured rate that met the budget; the next one measured missed it";
  return [app, figure, c.nonMonotonic ? `${how}; a lower rate missed it too (noise)` : how];
}

function levelCells(app: string, l: RateLevel, verdict: string): string[] {
  return [
    app,
    l.requested,
    fmt(l.offeredRps),
    fmt(l.achievedRps),
    fmt(l.p50Ms, 2),
    l.trials > 1
      ? `${fmt(l.p99Ms, 2)} (${fmt(l.p99RangeMs.low, 2)}–${fmt(l.p99RangeMs.high, 2)})`
      : fmt(l.p99Ms, 2),
    l.unsent > 0 ? `${verdict} (${fmt(l.unsent)} unsent)` : verdict,
  ];
}

export function rateViews(analysis: Analysis): RateView[] {
  return analysis.rates
    .map(({ scenario, apps }) => {
      const listed = apps.map((a) => ({
        ...a,
        view: a.search ? searchView(a.app, a.search) : undefined,
      }));
      const rows = listed.flatMap(({ app, levels, view }) => [
        ...levels.map((l) => levelCells(app, l, budgetCell(l))),
        ...(view?.levels ?? []).map((l, i) => levelCells(app, l, view?.verdicts[i] ?? "")),
      ]);
      const capacity = listed.flatMap(({ app, levels, capacity: c, view }) => [
        ...(c ? [capacityCells(app, levels, c)] : []),
        ...(view ? [view.capacity] : []),
      ]);
      const series = listed
        .map(({ app, levels, view }) => ({
          app,
          levels: [...levels, ...(view?.levels ?? [])].sort((a, b) => a.offeredRps - b.offeredRps),
        }))
        .filter((s) => s.levels.length > 0);
      return { scenario, rows, capacity, series };
    })
    .filter((v) => v.rows.length > 0);
}
