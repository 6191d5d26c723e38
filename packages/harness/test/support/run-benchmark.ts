// Runs ./benchmark.sh as a user would (bash, from the repository root) with the Bun running
// the tests, and collects its output.

import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/index.ts";

export const BENCHMARK = join(REPO_ROOT, "benchmark.sh");

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts it; `onStderr` sees the progress so far each time more arrives. */
export function startBenchmark(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  onStderr?: (stderr: string, pid: number) => void,
): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn("bash", [BENCHMARK, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_BUN: process.execPath, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr, child.pid as number);
  });
  const done = new Promise<Finished>((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

export const runBenchmark = (args: readonly string[], env?: Readonly<Record<string, string>>) =>
  startBenchmark(args, env).done;
