// Samples lost to CPU steal, taken again while the process (or pair) still runs: at the end of
// its planned samples, one at a time, as long as a stolen sample is unreplaced and the bound
// (analysis/steal.ts's retakeBound) allows. The rule that says a sample is stolen is the
// analysis's, so the run re-takes exactly what the estimates will exclude.

import { isStolen, retakeBound, type Stealable, stealOf } from "../analysis/steal.ts";
import { fmt } from "../report/format.ts";

/** The terminal's progress lines (stderr), where a run says what it re-takes. */
const stderrLog = (message: string) => {
  process.stderr.write(`${message}\n`);
};

/** What the re-takes need of the run's options. */
export interface RetakeOptions {
  readonly maxSteal: number;
  /** Planned samples per process (or pair) and scenario. */
  readonly samples: number;
}

/** The stolen samples of `taken` that no re-take has replaced yet. */
export function unreplaced(taken: readonly Stealable[], max: number): number {
  const stolen = taken.filter((t) => isStolen(t, max)).length;
  return Math.max(0, stolen - taken.filter((t) => t.retake).length);
}

/**
 * Takes samples again for those of `taken` lost to steal (appending each re-take to it), up to
 * the bound; `take(sample)` measures one, numbered after the planned ones, and gives undefined
 * when the process (or pair) must stop. False when it did.
 */
export async function retakeStolen<T extends Stealable>(
  options: RetakeOptions,
  label: string,
  taken: T[],
  take: (sample: number) => Promise<T | undefined>,
  log: (line: string) => void = stderrLog,
): Promise<boolean> {
  const { maxSteal, samples } = options;
  const bound = retakeBound(samples);
  let retakes = 0;
  while (unreplaced(taken, maxSteal) > 0 && retakes < bound) {
    retakes++;
    log(
      `  ${label}: re-taking a sample lost to CPU steal (≥ ${maxSteal}% of the server's core): ` +
        `${retakes} of at most ${bound}`,
    );
    const trial = await take(samples + retakes);
    if (!trial) return false;
    taken.push(trial);
  }
  const left = unreplaced(taken, maxSteal);
  if (left > 0) {
    log(
      `  ${label}: ${left} sample(s) lost to CPU steal could not be re-taken ` +
        `(at most ${bound} re-take(s) here): excluded, not replaced`,
    );
  }
  return true;
}

/** " · STEAL 23.4%: excluded" on the progress line of a sample lost to steal; "" otherwise. */
export function stealMark(t: Stealable, max: number): string {
  return isStolen(t, max) ? ` · STEAL ${fmt(stealOf(t), 1)}%: excluded` : "";
}
