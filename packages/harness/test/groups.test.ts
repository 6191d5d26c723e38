// What one summary table covers: the groups of a run's settings, which trials fall in each, and
// the texts that name them. Expected keys are written out by hand from the naming rule
// ("scenario (c=N, w=M)", a tag only for a setting the run measured at several values).
import { describe, expect, test } from "bun:test";
import {
  connectionsText,
  type Group,
  groupsOf,
  inGroup,
  roundsMeasured,
  scenarioOfKey,
  workersText,
} from "../src/analysis/groups.ts";
import type { Results } from "../src/results/schema.ts";

type Settings = Results["manifest"]["settings"];

/** A run's settings with only what grouping reads; the rest is never looked at here. */
const settings = (patch: Partial<Settings>): Settings =>
  ({ scenarios: ["api"], connections: 100, ...patch }) as Settings;
const run = (patch: Partial<Settings>) => ({ manifest: { settings: settings(patch) } }) as never;

describe("groups of a run", () => {
  // toStrictEqual: a group carries only the counts it is about, with no `connections:
  // undefined` key (no reader tells the two apart today; this pins the shape its type describes)
  test("one scenario at one setting: one group named after it, with no tags", () => {
    expect(groupsOf(run({}))).toStrictEqual([{ key: "api", scenario: "api" }]);
    // a list of one count is not several: still no tag
    expect(groupsOf(run({ connectionCounts: [100], workerCounts: [2] }))).toStrictEqual([
      { key: "api", scenario: "api" },
    ]);
  });

  test("several scenarios: one group each, in the run's order", () => {
    expect(groupsOf(run({ scenarios: ["db", "api"] }))).toEqual([
      { key: "db", scenario: "db" },
      { key: "api", scenario: "api" },
    ]);
  });

  test("several connection counts: a group per count", () => {
    expect(groupsOf(run({ connectionCounts: [1, 10] }))).toStrictEqual([
      { key: "api (c=1)", scenario: "api", connections: 1 },
      { key: "api (c=10)", scenario: "api", connections: 10 },
    ]);
  });

  test("several worker counts: a group per count", () => {
    expect(groupsOf(run({ workerCounts: [1, 4] }))).toStrictEqual([
      { key: "api (w=1)", scenario: "api", workers: 1 },
      { key: "api (w=4)", scenario: "api", workers: 4 },
    ]);
  });

  test("both, for two scenarios: scenario, then connections, then workers", () => {
    const keys = groupsOf(
      run({ scenarios: ["api", "db"], connectionCounts: [10, 400], workerCounts: [1, 2] }),
    ).map((g) => g.key);
    expect(keys).toEqual([
      "api (c=10, w=1)",
      "api (c=10, w=2)",
      "api (c=400, w=1)",
      "api (c=400, w=2)",
      "db (c=10, w=1)",
      "db (c=10, w=2)",
      "db (c=400, w=1)",
      "db (c=400, w=2)",
    ]);
    expect(groupsOf(run({ connectionCounts: [10, 400], workerCounts: [1, 2] }))[1]).toEqual({
      key: "api (c=10, w=2)",
      scenario: "api",
      connections: 10,
      workers: 2,
    });
  });
});

