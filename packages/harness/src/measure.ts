// One measurement: run the load generator once against a running server and sample both
// processes from /proc while it runs. CPU figures are taken over the load window proper:
// the tool's own measured time, located at the end of its life (it exits right after its
// load), trimmed at both ends, so neither the tool's start-up nor its exit dilutes them.

import { type ChildProcess, spawn } from "node:child_process";
import { connectionsHeld } from "@bench/contract";
import { againstExpected, type LoadResult, PARSERS, ParseError } from "./parse.ts";
import { CLK_TCK, cpuTicks, isAlive, machineTicks, rssBytes, treeCpuTicks } from "./procstats.ts";
import type { WorkerUse } from "./schema.ts";
import type { ToolCommand, ToolInfo } from "./tools.ts";

/** How often the server and the tool are sampled. */
export const SAMPLE_MS = 100;

export interface Sample {
  /** ms, performance.now() */
  readonly t: number;
  readonly serverTicks: number;
  readonly toolTicks: number;
  readonly stealTicks: number;
  /** Idle ticks of the server's CPU set (0 when it has none of its own). */
  readonly serverIdleTicks: number;
  /** Per worker (--workers), in the order of Sampled.workers. */
  readonly workerTicks?: readonly number[];
}

export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The load window inside [spawned, exited]: it ends `durationSec` after it starts and the
 * tool exits right after it (oha -w waits for stragglers past `requestedSec`: only the
 * requested part carries the load). Trimmed by a tenth (at most 250 ms) at each end.
 */
export function loadWindow(
  spawnedMs: number,
  exitedMs: number,
  durationSec: number,
  requestedSec: number,
): Window {
  const loadMs = Math.min(durationSec, requestedSec) * 1000;
  const start = Math.max(spawnedMs, exitedMs - durationSec * 1000);
  const end = Math.min(exitedMs, start + loadMs);
  const trim = Math.min(250, (end - start) / 10);
  return { startMs: start + trim, endMs: end - trim };
}

export interface WindowRates {
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  readonly stealPercent: number;
  /** Idle share of the server's CPU set; undefined when it has none of its own (unpinned). */
  readonly serverCoreIdlePercent?: number;
  readonly windowSec: number;
}

/** CPU over the samples inside the window; undefined when fewer than two fall in it. */
export function ratesOver(
  samples: readonly Sample[],
  window: Window,
  cores: number,
  serverCpus = 0,
): WindowRates | undefined {
  const inside = samples.filter((s) => s.t >= window.startMs && s.t <= window.endMs);
  const first = inside[0];
  const last = inside[inside.length - 1];
  if (!first || !last || last.t - first.t <= 0) return undefined;
  const sec = (last.t - first.t) / 1000;
  const percent = (ticks: number) => (ticks / CLK_TCK / sec) * 100;
  return {
    serverCpuPercent: Math.max(0, percent(last.serverTicks - first.serverTicks)),
    loadCpuPercent: Math.max(0, percent(last.toolTicks - first.toolTicks)),
    stealPercent: Math.max(0, percent(last.stealTicks - first.stealTicks) / cores),
    ...(serverCpus > 0
      ? {
          serverCoreIdlePercent: Math.max(
            0,
            percent(last.serverIdleTicks - first.serverIdleTicks) / serverCpus,
          ),
        }
      : {}),
    windowSec: sec,
  };
}

export interface LoadRun {
  readonly command: string[];
  readonly result: LoadResult | null;
  readonly problem?: string;
  readonly rates: WindowRates;
  readonly peakRssBytes: number;
  /** With workers: each one's CPU over the window, connections held halfway, and whether alive. */
  readonly workers?: WorkerUse[];
  /** With workers: the primary's RSS at the end. */
  readonly primaryRssBytes?: number;
}

/** Each worker's CPU % over the window; the connections it held come from one mid-trial look. */
export function workerUse(
  samples: readonly Sample[],
  window: Window,
  workers: readonly number[],
  connections: ReadonlyMap<number, number>,
  alive: (pid: number) => boolean,
): WorkerUse[] {
  const inside = samples.filter((s) => s.t >= window.startMs && s.t <= window.endMs);
  const first = inside[0];
  const last = inside[inside.length - 1];
  const sec = first && last ? (last.t - first.t) / 1000 : 0;
  return workers.map((pid, i) => {
    const ticks = (last?.workerTicks?.[i] ?? 0) - (first?.workerTicks?.[i] ?? 0);
    const cpuPercent = sec > 0 ? Math.max(0, (ticks / CLK_TCK / sec) * 100) : 0;
    return { pid, cpuPercent, connections: connections.get(pid) ?? 0, alive: alive(pid) };
  });
}

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

/**
 * req/s over the time the load was applied. oha with -w keeps its clock running while it
 * waits (up to the request timeout) for the last in-flight requests: dividing by that total
 * would deflate req/s, so it is capped at the requested time. wrk and autocannon stop at the
 * deadline and their own time is the right denominator.
 */
export function windowed(tool: ToolInfo, r: LoadResult, requestedSec: number): LoadResult {
  const windowSec = tool.name === "oha" ? Math.min(r.durationSec, requestedSec) : r.durationSec;
  if (windowSec <= 0) return r;
  const bytes = r.bytesPerSec * r.durationSec;
  return { ...r, windowSec, rps: r.requests / windowSec, bytesPerSec: bytes / windowSec };
}
