// runtimes/runtimes.ts's install limit: one limit for every install a run makes, set by
// BENCH_INSTALL_TIMEOUT, whose default scripts/bootstrap.sh states too.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../src/index.ts";
import { RuntimeError } from "../src/runtimes/runtime-versions.ts";
import { INSTALL_LIMIT_SEC, installLimitMs } from "../src/runtimes/runtimes.ts";

describe("the install limit", () => {
  test("BENCH_INSTALL_TIMEOUT in whole seconds, else the default; anything else refused", () => {
    expect(installLimitMs({})).toBe(INSTALL_LIMIT_SEC * 1000);
    expect(installLimitMs({ BENCH_INSTALL_TIMEOUT: "" })).toBe(INSTALL_LIMIT_SEC * 1000);
    expect(installLimitMs({ BENCH_INSTALL_TIMEOUT: "7" })).toBe(7000);
    for (const bad of ["0", "-5", "1.5", "10m", "abc"]) {
      expect(() => installLimitMs({ BENCH_INSTALL_TIMEOUT: bad })).toThrow(RuntimeError);
    }
  });

  test("is bootstrap.sh's: the same default there, and no other limit among its installs", () => {
    const script = readFileSync(join(REPO_ROOT, "scripts", "bootstrap.sh"), "utf8");
    expect(script).toContain(`local limit=\${BENCH_INSTALL_TIMEOUT:-${INSTALL_LIMIT_SEC}}`);
    // every install runs under bootstrap_run with that limit, none with a number of its own
    const limits = [...script.matchAll(/bootstrap_run "[^"]*" (\S+)/g)].map((m) => m[1]);
    expect(limits.length).toBeGreaterThanOrEqual(4);
    expect(new Set(limits)).toEqual(new Set(['"$limit"']));
  });

  test("the docs state that default", () => {
    const running = readFileSync(join(REPO_ROOT, "docs", "running.md"), "utf8");
    expect(running.replace(/\s+/g, " ")).toContain(
      `stops after ${INSTALL_LIMIT_SEC / 60} minutes (\`BENCH_INSTALL_TIMEOUT\`, seconds)`,
    );
  });
});
