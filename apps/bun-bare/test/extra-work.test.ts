// The calibration's extra work (BENCH_EXTRA_WORK): off unless asked for, a bad value refused at
// start, and when on, every route still answers the contract, only later.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { extraWork, spin, withExtraWork } from "@bench/fetch-bare/extra-work";

const APP = join(import.meta.dir, "..", "src", "app.ts");

test("unset or empty: no extra work, and the handler is the app's own, unwrapped", () => {
  expect(extraWork(undefined)).toBeUndefined();
  expect(extraWork("")).toBeUndefined();
  const handler = () => 1;
  expect(withExtraWork(undefined, handler)).toBe(handler);
  // In a calibration every row is wrapped, 0 iterations too: rows differ by the loop alone.
  expect(withExtraWork(0, handler)).not.toBe(handler);
  expect(withExtraWork(0, handler)()).toBe(1);
  expect(withExtraWork(10, handler)).not.toBe(handler);
});

test("a value that is not a whole number of iterations is an error, not a silent 0", () => {
  for (const bad of ["abc", "-1", "1.5", "1e400"]) {
    expect(() => extraWork(bad)).toThrow(/BENCH_EXTRA_WORK must be a whole number/);
  }
  expect(extraWork("1000")).toBe(1000);
  expect(extraWork("0")).toBe(0);
});

test("the loop does the work it is asked for: more iterations, another result", () => {
  expect(spin(1000)).not.toBe(spin(1001));
});

test("bun-bare refuses to start with a bad BENCH_EXTRA_WORK", () => {
  const r = spawnSync(process.execPath, ["-e", `await import(${JSON.stringify(APP)})`], {
    env: { ...process.env, BENCH_EXTRA_WORK: "lots" },
    encoding: "utf8",
  });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('BENCH_EXTRA_WORK must be a whole number of iterations, got "lots"');
});

test("with extra work, bun-bare still answers every contract case", async () => {
  const code = `
    const { serveOptions, extraIterations } = await import(${JSON.stringify(APP)});
    const { getApp } = await import("@bench/contract");
    const { checkCases } = await import("@bench/contract/check");
    const server = Bun.serve({ ...serveOptions, port: 0, hostname: "127.0.0.1" });
    const origin = "http://127.0.0.1:" + server.port;
    const violations = await checkCases((r) => fetch(r), getApp("bun-bare"), origin, false);
    server.stop(true);
    console.log(JSON.stringify({ extraIterations, violations }));`;
  const r = spawnSync(process.execPath, ["-e", code], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, BENCH_EXTRA_WORK: "5000" },
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(JSON.parse(r.stdout)).toEqual({ extraIterations: 5000, violations: [] });
});
