// The start-up summary from synthetic starts: which apps get a row, and the median and range of
// each figure. Expected values are worked out by hand from the listed starts (sorted, middle
// value or mean of the two middle ones); nothing is started here.
import { describe, expect, test } from "bun:test";
import { startupRows } from "../src/analysis/startup.ts";
import type { Startup } from "../src/results/schema.ts";

const start = (readyMs: number, rssReadyMiB: number, fresh: boolean, rssIdleMiB?: number) =>
  ({
    readyMs,
    rssReadyMiB,
    fresh,
    ...(rssIdleMiB === undefined ? {} : { rssIdleMiB }),
  }) as Startup;

describe("start-up rows", () => {
  test("only apps with at least one start get a row, in the apps' order", () => {
    const rows = startupRows([
      { name: "never-started" },
      { name: "b", startups: [start(10, 40, false)] },
      { name: "no-figures", startups: [] },
      { name: "a", startups: [start(20, 50, true)] },
    ]);
    expect(rows.map((r) => r.app)).toEqual(["b", "a"]);
    expect(startupRows([])).toEqual([]);
  });

  test("median and range over the starts, fresh ones counted", () => {
    // readyMs 30, 10, 50, 20 → sorted 10 20 30 50: median (20 + 30) / 2 = 25, range 10–50.
    // rssReady 41, 45, 40, 44 → sorted 40 41 44 45: median (41 + 44) / 2 = 42.5.
    // rssIdle only where measured: 43, 47, 42 → sorted 42 43 47: median 43, range 42–47.
    const [row] = startupRows([
      {
        name: "node-hono",
        startups: [
          start(30, 41, false, 43),
          start(10, 45, true, 47),
          start(50, 40, true),
          start(20, 44, false, 42),
        ],
      },
    ]);
    expect(row).toEqual({
      app: "node-hono",
      starts: 4,
      fresh: 2,
      readyMs: { median: 25, min: 10, max: 50 },
      rssReadyMiB: 42.5,
      rssIdleMiB: { median: 43, min: 42, max: 47 },
    });
  });

  test("one start: median, min and max are that start", () => {
    const [row] = startupRows([{ name: "bun-bare", startups: [start(7, 30, true, 31)] }]);
    expect(row).toEqual({
      app: "bun-bare",
      starts: 1,
      fresh: 1,
      readyMs: { median: 7, min: 7, max: 7 },
      rssReadyMiB: 30,
      rssIdleMiB: { median: 31, min: 31, max: 31 },
    });
  });

  test("no idle figure on any start: the idle columns are not numbers, not zeros", () => {
    const [row] = startupRows([
      { name: "deno-hono", startups: [start(12, 35, false), start(14, 37, false)] },
    ]);
    expect(row?.fresh).toBe(0);
    expect(row?.readyMs).toEqual({ median: 13, min: 12, max: 14 });
    expect(row?.rssIdleMiB.median).toBeNaN();
    expect(row?.rssIdleMiB.min).toBeNaN();
    expect(row?.rssIdleMiB.max).toBeNaN();
  });
});
