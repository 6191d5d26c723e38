// Re-takes of samples lost to steal (run/retake.ts), on a stand-in `take` that hands out
// samples of a steal the test chooses: what is re-taken, how many at most, when it stops.

import { describe, expect, spyOn, test } from "bun:test";
import { retakeStolen, stealMark, unreplaced } from "../src/run/retake.ts";

interface Fake {
  readonly stealPercent: number;
  readonly retake?: true;
  readonly sample: number;
}

const planned = (...steal: number[]): Fake[] =>
  steal.map((s, i) => ({ stealPercent: s, sample: i + 1 }));

/** A take() whose re-takes read `steal` in turn; it records the sample numbers asked for. */
function taker(...steal: number[]) {
  const asked: number[] = [];
  const take = async (sample: number): Promise<Fake | undefined> => {
    asked.push(sample);
    const s = steal[asked.length - 1];
    return s === undefined ? undefined : { stealPercent: s, sample, retake: true };
  };
  return { asked, take };
}

describe("unreplaced", () => {
  test("stolen samples less the re-takes taken, never below 0", () => {
    expect(unreplaced(planned(0, 20, 30), 15)).toBe(2);
    expect(unreplaced([...planned(0, 20), { stealPercent: 1, sample: 3, retake: true }], 15)).toBe(
      0,
    );
    // a stolen re-take replaces nothing: it is one more stolen sample
    expect(unreplaced([...planned(20), { stealPercent: 40, sample: 2, retake: true }], 15)).toBe(1);
    const lone: Fake[] = [{ stealPercent: 0, sample: 2, retake: true }];
    expect(unreplaced(lone, 15)).toBe(0); // a re-take with nothing stolen to replace
    expect(unreplaced(planned(20, 99), 100)).toBe(0);
  });
});

describe("retakeStolen", () => {
  const options = { maxSteal: 15, samples: 3 };

  test("nothing stolen: nothing taken", async () => {
    const taken = planned(0, 5, 14.9);
    const { asked, take } = taker(0);
    const lines: string[] = [];
    expect(await retakeStolen(options, "x", taken, take, (l) => lines.push(l))).toBe(true);
    expect(lines).toEqual([]);
    expect(asked).toEqual([]);
    expect(taken).toHaveLength(3);
  });

  test("a stolen sample is taken again, numbered after the planned ones", async () => {
    const taken = planned(0, 40, 0);
    const { asked, take } = taker(2);
    const lines: string[] = [];
    expect(await retakeStolen(options, "x", taken, take, (l) => lines.push(l))).toBe(true);
    // replaced: no line says a sample could not be
    expect(lines).toEqual([
      "  x: re-taking a sample lost to CPU steal (≥ 15% of the server's core): 1 of at most 2",
    ]);
    expect(asked).toEqual([4]);
    expect(taken.at(-1)).toEqual({ stealPercent: 2, sample: 4, retake: true });
  });

  test("a stolen re-take is taken again while the bound allows (half the planned, up)", async () => {
    const taken = planned(30, 30, 0);
    const { asked, take } = taker(40, 1, 1);
    const lines: string[] = [];
    expect(await retakeStolen(options, "bun-bare · api", taken, take, (l) => lines.push(l))).toBe(
      true,
    );
    expect(lines).toEqual([
      "  bun-bare · api: re-taking a sample lost to CPU steal (≥ 15% of the server's core): 1 of at most 2",
      "  bun-bare · api: re-taking a sample lost to CPU steal (≥ 15% of the server's core): 2 of at most 2",
      "  bun-bare · api: 1 sample(s) lost to CPU steal could not be re-taken (at most 2 re-take(s) here): excluded, not replaced",
    ]);
    expect(asked).toEqual([4, 5]); // retakeBound(3) = 2
    expect(unreplaced(taken, 15)).toBe(1); // 3 stolen, 2 re-taken
  });

  test("by default the lines go to the terminal's stderr, one each", async () => {
    const written: string[] = [];
    const spy = spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await retakeStolen(options, "y", planned(0, 40, 0), taker(1).take);
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual([
      "  y: re-taking a sample lost to CPU steal (≥ 15% of the server's core): 1 of at most 2\n",
    ]);
  });

  test("stops, false, when the process must stop", async () => {
    const taken = planned(30, 0);
    const { asked, take } = taker();
    expect(await retakeStolen({ maxSteal: 15, samples: 2 }, "x", taken, take)).toBe(false);
    expect(asked).toEqual([3]);
  });

  test("off (100): never re-takes", async () => {
    const taken = planned(99, 99);
    const { asked, take } = taker(0);
    expect(await retakeStolen({ maxSteal: 100, samples: 2 }, "x", taken, take)).toBe(true);
    expect(asked).toEqual([]);
  });
});

describe("stealMark", () => {
  test("the progress line's mark for a stolen sample, none for a clean one", () => {
    expect(stealMark({ stealPercent: 23.44 }, 15)).toBe(" · STEAL 23.4%: excluded");
    expect(stealMark({ stealPercent: 40, serverStealPercent: 3 }, 15)).toBe("");
    expect(stealMark({ stealPercent: 14 }, 15)).toBe("");
  });
});
