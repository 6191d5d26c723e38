// What a run needs of this machine: room for its connections (open files, local ports), the
// open-file limit the apps and load generators inherit from the harness's Bun.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { openFileLimits, roomFor } from "../src/run/environment.ts";
import { EnvironmentError } from "../src/run/errors.ts";

const PORTS = "32768\t60999\n";

describe("room for the connections", () => {
  test("/proc/self/limits read: soft and hard, unlimited as Infinity, nothing where absent", () => {
    const text = (soft: string, hard: string) =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                 ${hard}                files\n`;
    expect(openFileLimits(text("1024", "524288"))).toEqual({ soft: 1024, hard: 524288 });
    expect(openFileLimits(text("1024", "unlimited"))).toEqual({ soft: 1024, hard: Infinity });
    expect(openFileLimits("")).toBeUndefined();
    expect(openFileLimits()?.soft).toBeGreaterThan(0);
  });

  test("within the limit: nothing to say", () => {
    expect(() => roomFor(744, { soft: 1000, hard: 4000 }, PORTS)).not.toThrow();
  });

  test("past the limit: the limit and the fix, one line", () => {
    const message =
      "-c 1000 needs about 1256 open files per process, but the limit is 1000 (hard limit 1000): " +
      "raise it (ulimit -n 1256, as root or in /etc/security/limits.conf) or use fewer connections";
    expect(() => roomFor(745, { soft: 1000, hard: 1000 }, PORTS)).toThrow(
      "-c 745 needs about 1001 open files",
    );
    expect(() => roomFor(1000, { soft: 1000, hard: 1000 }, PORTS)).toThrow(
      new EnvironmentError(message),
    );
  });

  test("more connections than one address has local ports: refused", () => {
    const limits = { soft: 100_000, hard: 100_000 };
    expect(() => roomFor(28_232, limits, PORTS)).not.toThrow();
    expect(() => roomFor(28_233, limits, PORTS)).toThrow(
      "-c 28233 is more connections than the 28232 local ports one address has",
    );
    expect(() => roomFor(50_000, limits, "")).not.toThrow();
  });

  // What the check relies on: the harness's Bun raises its soft limit to the hard one, and
  // what it starts inherits it (benchmark.sh raises nothing).
  const hard = openFileLimits()?.hard ?? 0;
  test.skipIf(hard < 2000)(
    "Bun started with a soft limit of 600: it and its children get the hard one",
    () => {
      const script = `const { spawnSync } = require("node:child_process");
const soft = (t) => /^Max open files\\s+(\\d+)/m.exec(t)[1];
console.log(soft(require("node:fs").readFileSync("/proc/self/limits", "utf8")));
console.log(spawnSync("bash", ["-c", "ulimit -S -n"], { encoding: "utf8" }).stdout.trim());`;
      const r = spawnSync(
        "bash",
        ["-c", `ulimit -S -n 600 && exec "$0" -e "$1"`, process.execPath, script],
        {
          encoding: "utf8",
        },
      );
      expect(r.stderr).toBe("");
      expect(r.stdout.trim().split("\n")).toEqual([String(hard), String(hard)]);
    },
  );
});
