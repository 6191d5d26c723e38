// --side-by-side's plan (side/pairing.ts): which row is measured against which, and the slots
// that alternate so that no row keeps the first address, the first start or the first
// generator.
import { describe, expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import type { AppRun } from "../src/runtimes/runtime-versions.ts";
import {
  both,
  bySlot,
  planPairs,
  referenceSlot,
  SLOT_ADDRESSES,
  secondOf,
} from "../src/side/pairing.ts";

const app = (name: string): AppRun => getApp(name);
const names = (plan: ReturnType<typeof planPairs>) =>
  plan.pairs.map((p) => `${p.app.name} vs ${p.reference.name}`);

describe("the pairs of a run", () => {
  test("several apps: each against the first named, or against --reference", () => {
    const apps = ["node-bare", "bun-bare", "bun-hono"].map(app);
    const first = planPairs(apps, false);
    expect(names(first)).toEqual(["bun-bare vs node-bare", "bun-hono vs node-bare"]);
    expect(first.rows.map((r) => r.name)).toEqual(["node-bare", "bun-bare", "bun-hono"]);
    const chosen = planPairs(apps, false, "bun-bare");
    expect(names(chosen)).toEqual(["node-bare vs bun-bare", "bun-hono vs bun-bare"]);
    // The reference leads the rows.
    expect(chosen.rows.map((r) => r.name)).toEqual(["bun-bare", "node-bare", "bun-hono"]);
  });

  test("one app alone: against itself (A/A), the second row named #2, on the same port", () => {
    const plan = planPairs([app("bun-bare")], false);
    expect(names(plan)).toEqual(["bun-bare#2 vs bun-bare"]);
    expect(plan.rows.map((r) => [r.name, r.port])).toEqual([
      ["bun-bare", 3004],
      ["bun-bare#2", 3004],
    ]);
    expect(secondOf(app("node-hono")).name).toBe("node-hono#2");
  });

  test("per app (versions, commits, calibration rows): each row against its app's first", () => {
    const rows = [
      { ...app("node-hono"), name: "node-hono@22.23.3" },
      { ...app("node-bare"), name: "node-bare@22.23.3" },
      { ...app("node-hono"), name: "node-hono@24.21.0" },
      { ...app("node-bare"), name: "node-bare@24.21.0" },
      { ...app("node-hono"), name: "node-hono@26.1.0" },
    ];
    const plan = planPairs(rows, true);
    expect(names(plan)).toEqual([
      "node-hono@24.21.0 vs node-hono@22.23.3",
      "node-bare@24.21.0 vs node-bare@22.23.3",
      "node-hono@26.1.0 vs node-hono@22.23.3",
    ]);
    expect(plan.rows).toEqual(rows);
    // An app with one row only has nothing to be compared with.
    expect(planPairs([app("bun-bare")], true).pairs).toEqual([]);
  });
});

describe("the slots", () => {
  test("the reference alternates between the slots round by round, shifted by pair", () => {
    expect([1, 2, 3, 4].map((r) => referenceSlot(r, 0))).toEqual([0, 1, 0, 1]);
    expect([1, 2, 3, 4].map((r) => referenceSlot(r, 1))).toEqual([1, 0, 1, 0]);
    expect([1, 2].map((r) => referenceSlot(r, 2))).toEqual([0, 1]);
  });

  test("over two rounds every row of every pair holds each slot once", () => {
    const plan = planPairs(["bun-bare", "bun-hono", "node-bare"].map(app), false);
    const seen = new Map<string, number[]>();
    for (const round of [1, 2]) {
      plan.pairs.forEach((pair, i) => {
        const [zero, one] = bySlot(pair, round, i);
        for (const [slot, row] of [zero, one].entries()) {
          const key = `${i}:${row.name}`;
          seen.set(key, [...(seen.get(key) ?? []), slot]);
        }
      });
    }
    for (const slots of seen.values()) expect(slots.sort()).toEqual([0, 1]);
    expect(seen.size).toBe(4);
    // Slot 0 is the first address: the reference there in round 1.
    expect(bySlot(plan.pairs[0] as never, 1, 0).map((a) => a.name)).toEqual([
      "bun-bare",
      "bun-hono",
    ]);
    expect(SLOT_ADDRESSES).toEqual(["127.0.0.1", "127.0.0.2"]);
  });

  test("both: one value per slot, in slot order", () => {
    expect(both((slot) => SLOT_ADDRESSES[slot])).toEqual(["127.0.0.1", "127.0.0.2"]);
  });
});
