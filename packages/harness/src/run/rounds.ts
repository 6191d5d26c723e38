// The rounds of a run: `rounds` of them, or with --precision at least that many and then one
// more at a time until every width the target applies to is within it, or the next round
// would not fit in --max-time. What a round does is the caller's (each app in turn, or each
// pair side by side); how the rounds ended goes into results.json.

import { analyze } from "../analysis/analysis.ts";
import type { Options } from "./options.ts";
import { precisionStatus, progressText, roundFits } from "./precision.ts";
import type { Recorder } from "./record.ts";

export interface RoundLoop {
  readonly options: Pick<Options, "rounds" | "precision">;
  readonly recorder: Recorder;
  /** Nothing more to do: interrupted, the server's host lost, or every app failed. */
  done(): boolean;
  /** Ctrl-C or TERM: the round that ended is not to be judged. */
  interrupted(): boolean;
  /** One round, 1-based. */
  round(n: number): Promise<void>;
  log(line: string): void;
  /** The clock, in ms (default: performance.now): a test's own, so no machine's speed counts. */
  now?(): number;
}

export async function runRounds(loop: RoundLoop): Promise<void> {
  const { options, recorder } = loop;
  const now = () => loop.now?.() ?? performance.now();
  const started = now();
  const elapsed = () => (now() - started) / 1000;
  let longest = 0;
  let round = 0;
  let reached = false;
  let widest: { what: string; halfWidth: number } | undefined;
  while (!loop.done()) {
    if (round >= options.rounds) {
      const more =
        options.precision &&
        !reached &&
        roundFits(elapsed(), longest, options.precision.maxTimeSec);
      if (!more) break;
    }
    const before = elapsed();
    await loop.round(++round);
    longest = Math.max(longest, elapsed() - before);
    if (!options.precision || loop.interrupted()) continue;
    const status = precisionStatus(analyze(recorder.results), options.precision.target);
    reached = status.reached;
    widest = status.widths[0];
    loop.log(
      progressText(status, options.precision.target, elapsed(), options.precision.maxTimeSec),
    );
  }
  recorder.results.manifest.settings.trials = Math.max(1, round);
  if (options.precision) {
    recorder.results.precision = {
      reached,
      rounds: round,
      elapsedSec: elapsed(),
      ...(widest && Number.isFinite(widest.halfWidth) ? { widest } : {}),
    };
  }
  recorder.save();
}
