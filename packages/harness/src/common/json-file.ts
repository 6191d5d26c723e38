// Writing a JSON file whole: results.json, a Bencher Metric Format export.

import { renameSync, writeFileSync } from "node:fs";

/** Write-then-rename, so a reader (or a crash) never sees half a file. */
export function writeJson(path: string, value: unknown): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}
