// One measurement: run the load generator once against a running server and sample both
// processes from /proc while it runs; measure.ts turns the samples into the figures over the
// load window.

import { type ChildProcess, spawn } from "node:child_process";
import { connectionsHeld } from "@bench/contract";
import {
  type LoadRun,
  loadWindow,
  ratesOver,
  type Sample,
  windowed,
  workerUse,
} from "./measure.ts";
import { againstExpected, type LoadResult, PARSERS, ParseError } from "./parse.ts";
import { cpuTicks, isAlive, machineTicks, rssBytes, treeCpuTicks } from "./procstats.ts";
import type { ToolCommand, ToolInfo } from "./tools.ts";

/** How often the server and the tool are sampled. */
export const SAMPLE_MS = 100;

interface Spawned {
  readonly child: ChildProcess;
  readonly output: Promise<{ exit: string; stdout: string; stderr: string; hung: boolean }>;
}

function spawnTool(cmd: ToolCommand, hardLimitMs: number): Spawned {
  const [file, ...args] = cmd.argv as [string, ...string[]];
  const child = spawn(file, args, {
    env: { ...process.env, ...cmd.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString("utf8")).slice(-65536);
  });
  let hung = false;
  const killer = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, hardLimitMs);
  const output = new Promise<{ exit: string; stdout: string; stderr: string; hung: boolean }>(
    (done) => {
      const finish = (exit: string) => {
        clearTimeout(killer);
        done({ exit, stdout, stderr, hung });
      };
      child.once("close", (code, signal) => finish(signal ?? String(code)));
      child.once("error", (error) => finish(`spawn error: ${error.message}`));
    },
  );
  return { child, output };
}

/** What is sampled while the load runs. */
export interface Sampled {
  readonly serverTree: readonly number[];
  /** --workers: the worker processes (in serverTree too), and the port whose connections they hold. */
  readonly workers?: { readonly pids: readonly number[]; readonly port: number };
  /** CPUs of the server's own set (pinned); empty when it shares the machine. */
  readonly serverCpus: readonly number[];
  readonly machineCores: number;
}

/** Runs `cmd` once; `onChild` sees the tool's process (to stop it on Ctrl-C). */
export async function runLoad(
  tool: ToolInfo,
  cmd: ToolCommand,
  requestedSec: number,
  { serverTree, serverCpus, machineCores, workers }: Sampled,
  onChild: (child: ChildProcess | undefined) => void = () => {},
): Promise<LoadRun> {
  const samples: Sample[] = [];
  let peakRss = 0;
  let held: Map<number, number> | undefined;
  // The tool stops itself at the deadline; this bound only catches a hung tool.
  const hardLimitMs = (requestedSec + 30) * 1000;
  const spawnedMs = performance.now();
  const { child, output } = spawnTool(cmd, hardLimitMs);
  onChild(child);
  const sample = () => {
    const toolTicks = child.pid && child.exitCode === null ? cpuTicks(child.pid) : 0;
    // A tool that is gone reads 0: such a sample would fake a negative rate; skip it.
    if (toolTicks === 0 && samples.length > 0) return;
    const machine = machineTicks(serverCpus);
    samples.push({
      t: performance.now(),
      serverTicks: treeCpuTicks(serverTree),
      toolTicks,
      stealTicks: machine.steal,
      serverIdleTicks: machine.idle,
      ...(workers ? { workerTicks: workers.pids.map(cpuTicks) } : {}),
    });
    // Halfway through, the connections are open and spread: who holds them is who serves.
    if (workers && !held && performance.now() - spawnedMs >= (requestedSec * 1000) / 2) {
      held = connectionsHeld(workers.port, workers.pids);
    }
    peakRss = Math.max(
      peakRss,
      serverTree.reduce((sum, pid) => sum + rssBytes(pid), 0),
    );
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  const out = await output;
  clearInterval(timer);
  const exitedMs = performance.now();
  onChild(undefined);
  peakRss = Math.max(
    peakRss,
    serverTree.reduce((sum, pid) => sum + rssBytes(pid), 0),
  );
  let result: LoadResult | null = null;
  let problem: string | undefined;
  if (out.hung)
    problem = `${tool.name} did not finish within ${hardLimitMs / 1000} s and was killed`;
  else {
    try {
      const parsed = PARSERS[tool.name](cmd.resultOn === "stdout" ? out.stdout : out.stderr);
      const measured = windowed(tool, parsed, requestedSec);
      result = againstExpected(measured, cmd.expectedStatus, cmd.allowance);
    } catch (error) {
      const detail = error instanceof ParseError ? error.message : String(error);
      problem = `${tool.name} exited ${out.exit}; its output could not be read: ${detail} ${out.stderr.slice(-300)}`;
    }
  }
  const durationSec = result?.durationSec ?? requestedSec;
  const window = loadWindow(spawnedMs, exitedMs, durationSec, requestedSec);
  const rates = ratesOver(samples, window, machineCores, serverCpus.length) ?? {
    serverCpuPercent: 0,
    loadCpuPercent: 0,
    stealPercent: 0,
    windowSec: 0,
  };
  return {
    command: cmd.argv.map(String),
    result,
    ...(problem ? { problem } : {}),
    rates,
    peakRssBytes: peakRss,
    ...(workers
      ? {
          workers: workerUse(samples, window, workers.pids, held ?? new Map(), isAlive),
          primaryRssBytes: rssBytes(serverTree[0] ?? 0),
        }
      : {}),
  };
}
