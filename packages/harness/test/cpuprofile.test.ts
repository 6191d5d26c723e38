// Reading a .cpuprofile: sample counts per function, idle apart, and the shape checks.
import { describe, expect, test } from "bun:test";
import {
  type CpuProfile,
  ProfileError,
  readCpuProfile,
  shortUrl,
  summarizeProfile,
} from "../src/profiles/cpuprofile.ts";

const frame = (functionName: string, url = "", lineNumber = -1) => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
});

/** root, idle, GC, a hono function (twice: two call sites), one of ours, an anonymous one. */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)") },
    { id: 2, callFrame: frame("(idle)") },
    { id: 3, callFrame: frame("(garbage collector)") },
    {
      id: 4,
      callFrame: frame(
        "compose",
        "file:///r/node_modules/.bun/hono@4/node_modules/hono/dist/compose.js",
        23,
      ),
    },
    {
      id: 5,
      callFrame: frame(
        "compose",
        "file:///r/node_modules/.bun/hono@4/node_modules/hono/dist/compose.js",
        23,
      ),
    },
    { id: 6, callFrame: frame("echo", "file:///r/packages/contract/src/spec.ts", 85) },
    { id: 7, callFrame: frame("", "file:///r/apps/x/src/index.ts", 4) },
  ],
  startTime: 1_000_000,
  endTime: 1_020_000, // 20 ms
  // 10 samples: 2 idle, compose 4 (two node ids), echo 2, GC 1, anonymous 1.
  samples: [4, 5, 2, 6, 4, 3, 2, 6, 7, 5],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe("summarizeProfile", () => {
  const s = summarizeProfile(PROFILE, 10, "/r");

  test("counts self samples per function and place, idle apart", () => {
    expect(s.samples).toBe(10);
    expect(s.idleSamples).toBe(2);
    expect(s.totalMs).toBe(20);
    expect(s.top).toEqual([
      { function: "compose", location: "hono/dist/compose.js:24", samples: 4, percent: 50 },
      { function: "echo", location: "packages/contract/src/spec.ts:86", samples: 2, percent: 25 },
      { function: "(anonymous)", location: "apps/x/src/index.ts:5", samples: 1, percent: 12.5 },
      { function: "(garbage collector)", location: "", samples: 1, percent: 12.5 },
    ]);
  });

  test("coverage is samples × interval over the time covered", () => {
    expect(s.coverage).toBeCloseTo(10_000 / 20_000, 10);
    // A sampler that recorded JavaScript only: 4 samples over 20 ms at 1 ms.
    const sparse = { ...PROFILE, samples: [4, 6, 6, 7], timeDeltas: [1000, 9000, 5000, 4000] };
    expect(summarizeProfile(sparse).coverage).toBeCloseTo(0.2, 10);
    // Never above 1, even with a finer interval than assumed.
    expect(summarizeProfile(PROFILE, 10, "", 5000).coverage).toBe(1);
  });

  test("keeps the top `limit`, ties in name order", () => {
    const two = summarizeProfile(PROFILE, 2, "/r").top.map((f) => f.function);
    expect(two).toEqual(["compose", "echo"]);
  });

  test("a sample of a node the profile lacks is an error, not a silent skip", () => {
    expect(() => summarizeProfile({ ...PROFILE, samples: [4, 99] })).toThrow(ProfileError);
  });
});

describe("readCpuProfile", () => {
  test("accepts the DevTools shape", () => {
    expect(readCpuProfile(JSON.stringify(PROFILE)).samples).toHaveLength(10);
  });

  test.each([
    ["not JSON", "{", /not JSON/],
    ["no nodes", JSON.stringify({ ...PROFILE, nodes: [] }), /no nodes/],
    ["no samples", JSON.stringify({ ...PROFILE, samples: undefined }), /no samples/],
    [
      "samples and deltas of different lengths",
      JSON.stringify({ ...PROFILE, timeDeltas: [1] }),
      /10 samples but 1 timeDeltas/,
    ],
    ["no times", JSON.stringify({ ...PROFILE, endTime: "x" }), /startTime\/endTime/],
    ["a node without callFrame", JSON.stringify({ ...PROFILE, nodes: [{ id: 1 }] }), /callFrame/],
  ])("refuses %s", (_what, text, message) => {
    expect(() => readCpuProfile(text)).toThrow(message);
  });
});

test("shortUrl names the package, or the path inside the repository", () => {
  expect(
    shortUrl("file:///a/node_modules/.bun/x@1/node_modules/@hono/node-server/dist/i.mjs"),
  ).toBe("@hono/node-server/dist/i.mjs");
  expect(shortUrl("file:///repo/apps/a/src/i.ts", "/repo")).toBe("apps/a/src/i.ts");
  expect(shortUrl("/elsewhere/i.ts", "/repo")).toBe("/elsewhere/i.ts");
  expect(shortUrl("node:internal/streams/readable")).toBe("node:internal/streams/readable");
});
