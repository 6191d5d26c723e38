// Side-by-side samples built from the ratios they should show: the reference at 10 µs per
// request, the row at the given multiple of it, so a test's expected figures follow by hand.

import type { PairTrial } from "../../src/results/schema.ts";
import { syntheticPairTrial } from "./synthetic.ts";

/** Per round (numbered from `first`), each sample's ratio of `app`'s CPU per request to 10 µs. */
export function ratioTrials(
  reference: string,
  app: string,
  rounds: readonly (readonly number[])[],
  first = 1,
): PairTrial[] {
  return rounds.flatMap((samples, r) =>
    samples.map((ratio, s) =>
      syntheticPairTrial(reference, app, first + r, s + 1, 10_000, 10_000 * ratio),
    ),
  );
}

/** One sample a round at `ratio` × each of `wobble`, from round 1. */
export const wobbling = (reference: string, app: string, ratio: number, wobble: number[]) =>
  ratioTrials(
    reference,
    app,
    wobble.map((w) => [ratio * w]),
  );
