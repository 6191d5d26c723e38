// The side-by-side section of the reports (report/side-by-side.ts) on synthetic runs analysed
// by analysis/ratios.ts: each row's cells (rank, ratio with its interval, ±, CPU µs, req/s, pairs,
// samples), its flags and notes, and --against's verdict lines. The expected figures were
// worked out by hand and with scipy (t intervals; detectable sizes from the noncentral t).
import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import {
  AGAINST_HEADER,
  againstCells,
  againstLine,
  SIDE_HEADER,
  sideCells,
  sideNotes,
} from "../src/report/side-by-side.ts";
import type { PairTrial, Results } from "../src/results/schema.ts";
import { ratioTrials, wobbling } from "./support/side-fixtures.ts";
import { syntheticPairTrial, syntheticRun, syntheticSideRun } from "./support/synthetic.ts";

const W4 = [1.01, 0.99, 1.02, 0.98];

/** `run` with `app` failed to start. */
const failing = (run: Results, app: string): Results => ({
  ...run,
  apps: run.apps.map((a) =>
    a.name === app ? { ...a, status: "failed" as const, failure: "did not start" } : a,
  ),
});

const group = (run: Results) => analyze(run).side?.groups.get("api");
const cellsOf = (run: Results) => group(run)?.rows.map(sideCells);

/** bun-hono 1.2× the reference, bun-elysia ≈ it, deno-bare failed: four rounds of one sample. */
const TABLE = failing(
  syntheticSideRun(
    [
      ["bun-bare", "bun-hono"],
      ["bun-bare", "bun-elysia"],
      ["bun-bare", "deno-bare"],
    ],
    [
      ...wobbling("bun-bare", "bun-hono", 1.2, W4),
      ...wobbling("bun-bare", "bun-elysia", 1, [1.012, 0.99, 1.006, 0.996]),
    ],
  ),
  "deno-bare",
);

describe("the side-by-side table", () => {
  test("the reference: rank 1, ×1 by definition, its own µs over every pair's process", () => {
    expect(cellsOf(TABLE)?.[0]).toEqual([
      "1",
      "bun-bare",
      "×1.000 (the reference)",
      "—",
      "10.00",
      "40,000",
      "4",
      "8/8",
    ]);
  });

  test("a row clearly dearer: its rank, ratio with the 95% CI over rounds, and ± as a share", () => {
    // ln(1.2 w), a crossover of two arrangements (rounds 1, 3 and 2, 4): mean ln 1.19985,
    // se 0.003537 on 2 df, interval 1.1817–1.2182, half-width 1.52% (computed apart, in
    // Python); 12.12, 11.88, 12.24, 11.76 µs.
    expect(cellsOf(TABLE)?.[2]).toEqual([
      "3",
      "bun-hono",
      "×1.200 (1.182–1.218)",
      "±1.5%",
      "12.00",
      "40,000",
      "4",
      "4/4",
    ]);
  });

  test("a row the rounds cannot tell from the reference: ≈, with what it could have detected", () => {
    // Geometric mean 1.00096 (0.9919–1.0101, the crossover on 2 df); detectable at 0.05/3
    // two-sided, 80% power (noncentral t, numerical integration): 2.11%.
    expect(cellsOf(TABLE)?.[1]).toEqual([
      "≈1 (could detect ≥ 2.1%)",
      "bun-elysia",
      "≈×1.001 (0.992–1.010)",
      "±0.9%",
      "10.01",
      "40,000",
      "4",
      "4/4",
    ]);
  });

  test("a failed app: flagged, and no figure in any column", () => {
    expect(cellsOf(TABLE)?.[3]).toEqual([
      "—",
      "deno-bare ⚠️ failed",
      "—",
      "—",
      "—",
      "—",
      "0",
      "0/0",
    ]);
  });

  test("the header names every column once", () => {
    expect(SIDE_HEADER).toHaveLength(cellsOf(TABLE)?.[0]?.length ?? 0);
    expect(new Set(SIDE_HEADER.filter((h) => h.length > 0)).size).toBe(SIDE_HEADER.length);
    expect(SIDE_HEADER[2]).toBe("CPU per request (× reference, 95% CI)");
  });
});

/**
 * bun-hono 1.2× in rounds 1–4, one of its samples at the generators' ceiling and contended,
 * round 4's reference slowed by the machine (12 µs against a median of 10); node-bare 2.2× in
 * rounds 5–6 only, with an invalid sample in round 7.
 */
