// run/rounds.ts: how many rounds a run takes. Fixed without --precision; with it, at least the
// floor, then one more at a time until the target is reached, the time would run out, or the
// run is done. A stand-in loop records synthetic trials, so the stop rule is tested alone.
import { describe, expect, test } from "bun:test";
import type { Results } from "../src/results/schema.ts";
import type { Options } from "../src/run/options.ts";
import type { Recorder } from "../src/run/record.ts";
import { type RoundLoop, runRounds } from "../src/run/rounds.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

interface Stand {
  readonly loop: RoundLoop;
  readonly results: Results;
  readonly lines: string[];
  rounds: number[];
  saves: number;
}

/** A loop whose round n records one trial of `rpsOf(n)` req/s; done after `doneAfter` rounds. */
function stand(
  options: Pick<Options, "rounds" | "precision">,
  rpsOf: (round: number) => number,
  doneAfter = Number.POSITIVE_INFINITY,
  interruptedAt?: number,
): Stand {
  const results = syntheticRun(["bun-bare"], ["api"], []);
  const s: Stand = {
    results,
    lines: [],
    rounds: [],
    saves: 0,
    loop: {
      options,
      recorder: {
        results,
        save: () => {
          s.saves++;
        },
      } as unknown as Recorder,
      done: () => s.rounds.length >= doneAfter,
      interrupted: () => s.rounds.at(-1) === interruptedAt,
      round: async (n) => {
        s.rounds.push(n);
        results.trials.push(syntheticTrial("bun-bare", "api", n, 64, rpsOf(n), 10));
      },
      log: (line) => s.lines.push(line),
    },
  };
  return s;
}

const steady = () => 1000;
const noisy = (n: number) => (n % 2 === 0 ? 600 : 1400);

describe("runRounds", () => {
  test("without --precision: exactly the rounds asked, recorded, saved once", async () => {
    const s = stand({ rounds: 4 }, noisy);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2, 3, 4]);
    expect(s.results.manifest.settings.trials).toBe(4);
    expect(s.results.precision).toBeUndefined();
    expect(s.lines).toEqual([]);
    expect(s.saves).toBe(1);
  });

  test("a run that is done early records the rounds it ran", async () => {
    const s = stand({ rounds: 5 }, steady, 2);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2]);
    expect(s.results.manifest.settings.trials).toBe(2);
    const none = stand({ rounds: 5 }, steady, 0);
    await runRounds(none.loop);
    expect(none.results.manifest.settings.trials).toBe(1);
  });

  test("--precision reached at the floor: no round beyond it", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 3600 } }, steady);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2, 3]);
    expect(s.results.precision).toMatchObject({ reached: true, rounds: 3 });
    expect(s.lines).toHaveLength(3);
  });

  test("--precision not reached: more rounds while they fit, until the run is done", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 60 } }, noisy, 7);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(s.results.precision?.reached).toBe(false);
    expect(s.results.precision?.rounds).toBe(7);
    expect(s.results.precision?.widest?.halfWidth).toBeGreaterThan(0.01);
    expect(s.results.manifest.settings.trials).toBe(7);
  });

  test("--precision not reached and no time left: it stops at the floor", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 0 } }, noisy, 10);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2, 3]);
    expect(s.results.precision).toMatchObject({ reached: false, rounds: 3 });
  });

  test("--precision with no round run: not reached, and no widest to name", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 3600 } }, steady, 0);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([]);
    expect(s.results.precision?.reached).toBe(false);
    expect(s.results.precision?.rounds).toBe(0);
    expect(s.results.precision && "widest" in s.results.precision).toBe(false);
  });

  test("--precision stopped before any interval: the widest is infinite, so none is named", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 3600 } }, noisy, 2);
    await runRounds(s.loop);
    expect(s.results.precision).toMatchObject({ reached: false, rounds: 2 });
    expect(s.results.precision && "widest" in s.results.precision).toBe(false);
  });

  test("a round that would not fit in what is left is not started", async () => {
    // Rounds of 50 ms on the loop's own clock (no machine's speed in it): after three, 150 ms
    // have gone; a fourth would end at 200 ms, past 170 and not past 200.
    const timed = (maxTimeSec: number) => {
      const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec } }, noisy, 10);
      // The clock starts where a real one would (performance.now() is never 0 by then): the
      // time gone is a difference, not the clock's reading.
      let clock = 5_000;
      const round = s.loop.round;
      const loop = {
        ...s.loop,
        now: () => clock,
        round: async (n: number) => {
          clock += 50;
          await round(n);
        },
      };
      return { s, loop };
    };
    const short = timed(0.17);
    await runRounds(short.loop);
    expect(short.s.rounds).toEqual([1, 2, 3]);
    expect(short.s.results.precision).toMatchObject({ reached: false, elapsedSec: 0.15 });
    const exact = timed(0.2);
    await runRounds(exact.loop);
    expect(exact.s.rounds).toEqual([1, 2, 3, 4]);
  });

  test("an interrupted round is not judged", async () => {
    const s = stand({ rounds: 3, precision: { target: 0.01, maxTimeSec: 3600 } }, steady, 3, 2);
    await runRounds(s.loop);
    expect(s.rounds).toEqual([1, 2, 3]);
    expect(s.lines).toHaveLength(2);
  });
});
