// The plan of a run: pinning and the interleaved order, without starting anything.
import { describe, expect, test } from "bun:test";
import {
  cpuList,
  type Pinning,
  pinningPlan,
  remotePlan,
  roundOrder,
  serverPinning,
} from "../src/common/plan.ts";

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
    expect(cpuList("12-15")).toEqual([12, 13, 14, 15]);
    expect(cpuList(undefined)).toEqual([]);
    // an empty set is no CPU, not CPU 0
    expect(cpuList("")).toEqual([]);
  });
});

// Every pinning a machine of 1 to 64 cores can get, for 1 to cores + 1 workers: the invariants
// a run relies on, checked against sets built by counting (0..cores-1), not by the plan's code.
describe("pinning, every machine size and worker count", () => {
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);
  const plans: { cores: number; workers: number; plan: Pinning }[] = [];
  for (let cores = 1; cores <= 64; cores++) {
    for (let workers = 1; workers <= cores + 1; workers++) {
      plans.push({ cores, workers, plan: pinningPlan(true, cores, true, workers) });
    }
  }

  test("pinned exactly when the generator keeps at least one CPU of its own", () => {
    for (const { cores, workers, plan } of plans) {
      expect({ cores, workers, enabled: plan.enabled }).toEqual({
        cores,
        workers,
        enabled: cores >= 2 && workers < cores,
      });
    }
  });

  test("server and generator never share a CPU, and together use every CPU once", () => {
    const wrong: unknown[] = [];
    for (const { cores, workers, plan } of plans.filter((p) => p.plan.enabled)) {
      const server = cpuList(plan.serverCpus);
      const load = cpuList(plan.loadCpus);
      const loadSet = new Set(load);
      const facts = {
        shared: server.filter((cpu) => loadSet.has(cpu)),
        outside: [...server, ...load].filter((cpu) => cpu < 0 || cpu >= cores),
        // the server on the first CPUs (0..workers-1), the generator on all the others
        server: server.join(),
        all: [...server, ...load].join(),
        serverCores: plan.serverCores - server.length,
        loadCores: plan.loadCores - load.length,
        note: plan.note,
      };
      const expected = {
        shared: [],
        outside: [],
        server: upTo(workers).join(),
        all: upTo(cores).join(),
        serverCores: 0,
        loadCores: 0,
        note: undefined,
      };
      if (!Bun.deepEquals(facts, expected)) wrong.push({ cores, workers, facts });
    }
    expect(wrong).toEqual([]);
  });

  test("unpinned: no CPU set, every core counted for both, and a reason", () => {
    for (const { cores, plan } of plans.filter((p) => !p.plan.enabled)) {
      expect(plan.serverCpus).toBeUndefined();
      expect(plan.loadCpus).toBeUndefined();
      expect([plan.serverCores, plan.loadCores]).toEqual([cores, cores]);
      expect(plan.note).toBeTruthy();
    }
  });

  test("each server of a --workers list stays off the generator's CPUs", () => {
    // a run of --workers 1,2,...,W is planned for W workers; every smaller server reuses it
    const wrong: unknown[] = [];
    for (const { cores, workers: most, plan } of plans.filter((p) => p.plan.enabled)) {
      const load = new Set(cpuList(plan.loadCpus));
      for (let workers = 1; workers <= most; workers++) {
        const p = serverPinning(plan, workers);
        const server = cpuList(p.serverCpus);
        const ok =
          server.length === workers &&
          server.every((cpu, i) => cpu === i && !load.has(cpu)) &&
          p.loadCpus === plan.loadCpus &&
          p.serverCores === workers &&
          p.loadCores === cores - most &&
          p.enabled;
        if (!ok) wrong.push({ cores, most, workers, plan: p });
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("pinning, exact plans", () => {
  test("eight cores, three workers: 0-2 and 3-7", () => {
    expect(pinningPlan(true, 8, true, 3)).toEqual({
      enabled: true,
      serverCpus: "0-2",
      loadCpus: "3-7",
      serverCores: 3,
      loadCores: 5,
    });
  });

  test("three cores, two workers: the generator's one CPU is written alone", () => {
    expect(pinningPlan(true, 3, true, 2)).toMatchObject({ serverCpus: "0-1", loadCpus: "2" });
  });

  test("the reasons for not pinning, word for word", () => {
    // without a flag, a single core and no taskset: the three reasons a run can print
    expect(pinningPlan(false, 8, true).note).toBe("--no-pin");
    expect(pinningPlan(true, 1, true)).toEqual({
      enabled: false,
      note: "1 core",
      serverCores: 1,
      loadCores: 1,
    });
    expect(pinningPlan(true, 4, false)).toEqual({
      enabled: false,
      note: "taskset not installed (util-linux)",
      serverCores: 4,
      loadCores: 4,
    });
    // --no-pin wins over a missing taskset, and a single core over both
    expect(pinningPlan(false, 4, false).note).toBe("--no-pin");
    expect(pinningPlan(true, 1, false).note).toBe("1 core");
  });

  test("one worker by default", () => {
    expect(pinningPlan(true, 4, true)).toEqual(pinningPlan(true, 4, true, 1));
  });

  test("a smaller server of the same run: its own CPUs, the generator's unchanged", () => {
    const plan = pinningPlan(true, 8, true, 4);
    expect(serverPinning(plan, 1)).toEqual({
      enabled: true,
      serverCpus: "0",
      loadCpus: "4-7",
      serverCores: 1,
      loadCores: 4,
    });
    expect(serverPinning(plan, 2)).toMatchObject({ serverCpus: "0-1", serverCores: 2 });
    // an unpinned plan stays as it is, whatever the worker count
    const shared = pinningPlan(false, 8, true);
    expect(serverPinning(shared, 4)).toBe(shared);
  });
});

describe("remotePlan: the server on its own host, the load generator on this one", () => {
  test("pinned to the first CPUs of the server's host, the generator on every core here", () => {
    expect(remotePlan(true, 8, true, 1, 2)).toEqual({
      enabled: true,
      serverCpus: "0",
      serverCores: 1,
      loadCores: 2,
      separate: true,
    });
    expect(remotePlan(true, 8, true, 8, 4)).toMatchObject({ serverCpus: "0-7", serverCores: 8 });
  });

  test("unpinned, each side has its whole machine, and the note says why", () => {
    const off = (note: string) => ({
      enabled: false,
      note,
      serverCores: 4,
      loadCores: 2,
      separate: true,
    });
    expect(remotePlan(false, 4, true, 1, 2)).toEqual(off("--no-pin"));
    expect(remotePlan(true, 4, false, 1, 2)).toEqual(
      off("taskset not installed on the server host (util-linux)"),
    );
    expect(remotePlan(true, 4, true, 5, 2)).toEqual(off("5 workers on the server host's 4 cores"));
    expect(remotePlan(true, 4, true, 4, 2).enabled).toBe(true);
  });

  test("every worker count of the run keeps the generator's side and the separation", () => {
    const plan = serverPinning(remotePlan(true, 8, true, 4, 2), 2);
    expect(plan).toMatchObject({ serverCpus: "0-1", serverCores: 2, loadCores: 2, separate: true });
  });
});
