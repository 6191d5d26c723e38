// --side-by-side's plan: which rows are measured against which, and where each side of a pair
// sits. Two servers share the server's core at the same moment, each loaded by its own
// generator on the generator's core, so whatever slows the machine slows both and cancels in
// the ratio of their CPU time per request. What does not cancel is a difference between the
// two positions ("slots": the address, who starts first, whose generator is spawned first):
// with a fixed order an A/A pair read 0.992 ± 0.56% on this VM, so the slots alternate, round
// by round and pair by pair, and each row holds each slot equally often. Pure.

import type { AppRun } from "../runtimes/runtime-versions.ts";
import { registryName } from "../runtimes/runtime-versions.ts";

/** Where a pair's two servers listen: two loopback addresses, so one app can run twice. */
export const SLOT_ADDRESSES = ["127.0.0.1", "127.0.0.2"] as const;

/** A comparison the run measures: `app` against `reference`, both started afresh each round. */
export interface SidePair {
  readonly reference: AppRun;
  readonly app: AppRun;
}

export interface SidePlan {
  /** Every row of the run, each once, in the order given (the reference rows first in a group). */
  readonly rows: AppRun[];
  readonly pairs: SidePair[];
}

/** The second row of an A/A pair: the same app, another name. */
export const secondOf = (app: AppRun): AppRun => ({ ...app, name: `${app.name}#2` });

/**
 * The pairs of a run. `perApp`: rows of one app (its versions, its commits, its calibration
 * rows) are each measured against that app's first row. Otherwise every app against
 * `reference` (default: the first); one app alone is measured against itself (A/A).
 */
export function planPairs(apps: readonly AppRun[], perApp: boolean, reference?: string): SidePlan {
  if (perApp) {
    const firsts = new Map<string, AppRun>();
    const pairs: SidePair[] = [];
    for (const app of apps) {
      const first = firsts.get(registryName(app.name));
      if (first) pairs.push({ reference: first, app });
      else firsts.set(registryName(app.name), app);
    }
    return { rows: [...apps], pairs };
  }
  if (apps.length === 1) {
    const only = apps[0] as AppRun;
    const twin = secondOf(only);
    return { rows: [only, twin], pairs: [{ reference: only, app: twin }] };
  }
  const ref = apps.find((a) => a.name === reference) ?? (apps[0] as AppRun);
  const others = apps.filter((a) => a !== ref);
  return { rows: [ref, ...others], pairs: others.map((app) => ({ reference: ref, app })) };
}

/**
 * The slot (0: SLOT_ADDRESSES[0], started first, its generator spawned first) of a pair's
 * reference in `round` (1-based) for the `index`-th pair of the plan: alternating by round,
 * and shifted by pair, so two rounds put every row in each slot once.
 */
export const referenceSlot = (round: number, index: number): 0 | 1 =>
  (round + index) % 2 === 1 ? 0 : 1;

/** One value per slot, in slot order: the pair's two sides, typed as the pair they are. */
export const both = <T>(of: (slot: 0 | 1) => T): [T, T] => [of(0), of(1)];

/** The pair's two rows in slot order: [slot 0, slot 1]. */
export function bySlot(pair: SidePair, round: number, index: number): [AppRun, AppRun] {
  return referenceSlot(round, index) === 0
    ? [pair.reference, pair.app]
    : [pair.app, pair.reference];
}
