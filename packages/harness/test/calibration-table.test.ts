// report/calibration-table.ts: the --calibrate table's cells and caption, and no section for a
// run that is not a calibration. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { analyze } from "../src/analysis/analysis.ts";
import type { CalibrationView } from "../src/analysis/calibration.ts";
import {
  CALIBRATION_HEADER,
  calibrationCaption,
  calibrationCells,
} from "../src/report/calibration-table.ts";
import { sections } from "../src/report/sections.ts";
import { expectHeaderOf } from "./support/expect-header.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

describe("calibration (--calibrate)", () => {
  const VIEW: CalibrationView = {
    group: "api",
    base: "bun-bare",
    rows: [
      {
        name: "bun-bare+0%",
        share: 0,
        iterations: 0,
        realized: 0,
        expected: 0,
        measured: 0.004,
        ci: { low: -0.01, high: 0.018 },
        different: false,
        mdd: 0.031,
        rate: 0.04,
      },
      {
        name: "bun-bare+5%",
        share: 0.05,
        iterations: 12_345,
        realized: 0.048,
        expected: 1 / 1.048 - 1, // −4.58%
        measured: -0.05,
        ci: { low: -0.06, high: -0.04 },
        different: true,
        mdd: 0.03,
        rate: 0.9,
      },
      // Untestable: no change, no interval, no detectable figure, no subsampled rate.
      {
        name: "bun-bare+10%",
        share: 0.1,
        iterations: 24_690,
        realized: 0.1,
        expected: 1 / 1.1 - 1,
        different: false,
      },
      // A change without its interval, or an interval without its change, is not shown half.
      {
        name: "bun-bare+2%",
        share: 0.02,
        iterations: 4_938,
        realized: 0.02,
        expected: 1 / 1.02 - 1,
        measured: -0.02,
        different: false,
      },
      {
        name: "bun-bare+1%",
        share: 0.01,
        iterations: 2_469,
        realized: 0.01,
        expected: 1 / 1.01 - 1,
        ci: { low: -0.02, high: 0 },
        different: false,
      },
    ],
    subsample: { rounds: 10, draws: 400 },
  };

  test("the cells: realized extra, expected and measured change, verdict, detectable, rate", () => {
    expect(calibrationCells(VIEW)).toEqual([
      ["bun-bare+0%", "0", "0.0%", "+0.0%", "+0.4% (−1.0% to +1.8%)", "≈ tie", "≥ 3.1%", "4%"],
      [
        "bun-bare+5%",
        "12,345",
        "4.8%",
        "−4.6%",
        "−5.0% (−6.0% to −4.0%)",
        "different",
        "≥ 3.0%",
        "90%",
      ],
      ["bun-bare+10%", "24,690", "10.0%", "−9.1%", "—", "≈ tie", "—", "—"], // 1/1.1 − 1 = −9.09%
      ["bun-bare+2%", "4,938", "2.0%", "−2.0%", "—", "≈ tie", "—", "—"], // 1/1.02 − 1 = −1.96%
      ["bun-bare+1%", "2,469", "1.0%", "−1.0%", "—", "≈ tie", "—", "—"], // 1/1.01 − 1 = −0.99%
    ]);
    expectHeaderOf(CALIBRATION_HEADER, calibrationCells(VIEW)[0]);
  });

  test("the caption: over how many subsamples, or why there are none", () => {
    expect(calibrationCaption(VIEW)).toBe("api: called different over 400 subsamples of 10 rounds");
    const { subsample: _, ...none } = VIEW;
    expect(calibrationCaption(none)).toBe(
      "api: too few rounds for subsampled rates (the run needs more rounds than a default run)",
    );
  });

  test("a run that is not a calibration has no calibration section", () => {
    const run = syntheticRun(
      ["bun-bare"],
      ["api"],
      [syntheticTrial("bun-bare", "api", 1, 64, 1000, 1)],
    );
    expect(sections(analyze(run)).map((s) => s.title)).not.toContain("Calibration");
  });
});
