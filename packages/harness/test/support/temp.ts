// Temporary folders a test file makes, each removed after the file's last test: one folder per
// test under the system's temporary folder added up to hundreds a test run (bench-options- alone
// about 140). Call tempDirs() at the file's top level (it registers the afterAll there).

import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A maker of temporary folders named PREFIX…, all removed after the calling file's tests. */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
