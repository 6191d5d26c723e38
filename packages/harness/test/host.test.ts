// hosts/host.ts: what a host does on its own machine. onPath is command -v: the first
// executable file of that name on the PATH.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPath } from "../src/hosts/host.ts";

describe("onPath", () => {
  test("finds the first executable file of the name, skipping what is not one", () => {
    const root = mkdtempSync(join(tmpdir(), "onpath-"));
    try {
      const dirs = ["plain", "folder", "exec", "later"].map((d) => join(root, d));
      for (const d of dirs) mkdirSync(d);
      writeFileSync(join(dirs[0] as string, "tool"), "not executable");
      mkdirSync(join(dirs[1] as string, "tool"));
      chmodSync(join(dirs[1] as string, "tool"), 0o755);
      for (const d of dirs.slice(2)) {
        writeFileSync(join(d, "tool"), "#!/bin/sh\n");
        chmodSync(join(d, "tool"), 0o755);
      }
      const path = `/nowhere::${dirs.join(":")}`;
      expect(onPath("tool", path)).toBe(join(dirs[2] as string, "tool"));
      expect(onPath("absent", path)).toBeUndefined();
      expect(onPath("tool", "")).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
