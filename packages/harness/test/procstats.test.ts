// /proc/stat read the way the judgement needs it.
import { describe, expect, test } from "bun:test";
import { machineTicks } from "../src/procstats.ts";

const STAT = [
  "cpu  1000 20 300 5000 40 6 70 80 0 0",
  "cpu0 600 10 200 1000 10 3 60 50 0 0",
  "cpu1 400 10 100 4000 30 3 10 30 0 0",
  "intr 12345",
].join("\n");

describe("machineTicks", () => {
  test("steal from the all-CPU line, idle + iowait of the CPUs asked for", () => {
    expect(machineTicks([0], STAT)).toEqual({ steal: 80, idle: 1010 });
    expect(machineTicks([1], STAT)).toEqual({ steal: 80, idle: 4030 });
    expect(machineTicks([0, 1], STAT)).toEqual({ steal: 80, idle: 5040 });
    expect(machineTicks([], STAT)).toEqual({ steal: 80, idle: 0 });
  });

  test("this machine's /proc/stat reads", () => {
    expect(machineTicks([0]).idle).toBeGreaterThan(0);
  });
});