const FLAGGED = (() => {
  const hono = wobbling("bun-bare", "bun-hono", 1.2, W4).map((t) =>
    t.round === 1
      ? {
          ...t,
          checks: {
            ...t.checks,
            generatorCeiling: true,
            contended: true,
            notes: ["round 1: the generators at 100%"],
          },
        }
      : t.round === 4
        ? syntheticPairTrial("bun-bare", "bun-hono", 4, 1, 12_000, 12_000 * 1.2 * 0.98)
        : t,
  );
  const invalid: PairTrial = {
    ...syntheticPairTrial("bun-bare", "node-bare", 7, 1, 10_000, 22_000),
    checks: {
      ...syntheticPairTrial("bun-bare", "node-bare", 7, 1, 1, 1).checks,
      valid: false,
      invalidReasons: ["node-bare: 3 failed requests"],
    },
  };
  return syntheticSideRun(
    [
      ["bun-bare", "bun-hono"],
      ["bun-bare", "node-bare"],
    ],
    [...hono, ...ratioTrials("bun-bare", "node-bare", [[2.2], [2.2]], 5), invalid],
  );
})();

describe("flags, notes, and rows with too few pairs", () => {
  test("two pairs: the ratio without an interval or ±; ≈ the row before it, nothing to detect", () => {
    // node-bare shares no round with bun-hono: untestable against it, so tied, with no size.
    expect(cellsOf(FLAGGED)?.[2]).toEqual([
      "≈2",
      "node-bare ⚠️ invalid 1/3 ⚠️ 2 pairs",
      "×2.200 (too few pairs for a CI)",
      "—",
      "22.00",
      "40,000",
      "2",
      "2/3",
    ]);
  });

  test("each flag after the app's name, lower-cased; the µs include the disturbed round", () => {
    const cells = cellsOf(FLAGGED);
    expect(cells?.[1]?.[1]).toBe(
      "bun-hono ⚠️ generator ceiling 1/4 ⚠️ contended 1/4 ⚠️ disturbed 1/4",
    );
    // 12.12, 11.88, 12.24 and 14.112 µs (its reference at 12 µs in round 4).
    expect(cells?.[1]?.[4]).toBe("12.59");
    // The reference over six processes, one at 12 µs; every valid sample of its pairs counted.
    expect(cells?.[0]?.slice(1, 8)).toEqual([
      "bun-bare ⚠️ invalid 1/7 ⚠️ generator ceiling 1/6 ⚠️ contended 1/6",
      "×1.000 (the reference)",
      "—",
      "10.33",
      "40,000",
      "6",
      "6/7",
    ]);
  });

  test("notes: every flag's text, the row's sample notes once, after its last flag", () => {
    const g = group(FLAGGED);
    const notes = g ? sideNotes(g) : [];
    const hono = notes.filter((n) => n.app === "bun-hono");
    expect(hono.map((n) => n.text)).toEqual([
      "GENERATOR CEILING 1/4: the generators used all they can while the servers' core had room: a cost measured below saturation",
      "CONTENDED 1/4: something else had the servers' core, or CPU steal was high (see the notes)",
      "DISTURBED 1/4: the reference's own CPU time per request was 15% or more above its median: the machine slowed down, which unlike runtimes need not feel alike (kept)",
    ]);
    expect(hono.map((n) => n.notes)).toEqual([[], [], ["round 1: the generators at 100%"]]);
    expect(notes.filter((n) => n.app === "node-bare")).toEqual([
      {
        app: "node-bare",
        text: "INVALID 1/3 (node-bare: 3 failed requests): excluded",
        notes: [],
      },
      {
        app: "node-bare",
        text: "2 pairs of processes with valid samples: too few for a CI",
        notes: [],
      },
    ]);
  });

  test("no flags, no notes", () => {
    const g = group(TABLE);
    expect(g ? sideNotes(g).map((n) => n.app) : undefined).toEqual(["deno-bare"]);
  });
});

const AGAINST = { against: { ref: "HEAD~1", commit: "1a2b3c4d5e6f7a8b" } };
// Wobbles that do not follow the arrangements (odd rounds against even ones), which the
// crossover would cancel: each arrangement keeps a spread of its own.
const SMALL = [1.002, 1.001, 0.998, 0.999, 1, 1];
const at = (app: string) => `${app}@1a2b3c4`;

/** An --against run of `rows`: each app against itself at the commit, 2% threshold. */
function againstRun(rows: [string, PairTrial[]][]): Results {
  return syntheticSideRun(
    rows.map(([app]) => [at(app), app]),
    rows.flatMap(([, trials]) => trials),
    AGAINST,
  );
}

