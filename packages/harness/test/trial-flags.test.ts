// The flags a valid sample can carry, defined once: who has each, their counts, their words.
import { describe, expect, test } from "bun:test";
import {
  chartQualifiers,
  type FlagCounts,
  flagCounts,
  TRIAL_FLAGS,
  tagOf,
  type ValidTrial,
} from "../src/analysis/trial-flags.ts";

/** A valid sample's checks with nothing flagged, then the one change asked for. */
function sample(checks: Record<string, unknown> = {}): ValidTrial {
  return {
    checks: {
      loadGeneratorBound: false,
      unsaturated: false,
      contended: false,
      machineFull: false,
      generatorCeiling: false,
      networkBound: false,
      databaseBound: false,
      littlesLaw: { ok: true },
      ...checks,
    },
  } as unknown as ValidTrial;
}

const NONE: FlagCounts = flagCounts([]);

describe("trial flags", () => {
  test("a flag's tag by its count's name, as the tables print it", () => {
    expect(tagOf("boundTrials")).toBe("LOAD-GENERATOR BOUND");
    expect(tagOf("machineFullTrials")).toBe("MACHINE FULL");
    expect(tagOf("idleTrials")).toBe("IDLE CONNECTIONS");
  });

  test("each counts the valid samples that carry it, and only those", () => {
    const one: [keyof FlagCounts, Record<string, unknown>][] = [
      ["boundTrials", { loadGeneratorBound: true }],
      ["unsaturatedTrials", { unsaturated: true }],
      ["contendedTrials", { contended: true }],
      ["machineFullTrials", { machineFull: true }],
      ["ceilingTrials", { generatorCeiling: true }],
      ["networkTrials", { networkBound: true }],
      ["databaseTrials", { databaseBound: true }],
      ["idleTrials", { littlesLaw: { ok: false } }],
    ];
    expect(Object.keys(NONE).sort()).toEqual(one.map(([k]) => k).sort());
    for (const [key, checks] of one) {
      const counts = flagCounts([sample(), sample(checks), sample(checks)]);
      expect({ key, counts }).toEqual({ key, counts: { ...NONE, [key]: 2 } });
    }
    expect(Object.values(NONE)).toEqual(new Array(one.length).fill(0));
  });

  test("the tags are the tables' words, in the tables' order; each says why it matters", () => {
    expect(TRIAL_FLAGS.map((f) => f.tag)).toEqual([
      "LOAD-GENERATOR BOUND",
      "UNSATURATED",
      "CONTENDED",
      "MACHINE FULL",
      "GENERATOR CEILING",
      "NETWORK-BOUND",
      "DATABASE-BOUND",
      "IDLE CONNECTIONS",
    ]);
    for (const f of TRIAL_FLAGS) {
      expect({ tag: f.tag, explained: f.why.split(" ").length >= 8 }).toEqual({
        tag: f.tag,
        explained: true,
      });
    }
  });

  test("a chart's label: what its bar is, once each, in the flags' order", () => {
    expect(chartQualifiers(NONE)).toEqual([]);
    expect(chartQualifiers({ ...NONE, ceilingTrials: 1, boundTrials: 3 })).toEqual(["lower bound"]);
    expect(chartQualifiers({ ...NONE, machineFullTrials: 1, ceilingTrials: 2 })).toEqual([
      "machine full",
      "lower bound",
    ]);
    expect(
      chartQualifiers({ ...NONE, unsaturatedTrials: 1, contendedTrials: 1, boundTrials: 1 }),
    ).toEqual(["lower bound", "unsaturated", "contended"]);
    // The network, the database and idle connections are noted, not a bar's qualifier.
    expect(
      chartQualifiers({ ...NONE, networkTrials: 1, databaseTrials: 1, idleTrials: 1 }),
    ).toEqual([]);
  });
});
