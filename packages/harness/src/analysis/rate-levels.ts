// What open-loop trials (--rates) say at a latency budget (--slo-p99): a trial's verdict (kept
// the budget, missed it, or says nothing of the server), each requested rate's level (medians
// over its trials) and the capacity the levels bracket. Computed once for every report;
// rates/ measures the trials and plans a search's next rate from the same rules.

import type { RateTrial } from "../results/schema.ts";
import { median } from "./stats.ts";

type LatencyMs = NonNullable<RateTrial["result"]>["latencyMs"];

/** A trial kept up with its offered rate unless it achieved less than this share below it. */
export const RATE_TOLERANCE = 0.05;

export interface Schedule {
  /** Requests due from the start to the deadline (less rates.ts's SCHEDULE_SLACK_SEC). */
  readonly scheduled: number;
  /** Answered, failed, timed out or cut off: every request the tool sent. */
  readonly sent: number;
  /** Due but never sent: the tool's queue or ticker fell behind; in no latency figure. */
  readonly unsent: number;
}

/**
 * The budget rule: at least 99% of the scheduled requests are known to have been answered
 * within the budget, unsent ones counting as over it. With nothing unsent that is p99 ≤ budget.
 * With some unsent, the answered percentiles bound it: p99.9 ≤ budget (at most 0.1% of the
 * answered over it) and unsent + 0.1% of the answered ≤ 1% of the scheduled.
 */
export function keptBudget(
  latency: Pick<LatencyMs, "p99" | "p999">,
  schedule: Schedule,
  answered: number,
  budgetMs: number,
): boolean {
  if (schedule.unsent === 0) return latency.p99 <= budgetMs;
  return latency.p999 <= budgetMs && unsentAllowed(schedule, answered);
}

/** Unsent + 0.1% of the answered (over p99.9) is at most 1% of the scheduled. */
function unsentAllowed(schedule: Schedule, answered: number): boolean {
  return schedule.unsent + 0.001 * answered <= 0.01 * schedule.scheduled;
}

export type BudgetVerdict = {
  readonly verdict: "within" | "over" | "not judged";
  readonly why: string;
};

/** One rate trial against the budget: kept it, missed it, or says nothing of the server. */
export function budgetVerdict(t: RateTrial, budgetMs: number): BudgetVerdict {
  const r = t.result;
  if (!t.valid || r === null)
    return { verdict: "over", why: `invalid: ${t.invalidReasons.join("; ")}` };
  if (t.overCapacity) {
    const short = `achieved ${fmtRate(t.achievedRps)} of ${fmtRate(t.offeredRps)} req/s`;
    return { verdict: "over", why: short };
  }
  if (t.machineFull) return { verdict: "not judged", why: "machine full" };
  if (t.loadGeneratorBound) return { verdict: "not judged", why: "load generator saturated" };
  const schedule = t.schedule ?? { scheduled: r.requests, sent: r.requests, unsent: 0 };
  const p99 = `p99 ${r.latencyMs.p99.toFixed(2)} ms`;
  if (keptBudget(r.latencyMs, schedule, r.requests, budgetMs)) {
    const unsent = schedule.unsent > 0 ? `, ${schedule.unsent} unsent` : "";
    return { verdict: "within", why: `${p99}${unsent}` };
  }
  // Unsent requests beyond what the budget rule allows: over, whatever the latencies.
  if (!unsentAllowed(schedule, r.requests)) {
    const never = `${schedule.unsent} of ${schedule.scheduled} scheduled requests never sent`;
    return { verdict: "over", why: `${never} (count as over the budget)` };
  }
  if (schedule.unsent > 0 && r.latencyMs.p99 <= budgetMs) {
    const p999 = `p99.9 ${r.latencyMs.p999.toFixed(2)} ms`;
    return {
      verdict: "over",
      why: `${p99} within but ${p999} over, with ${schedule.unsent} unsent: 99% within cannot be shown`,
    };
  }
  // Latency alone: the server is charged only with what the generator's own p99 cannot explain.
  if (t.floorP99Ms !== undefined && r.latencyMs.p99 - t.floorP99Ms <= budgetMs) {
    const floor = `the generator alone measured p99 ${t.floorP99Ms.toFixed(2)} ms at this rate`;
    return { verdict: "not judged", why: `${p99}, but ${floor}` };
  }
  return { verdict: "over", why: p99 };
}

const fmtRate = (n: number) => Math.round(n).toLocaleString("en-US");