describe("which trials a group holds", () => {
  const trial = (scenario: string, connections: number, workers?: number) => ({
    scenario,
    connections,
    ...(workers === undefined ? {} : { workers }),
  });
  const api: Group = { key: "api", scenario: "api" };
  const c10: Group = { key: "api (c=10)", scenario: "api", connections: 10 };
  const w2: Group = { key: "api (w=2)", scenario: "api", workers: 2 };
  const w1: Group = { key: "api (w=1)", scenario: "api", workers: 1 };
  const both: Group = { key: "api (c=10, w=2)", scenario: "api", connections: 10, workers: 2 };

  test("a group without tags: every trial of its scenario, and only those", () => {
    expect(inGroup(trial("api", 10, 2), api)).toBe(true);
    expect(inGroup(trial("api", 400), api)).toBe(true);
    expect(inGroup(trial("db", 10, 2), api)).toBe(false);
  });

  test("a connection count: only trials that opened that many", () => {
    expect(inGroup(trial("api", 10), c10)).toBe(true);
    expect(inGroup(trial("api", 9), c10)).toBe(false);
    expect(inGroup(trial("db", 10), c10)).toBe(false);
  });

  test("a worker count: a trial without one ran one process", () => {
    expect(inGroup(trial("api", 10, 2), w2)).toBe(true);
    expect(inGroup(trial("api", 10, 1), w2)).toBe(false);
    expect(inGroup(trial("api", 10), w2)).toBe(false);
    expect(inGroup(trial("api", 10), w1)).toBe(true);
    expect(inGroup(trial("db", 10, 2), w2)).toBe(false);
  });

  test("both counts: both must match", () => {
    expect(inGroup(trial("api", 10, 2), both)).toBe(true);
    expect(inGroup(trial("api", 10, 1), both)).toBe(false);
    expect(inGroup(trial("api", 400, 2), both)).toBe(false);
    expect(inGroup(trial("db", 10, 2), both)).toBe(false);
  });
});

describe("the rounds a run measured", () => {
  const at = (...rounds: number[]) => rounds.map((round) => ({ round }));
  test("each round with a sample counts once, one at a time and side by side alike", () => {
    expect(roundsMeasured({ trials: at(1, 1, 2, 4) } as never)).toBe(3);
    expect(roundsMeasured({ trials: at(1), pairTrials: at(2, 3, 3) } as never)).toBe(3);
    expect(roundsMeasured({ trials: [], pairTrials: at(5) } as never)).toBe(1);
    expect(roundsMeasured({ trials: [] } as never)).toBe(0);
  });
});

describe("the scenario a key names", () => {
  test("every tag form comes off; nothing else does", () => {
    expect(scenarioOfKey("api")).toBe("api");
    expect(scenarioOfKey("api (c=100)")).toBe("api");
    expect(scenarioOfKey("api (w=16)")).toBe("api");
    expect(scenarioOfKey("db-read (c=1000, w=12)")).toBe("db-read");
    // only a tag at the end is a tag
    expect(scenarioOfKey("a (c=1) b")).toBe("a (c=1) b");
    // and only tags with counts
    expect(scenarioOfKey("api (c=x)")).toBe("api (c=x)");
    expect(scenarioOfKey("api (w=x)")).toBe("api (w=x)");
  });

  test("round trip: every group's key gives back its scenario", () => {
    const groups = groupsOf(
      run({ scenarios: ["api", "json-big"], connectionCounts: [1, 256], workerCounts: [1, 32] }),
    );
    for (const g of groups) expect(scenarioOfKey(g.key)).toBe(g.scenario);
  });
});

describe("the texts naming a run's settings", () => {
  test("connections: the count, or the list of counts", () => {
    expect(connectionsText(settings({ connections: 400 }))).toBe("400");
    expect(connectionsText(settings({ connections: 100, connectionCounts: [1, 10, 100] }))).toBe(
      "1, 10, 100",
    );
  });

  test("workers: one process, one count, or the list", () => {
    expect(workersText(settings({}))).toBe("1 process per app");
    expect(workersText(settings({ workers: 1 }))).toBe("1 process per app");
    expect(workersText(settings({ workerCounts: [1] }))).toBe("1 process per app");
    expect(workersText(settings({ workers: 2 }))).toBe("2 worker(s) per app");
    expect(workersText(settings({ workerCounts: [2] }))).toBe("2 worker(s) per app");
    expect(workersText(settings({ workers: 4, workerCounts: [1, 2, 4] }))).toBe(
      "1, 2, 4 worker(s) per app",
    );
  });
});
