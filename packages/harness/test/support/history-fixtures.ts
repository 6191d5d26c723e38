// Sessions as the history keeps them, for the store's and the history's tests.

import type { SessionRecord } from "../../src/history/store.ts";

/** A session of testbed tb1 and settings k1: bun-bare's req/s and node-bare's ratio to it. */
export function session(run: string, startedAt: string, estimate = Math.log(1000)): SessionRecord {
  return {
    run,
    testbed: {
      id: "tb1",
      cpuModel: "Test CPU",
      cores: 2,
      memoryGiB: 8,
      virtualization: "kvm",
      kernel: "Linux 6.1",
    },
    settingsKey: "k1",
    settings: { mode: "one at a time" },
    startedAt,
    finishedAt: startedAt,
    commit: "abc",
    dirty: false,
    versions: { bun: "1.4.5" },
    source: "/tmp/r",
    estimates: [
      { app: "bun-bare", reference: "", scenario: "api", metric: "rps", estimate, se: 0.01, n: 3 },
      {
        app: "node-bare",
        reference: "bun-bare",
        scenario: "api",
        metric: "rps-ratio",
        estimate: -1,
        se: 0.02,
        n: 3,
        x: 2.3,
      },
    ],
  };
}