/** Six rounds each: 10% dearer, 10% cheaper, +0.3%, and +1.5% under a ±3% wobble. */
const VERDICT_ROWS: [string, PairTrial[]][] = [
  ["bun-bare", wobbling(at("bun-bare"), "bun-bare", 1.1, SMALL)],
  ["bun-hono", wobbling(at("bun-hono"), "bun-hono", 0.9, SMALL)],
  ["node-bare", wobbling(at("node-bare"), "node-bare", 1.003, SMALL)],
  [
    "deno-bare",
    wobbling(at("deno-bare"), "deno-bare", 1.015, [1.03, 1.02, 0.97, 0.98, 1.01, 0.99]),
  ],
  ["bun-elysia", []],
  ["node-hono", ratioTrials(at("node-hono"), "node-hono", [[1.05]])],
];
const VERDICTS = failing(againstRun(VERDICT_ROWS), "bun-elysia");

describe("--against", () => {
  test("one line per app: the change with its CI, the one-sided p, what was detectable, the verdict", () => {
    // Crossovers on 4 df, computed apart in Python (t quantiles, and the detectable size from
    // the noncentral t one-sided at 0.05/4, four apps tested, 80% power, by integration).
    expect(againstCells(analyze(VERDICTS)).slice(0, 4)).toEqual([
      ["bun-bare", "api", "+10.0% (+9.8% to +10.2%)", "< 0.001", "≥ 0.3%", "SLOWER"],
      ["bun-hono", "api", "−10.0% (−10.2% to −9.8%)", "< 0.001", "≥ 0.3%", "faster"],
      [
        "node-bare",
        "api",
        "+0.3% (+0.1% to +0.5%)",
        "0.005",
        "≥ 0.3%",
        "no change beyond the threshold",
      ],
      [
        "deno-bare",
        "api",
        "+1.5% (−1.5% to +4.5%)",
        "0.121",
        "≥ 5.0%",
        "inconclusive: not shown within ±2.0% (detectable ≥ 5.0%)",
      ],
    ]);
  });

  test("an app that failed, and one with a single round: no figure, and said why", () => {
    expect(againstCells(analyze(VERDICTS)).slice(4)).toEqual([
      ["bun-elysia", "api", "—", "—", "—", "FAILED"],
      ["node-hono", "api", "—", "—", "—", "not measured"],
    ]);
  });

  test("the outcome line names every slower app, with the commit and the threshold", () => {
    expect(againstLine(analyze(VERDICTS))).toBe(
      "SLOWER than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: bun-bare (api)",
    );
    const two = againstRun([
      ["bun-bare", wobbling(at("bun-bare"), "bun-bare", 1.1, SMALL)],
      ["node-bare", wobbling(at("node-bare"), "node-bare", 1.2, SMALL)],
    ]);
    expect(againstLine(analyze(two))).toEndWith(": bun-bare (api), node-bare (api)");
  });

  test("no app slower, each faster or within the threshold: said so", () => {
    const faster = againstRun([["bun-hono", wobbling(at("bun-hono"), "bun-hono", 0.9, SMALL)]]);
    expect(againstLine(analyze(faster))).toBe(
      "no app slower than HEAD~1 (1a2b3c4d5e6f) by 2.0% or more: each faster or within ±2.0%",
    );
  });

  test("none slower but one unsettled: the last line says INCONCLUSIVE, naming it", () => {
    // VERDICTS without its slower row: deno-bare inconclusive, bun-elysia failed, node-hono
    // with one round (untestable)
    const rows = VERDICT_ROWS.filter(([app]) => app !== "bun-bare");
    const line = againstLine(analyze(failing(againstRun(rows), "bun-elysia"))) ?? "";
    const [head, , named] = line.split(": ");
    expect(head).toBe("INCONCLUSIVE against HEAD~1 (1a2b3c4d5e6f)");
    expect(
      named
        ?.replace(/ \(--fail-inconclusive.*$/, "")
        .split(", ")
        .sort(),
    ).toEqual(["bun-elysia (api)", "deno-bare (api)", "node-hono (api)"]);
    expect(line).toEndWith("(--fail-inconclusive makes this exit 1)");
  });

  test("too few pairs for a CI: the change alone", () => {
    const few = againstRun([["bun-hono", ratioTrials(at("bun-hono"), "bun-hono", [[0.9], [0.9]])]]);
    expect(againstCells(analyze(few))[0]?.[2]).toBe("−10.0% (too few pairs for a CI)");
  });

  test("without --against, or not side by side: no lines", () => {
    expect(againstCells(analyze(TABLE))).toEqual([]);
    expect(againstLine(analyze(TABLE))).toBeUndefined();
    const plain = analyze(syntheticRun(["bun-bare"], ["api"], []));
    expect(againstCells(plain)).toEqual([]);
    expect(againstLine(plain)).toBeUndefined();
  });

  test("the header names every column once", () => {
    expect(AGAINST_HEADER).toHaveLength(6);
    expect(new Set(AGAINST_HEADER.filter((h) => h.length > 0)).size).toBe(6);
  });
});
