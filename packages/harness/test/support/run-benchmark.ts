// Runs ./benchmark.sh as a user would (bash, from the repository root) with the Bun running
// the tests, and collects its output.

import { expect } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/index.ts";

export const BENCHMARK = join(REPO_ROOT, "benchmark.sh");

/** oha on the PATH or where `cargo install` puts it: where benchmark.sh looks for it too. */
export const hasOha = (process.env.PATH ?? "")
  .split(":")
  .concat(join(process.env.HOME ?? "", ".cargo/bin"))
  .some((dir) => existsSync(join(dir, "oha")));

/**
 * Marks every process these tests start: the harness passes its environment on to the apps
 * and the load generators, so a leftover is found by this tag (what we started), never by
 * its name (a `cargo install oha` beside the suite is not ours).
 */
export const TEST_TAG = `bench-test-${process.pid}-${Date.now()}`;

/**
 * The history the suite's runs record into: one of their own, never the user's
 * (results/history.sqlite); a test that reads it passes its own BENCH_HISTORY.
 */
export const TEST_HISTORY = join(tmpdir(), `${TEST_TAG}-history.sqlite`);

/**
 * The samples a run planned: re-takes of samples lost to CPU steal left out. A busy host (a
 * CI runner's hypervisor) adds re-takes at the end of a process or pair, so a test that counts
 * or orders samples counts these planned ones; the re-takes stay in the run's results.
 */
export const planned = <T extends { readonly retake?: true }>(trials: readonly T[]): T[] =>
  trials.filter((t) => !t.retake);

/** Processes still running that carry this run's tag (this test process aside). */
export function taggedProcesses(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (!environ.includes(`BENCH_TEST_TAG=${TEST_TAG}`)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      // A zombie has exited already; its parent has yet to reap it.
      const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      if (state !== "Z") found.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Starts it; `onStderr` sees the progress so far each time more arrives. `via`: a command to
 * start it through (`ip netns exec NAME`).
 */
export function startBenchmark(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  onStderr?: (stderr: string, pid: number) => void,
  via: readonly string[] = [],
): { child: ChildProcess; done: Promise<Finished> } {
  const [file, ...rest] = [...via, "bash", BENCHMARK, ...args] as [string, ...string[]];
  const child = spawn(file, rest, {
    cwd: REPO_ROOT,
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

/**
 * Expects the run to have ended with `code`; when it did not, its stderr is printed first, so a
 * failure in CI (where only the test's output remains) shows why the run ended as it did.
 */
export function expectExit(run: Pick<Finished, "code" | "stderr">, code: number): void {
  if (run.code !== code) {
    console.error(`ended with ${run.code}, not ${code}; its stderr:\n${run.stderr}`);
  }
  expect(run.code).toBe(code);
}

export const runBenchmark = (args: readonly string[], env?: Readonly<Record<string, string>>) =>
  startBenchmark(args, env).done;
