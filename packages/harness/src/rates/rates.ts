// Open-loop trials (--rates): the server is sent a constant offered rate and its latency is
// measured from when each request was due, not when it was sent, so queueing shows (oha -q with
// --latency-correction). Pure functions: which rates, the schedule, whether a trial kept up.
// What the trials say at a latency budget (--slo-p99) is the analysis's: analysis/rate-levels.ts.

import { RATE_TOLERANCE, type Schedule } from "../analysis/rate-levels.ts";
import type { LoadResult } from "../load/parse.ts";

/** The default p99 budget: 10 ms spent in one HTTP server on localhost is already a lot. */
export const DEFAULT_SLO_P99_MS = 10;

/** "5000" (req/s) or "50%" (of the app's closed-loop req/s in the same round). */
export type RateSpec =
  | { readonly text: string; readonly absolute: number }
  | { readonly text: string; readonly fraction: number };

export class RateError extends Error {}

export function parseRates(list: string): RateSpec[] {
  const specs = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((text): RateSpec => {
      const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
      if (percent) {
        const fraction = Number(percent[1]) / 100;
        if (fraction <= 0 || fraction > 10) {
          throw new RateError(`--rates: ${text} must be above 0% and at most 1000%`);
        }
        return { text, fraction };
      }
      if (/^\d+$/.test(text) && Number(text) > 0) return { text, absolute: Number(text) };
      throw new RateError(`--rates: "${text}" is neither a rate in req/s (5000) nor a share (50%)`);
    });
  if (specs.length === 0) throw new RateError("--rates names no rate");
  return specs;
}

/** The offered rate in req/s, or undefined for a share when there is no closed-loop figure. */
export function offeredRate(spec: RateSpec, closedLoopRps: number | undefined): number | undefined {
  if ("absolute" in spec) return spec.absolute;
  if (closedLoopRps === undefined || !(closedLoopRps > 0)) return undefined;
  return Math.max(1, Math.round(spec.fraction * closedLoopRps));
}

/**
 * oha's ticker wakes on tokio's 1 ms timer and stops at the first wake-up past the deadline, so
 * the requests due in the schedule's last timer ticks are never sent by design: they are not
 * counted as scheduled (measured here: 5–85 unsent at 5k–45k req/s against a server doing nothing).
 */
export const SCHEDULE_SLACK_SEC = 0.002;

export function scheduleOf(
  rate: number,
  seconds: number,
  r: Pick<LoadResult, "requests" | "socketErrors" | "timeouts" | "aborted"> | null,
): Schedule {
  const scheduled = Math.floor(rate * Math.max(0, seconds - SCHEDULE_SLACK_SEC)) + 1;
  const sent = r ? r.requests + r.socketErrors + r.timeouts + r.aborted : 0;
  return { scheduled, sent, unsent: Math.max(0, scheduled - sent) };
}

export interface RateVerdict {
  /** achieved < offered × (1 − RATE_TOLERANCE): the latencies are those of an overload. */
  readonly overCapacity: boolean;
  readonly notes: string[];
}

/** Whether a trial kept up with its offered rate, and who did not if it did not. */
export function rateVerdict(
  offeredRps: number,
  achievedRps: number,
  loadGeneratorBound: boolean,
): RateVerdict {
  const overCapacity = achievedRps < offeredRps * (1 - RATE_TOLERANCE);
  const notes: string[] = [];
  if (overCapacity) {
    const share = (100 * achievedRps) / offeredRps;
    notes.push(
      loadGeneratorBound
        ? `achieved ${share.toFixed(0)}% of the offered rate, and the load generator was saturated: the generator, not the server, could not keep up`
        : `achieved ${share.toFixed(0)}% of the offered rate: over the server's capacity, its latencies are those of a queue that only grows`,
    );
  }
  return { overCapacity, notes };
}
