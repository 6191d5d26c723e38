// The plan of a run: pinning and the interleaved order, without starting anything.
import { describe, expect, test } from "bun:test";
import { cpuList, pinningPlan, roundOrder } from "../src/plan.ts";

describe("round order", () => {
  const apps = ["a", "b", "c", "d"].map((name) => ({ name }));
  test("odd rounds forward, even rounds reversed", () => {
    const names = (round: number) =>
      roundOrder(apps, round)
        .map((a) => a.name)
        .join("");
    expect([1, 2, 3, 4].map(names)).toEqual(["abcd", "dcba", "abcd", "dcba"]);
    // the caller's list is never reordered in place
    expect(apps.map((a) => a.name).join("")).toBe("abcd");
  });
});

describe("pinning", () => {
  test("two cores: server on 0, generator on 1", () => {
    expect(pinningPlan(true, 2, true)).toEqual({
      enabled: true,
      serverCpus: "0",
      loadCpus: "1",
      serverCores: 1,
      loadCores: 1,
    });
  });

  test("sixteen cores: the generator gets the other fifteen", () => {
    const p = pinningPlan(true, 16, true);
    expect([p.loadCpus, p.loadCores, p.serverCores]).toEqual(["1-15", 15, 1]);
  });

  test("unpinned (flag, one core, no taskset): both share the machine, and say why", () => {
    expect(pinningPlan(false, 2, true)).toEqual({
      enabled: false,
      note: "--no-pin",
      serverCores: 2,
      loadCores: 2,
    });
    expect(pinningPlan(true, 1, true)).toMatchObject({
      enabled: false,
      note: "1 core",
      loadCores: 1,
    });
    expect(pinningPlan(true, 4, false)).toMatchObject({ enabled: false, loadCores: 4 });
  });
});

describe("pinning with --workers", () => {
  test("N workers get CPUs 0..N-1, the generator the rest", () => {
    expect(pinningPlan(true, 4, true, 2)).toEqual({
      enabled: true,
      serverCpus: "0-1",
      loadCpus: "2-3",
      serverCores: 2,
      loadCores: 2,
    });
    const p = pinningPlan(true, 16, true, 15);
    expect([p.serverCpus, p.loadCpus, p.serverCores, p.loadCores]).toEqual(["0-14", "15", 15, 1]);
  });

  test("no CPU left for the generator: nothing pinned, every core counted as shared", () => {
    for (const [cores, workers] of [
      [2, 2],
      [4, 4],
      [4, 8],
    ] as const) {
      const p = pinningPlan(true, cores, true, workers);
      expect(p).toMatchObject({ enabled: false, serverCores: cores, loadCores: cores });
      expect(p.note).toBe(
        `${workers} workers on ${cores} cores leave the load generator no CPU of its own`,
      );
    }
  });
});

describe("CPU lists", () => {
  test("taskset's syntax to CPU numbers", () => {
    expect(cpuList("0")).toEqual([0]);
    expect(cpuList("1-3")).toEqual([1, 2, 3]);
    expect(cpuList("0,2-3,7")).toEqual([0, 2, 3, 7]);
    expect(cpuList(undefined)).toEqual([]);
  });
});
