// analysis/scaling.ts: the per-worker rows of --workers (medians per rank, in the order the trials
// came), and the cells the workers table shows of them. Synthetic runs; the answers are worked
// out by hand in the comments. Part of the mutation group "reports".

import { describe, expect, test } from "bun:test";
import { workersRows } from "../src/analysis/scaling.ts";
import { WORKERS_HEADER, workersCells } from "../src/report/workers.ts";
import type { Trial, WorkerUse } from "../src/results/schema.ts";
import { expectHeaderOf } from "./support/expect-header.ts";
import { syntheticRun, syntheticTrial } from "./support/synthetic.ts";

describe("per-worker rows (--workers)", () => {
  const worker = (pid: number, cpuPercent: number, connections: number): WorkerUse => ({
    pid,
    cpuPercent,
    connections,
    alive: true,
  });
  /** A trial of `app` on api whose server ran `workers`, the primary and the tree at these RSS. */
  const trial = (
    app: string,
    round: number,
    workers: WorkerUse[],
    primaryRssMiB: number | undefined,
    peakRssMiB: number,
  ): Trial => {
    const t = syntheticTrial(app, "api", round, 64, 10_000, 5);
    return {
      ...t,
      server: {
        ...t.server,
        peakRssMiB,
        workers,
        ...(primaryRssMiB === undefined ? {} : { primaryRssMiB }),
      },
    };
  };
  const RUN = syntheticRun(
    ["node-bare", "bun-bare"],
    ["api"],
    [
      // node-bare first in the trials, so first in the table, although second in the apps.
      // Two workers. Round 2 has an idle worker (0 connections); round 3 one that held exactly 1.
      trial("node-bare", 1, [worker(11, 40, 30), worker(12, 60, 34)], 20, 100),
      trial("node-bare", 2, [worker(21, 1, 0), worker(22, 90, 64)], 22, 110),
      trial("node-bare", 3, [worker(31, 50, 1), worker(32, 45, 63)], 21, 90),
      // A trial from a single process: no per-worker figures, no row.
      syntheticTrial("node-bare", "api", 4, 64, 10_000, 5),
      // bun-bare with four workers, all serving; its primary's RSS not recorded.
      trial(
        "bun-bare",
        1,
        [worker(1, 10, 4), worker(2, 30, 20), worker(3, 20, 10), worker(4, 40, 30)],
        undefined,
        80,
      ),
    ],
  );

  test("one row per app, scenario and count, in the order the trials came; medians per rank", () => {
    const rows = workersRows(RUN);
    expect(rows).toEqual([
      {
        app: "node-bare",
        scenario: "api",
        workers: 2,
        // Round 2's idle worker leaves 1 serving: the fewest in any trial. Round 3's worker with
        // a single connection served.
        served: 1,
        // Busiest first per trial: [60, 40], [90, 1], [50, 45]; medians per rank: 60 and 40.
        cpuPercent: [60, 40],
        // [34, 30], [64, 0], [63, 1]: medians 63 and 1.
        connections: [63, 1],
        primaryRssMiB: 21, // median of 20, 22, 21
        peakRssMiB: 100, // median of 100, 110, 90
      },
      {
        app: "bun-bare",
        scenario: "api",
        workers: 4,
        served: 4,
        // One trial: its own figures, busiest first.
        cpuPercent: [40, 30, 20, 10],
        connections: [30, 20, 10, 4],
        primaryRssMiB: 0, // not recorded: 0
        peakRssMiB: 80,
      },
    ]);
    expect(
      workersRows(
        syntheticRun(["bun-bare"], ["api"], [syntheticTrial("bun-bare", "api", 1, 64, 1, 1)]),
      ),
    ).toEqual([]);
  });

  test("two counts of one app are two rows", () => {
    const two = syntheticRun(
      ["bun-bare"],
      ["api"],
      [
        trial("bun-bare", 1, [worker(1, 50, 32), worker(2, 50, 32)], 10, 50),
        trial("bun-bare", 1, [worker(3, 25, 16), worker(4, 25, 16), worker(5, 25, 16)], 10, 60),
        trial("bun-bare", 2, [worker(6, 70, 40), worker(7, 30, 24)], 12, 70),
      ],
    );
    expect(workersRows(two).map((r) => [r.workers, r.cpuPercent, r.peakRssMiB])).toEqual([
      [2, [60, 40], 60], // [50, 50] and [70, 30]: medians (50+70)/2 and (50+30)/2; RSS (50+70)/2
      [3, [25, 25, 25], 60],
    ]);
  });

  test("the cells: served of started, (!) when some did not, figures per rank", () => {
    const [node, bun] = workersRows(RUN);
    expectHeaderOf(WORKERS_HEADER, workersCells(node as NonNullable<typeof node>));
    expect(workersCells(node as NonNullable<typeof node>)).toEqual([
      "node-bare",
      "api",
      "1 of 2 (!)",
      "60 / 40",
      "63 / 1",
      "21.0",
      "100.0",
    ]);
    expect(workersCells(bun as NonNullable<typeof bun>)).toEqual([
      "bun-bare",
      "api",
      "4 of 4",
      "40 / 30 / 20 / 10",
      "30 / 20 / 10 / 4",
      "0.0",
      "80.0",
    ]);
  });
});