export interface RateLevel {
  /** As asked: "50%" or "5000". */
  readonly requested: string;
  /** Median over the level's valid trials. */
  readonly offeredRps: number;
  readonly achievedRps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Lowest and highest p99 over the level's trials: its spread. */
  readonly p99RangeMs: { readonly low: number; readonly high: number };
  readonly trials: number;
  /** Any of its trials fell short of the offered rate. */
  readonly overCapacity: boolean;
  /** Any of its trials saturated the load generator: the level says nothing of the server. */
  readonly loadGeneratorBound: boolean;
  /** Any of its trials filled a machine the server and the generator shared. */
  readonly machineFull?: boolean;
  /** Most of its trials kept the budget (budgetVerdict), and none fell short of the rate. */
  readonly withinBudget: boolean;
  /** Requests due but never sent, summed over its trials. */
  readonly unsent: number;
}

/** Per requested rate, the medians of an app's valid rate trials on a scenario, slowest first. */
export function rateLevels(
  trials: readonly RateTrial[],
  app: string,
  scenario: string,
  budgetMs: number,
): RateLevel[] {
  // A search's trials (requested "search") are levels of their own: report/search-table.ts.
  const mine = trials.filter(
    (t) =>
      t.app === app &&
      t.scenario === scenario &&
      t.requested !== "search" &&
      t.valid &&
      t.result !== null,
  );
  const requested = [...new Set(mine.map((t) => t.requested))];
  return requested
    .map((r) => {
      const level = mine.filter((t) => t.requested === r);
      const figures = levelFigures(level);
      const kept = level.filter((t) => budgetVerdict(t, budgetMs).verdict === "within").length;
      return {
        requested: r,
        ...figures,
        loadGeneratorBound: level.some((t) => t.loadGeneratorBound || t.machineFull === true),
        machineFull: level.some((t) => t.machineFull === true),
        withinBudget: !figures.overCapacity && 2 * kept > level.length,
      };
    })
    .sort((a, b) => a.offeredRps - b.offeredRps);
}

/** A level's figures: medians over its trials (latencies over those with a result), spreads, sums. */
export function levelFigures(
  level: readonly RateTrial[],
): Omit<RateLevel, "requested" | "loadGeneratorBound" | "machineFull" | "withinBudget"> {
  const measured = level.flatMap((t) => (t.result ? [t.result.latencyMs] : []));
  const p99s = measured.map((l) => l.p99);
  return {
    offeredRps: median(level.map((t) => t.offeredRps)),
    achievedRps: median(level.map((t) => t.achievedRps)),
    p50Ms: median(measured.map((l) => l.p50)),
    p99Ms: median(p99s),
    p99RangeMs: { low: Math.min(...p99s), high: Math.max(...p99s) },
    trials: level.length,
    overCapacity: level.some((t) => t.overCapacity),
    unsent: level.reduce((sum, t) => sum + (t.schedule?.unsent ?? 0), 0),
  };
}

export interface Capacity {
  /** The highest measured offered rate that kept up within the budget; undefined: none did. */
  readonly withinRps?: number;
  /** The lowest measured rate above it that missed; undefined: none above it was measured. */
  readonly missedRps?: number;
  /** A lower rate missed the budget although a higher one met it: noise, read with care. */
  readonly nonMonotonic: boolean;
}

/**
 * Capacity at the budget, bracketed by the measured rates: withinRps ≤ capacity < missedRps.
 * Levels whose load generator was saturated take no part.
 */
export function capacityAtBudget(all: readonly RateLevel[]): Capacity {
  // A level where the generator was saturated judges the generator, not the server: skipped.
  const levels = all.filter((l) => !l.loadGeneratorBound);
  const met = levels.filter((l) => l.withinBudget);
  const withinRps = met.length > 0 ? Math.max(...met.map((l) => l.offeredRps)) : undefined;
  const above = levels.filter((l) => !l.withinBudget && l.offeredRps > (withinRps ?? 0));
  const missedRps = above.length > 0 ? Math.min(...above.map((l) => l.offeredRps)) : undefined;
  const nonMonotonic =
    withinRps !== undefined && levels.some((l) => !l.withinBudget && l.offeredRps < withinRps);
  return {
    ...(withinRps !== undefined ? { withinRps } : {}),
    ...(missedRps !== undefined ? { missedRps } : {}),
    nonMonotonic,
  };
}
