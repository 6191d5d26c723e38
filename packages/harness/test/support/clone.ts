// A throwaway clone of this checkout as it is now (its uncommitted and untracked files
// committed on top), and a commit in it that makes bun-bare far costlier per request: what the
// --against and history tests measure against.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/index.ts";
import { type Finished, TEST_HISTORY, TEST_TAG } from "./run-benchmark.ts";

export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 2 ** 20,
  });

/** A clone of this checkout as it is now: committed, then its uncommitted and untracked files. */
export function cloneHere(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "bench-against-")), "repo");
  git(REPO_ROOT, "clone", "--quiet", "--no-local", REPO_ROOT, dir);
  const diff = git(REPO_ROOT, "diff", "HEAD", "--binary");
  if (diff.trim() !== "") {
    const patch = join(dir, "..", "changes.patch");
    writeFileSync(patch, diff);
    git(dir, "apply", "--whitespace=nowarn", patch);
  }
  const untracked = git(REPO_ROOT, "ls-files", "--others", "--exclude-standard", "-z")
    .split("\0")
    .filter(Boolean);
  for (const file of untracked) {
    execFileSync("install", ["-D", join(REPO_ROOT, file), join(dir, file)]);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "--allow-empty", "-m", "this checkout as it is");
  return dir;
}

/** bun-bare does 200,000 more loop iterations per request: about 20× its own cost. */
export function plantCost(dir: string): void {
  const file = join(dir, "apps", "bun-bare", "src", "app.ts");
  const source = readFileSync(file, "utf8");
  const planted = source.replace(
    "export const extraIterations = extraWork(process.env[EXTRA_WORK_ENV]);",
    "export const extraIterations = extraWork(process.env[EXTRA_WORK_ENV]) ?? 200_000;",
  );
  if (planted === source)
    throw new Error("bun-bare's app.ts changed: the planted cost has no anchor");
  writeFileSync(file, planted);
  git(dir, "commit", "--quiet", "-am", "bun-bare: 200,000 iterations per request");
}

/** `benchmark.sh ARGS` of the clone at `dir`, tagged as this suite's, into the suite's history. */
export function benchmarkIn(
  dir: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn("bash", [join(dir, "benchmark.sh"), ...args], {
      cwd: dir,
      env: {
        ...process.env,
        BENCH_BUN: process.execPath,
        BENCH_TEST_TAG: TEST_TAG,
        BENCH_HISTORY: TEST_HISTORY,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
