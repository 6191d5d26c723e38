// The harness's own command line (run.ts by hand; benchmark.sh checks the same first).
import { describe, expect, test } from "bun:test";
import { parseOptions } from "../src/options.ts";

const BASE = [
  "--duration",
  "1",
  "--warmup",
  "0",
  "--connections",
  "1",
  "--trials",
  "1",
  "--tool",
  "wrk",
];
const parse = (...args: string[]) =>
  parseOptions([...BASE, "--tool-path", process.execPath, "--out", "/tmp/unused", ...args]);

describe("parseOptions", () => {
  test("apps and scenarios are taken once each, in the order given", () => {
    const options = parse("--apps", "node-bare,bun-bare", "--scenarios", "api,echo");
    expect(options.apps.map((a) => a.name)).toEqual(["node-bare", "bun-bare"]);
    expect(options.scenarios.map((s) => s.name)).toEqual(["api", "echo"]);
  });

  test("an app or a scenario given twice is refused: it would be measured twice", () => {
    expect(() => parse("--apps", "bun-bare,node-bare,bun-bare", "--scenarios", "api")).toThrow(
      '--apps gives app "bun-bare" twice',
    );
    expect(() => parse("--apps", "bun-bare", "--scenarios", "api,api")).toThrow(
      '--scenarios gives scenario "api" twice',
    );
  });

  test("a middleware stage brings api along, first, as the baseline of its tax", () => {
    const stages = parse("--apps", "bun-bare", "--scenarios", "auth,gzip");
    expect(stages.scenarios.map((s) => s.name)).toEqual(["api", "auth", "gzip"]);
    expect(stages.apiAdded).toBe(true);
    const listed = parse("--apps", "bun-bare", "--scenarios", "gzip,api");
    expect(listed.scenarios.map((s) => s.name)).toEqual(["gzip", "api"]);
    expect(listed.apiAdded).toBeUndefined();
    const plain = parse("--apps", "bun-bare", "--scenarios", "echo");
    expect(plain.scenarios.map((s) => s.name)).toEqual(["echo"]);
    expect(plain.apiAdded).toBeUndefined();
  });
});
