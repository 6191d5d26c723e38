// One measurement: run the load generator once against a running server and sample both
// processes from /proc while it runs; measure.ts turns the samples into the figures over the
// load window.

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerHost, ServerSample } from "../hosts/host.ts";
import { tether } from "../runtimes/lifeline.ts";
import {
  type LoadRun,
  loadWindow,
  ratesOver,
  type Sample,
  windowed,
  workerUse,
} from "./measure.ts";
import { againstExpected, type LoadResult, PARSERS, ParseError } from "./parse.ts";
import { parseH2load } from "./parse-h2load.ts";
import { CLK_TCK, cpuTicks, reapedTicks, treeSchedNs } from "./procstats.ts";
import type { ToolCommand, ToolInfo } from "./tools.ts";

/** How often the server and the tool are sampled. */
export const SAMPLE_MS = 100;

/** What a load generator left: how it ended, what it printed, whether it had to be killed. */
export interface ToolOutput {
  readonly exit: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly hung: boolean;
  /** h2load's per-request log, read (and removed) once it exited; "" when it wrote none. */
  readonly log?: string;
}

/** The log file's text, which is then removed; "" when there is none. */
function takeLog(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  } finally {
    rmSync(file, { force: true });
  }
}

interface Spawned {
  readonly child: ChildProcess;
  readonly output: Promise<ToolOutput>;
}

/** Starts the tool; it is killed if it runs past `hardLimitMs` (a hung tool). */
export function spawnTool(cmd: ToolCommand, hardLimitMs: number): Spawned {
  const [file, ...args] = cmd.argv as [string, ...string[]];
  // h2load appends to its log: one left by an earlier run must not count.
  const logFile = cmd.h2load?.logFile;
  if (logFile) rmSync(logFile, { force: true });
  const child = spawn(file, args, {
    env: { ...process.env, ...cmd.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A long trial must not go on loading a server whose harness was killed outright.
  const release = child.pid === undefined ? () => {} : tether(child.pid, false);
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
  const output = new Promise<ToolOutput>((done) => {
    const finish = (exit: string) => {
      clearTimeout(killer);
      release();
      done({ exit, stdout, stderr, hung, ...(logFile ? { log: takeLog(logFile) } : {}) });
    };
    child.once("close", (code, signal) => finish(signal ?? String(code)));
    child.once("error", (error) => finish(`spawn error: ${error.message}`));
  });
  return { child, output };
}

/** What is sampled while the load runs. */
export interface Sampled {
  readonly serverTree: readonly number[];
  /** --workers: the worker processes (in serverTree too), and the port whose connections they hold. */
  readonly workers?: { readonly pids: readonly number[]; readonly port: number };
  /** CPUs of the server's own set (pinned); empty when it shares the machine. */
  readonly serverCpus: readonly number[];
  /** Cores of the server's machine (steal is shared out over them). */
  readonly machineCores: number;
  /** The server's machine: this one, or the other host of a run across two. */
  readonly host: Pick<ServerHost, "sample" | "held">;
  /**
   * --db postgres: the database server's pid (this machine's), whose processes' CPU is read
   * with the server's: the backends serving the app come and go, so they are listed each time.
   */
  readonly database?: number;
}

/**
 * CPU time of `root` and its children (PostgreSQL's backends are the postmaster's), ns, listed
 * by the kernel's children file: a few reads, not a walk of /proc, on every sample. A child
 * that exits (a backend closed, an autovacuum worker done) moves into root's reaped time, so
 * its time still counts.
 */
function treeNsOf(root: number): number {
  let children: number[] = [];
  try {
    const list = readFileSync(`/proc/${root}/task/${root}/children`, "utf8").trim();
    children = list === "" ? [] : list.split(" ").map(Number);
  } catch {
    // Gone: its time reads 0 below, as a process's does once it has exited.
  }
  return treeSchedNs([root, ...children]) + (reapedTicks(root) * 1e9) / CLK_TCK;
}

/** The server's figures, sampled every SAMPLE_MS (one sample at a time) until stop() is called. */
function sampler(sampled: Sampled, toolPid: () => number | undefined, heldAtMs: number) {
  const { host, serverTree, serverCpus, workers } = sampled;
  const samples: Sample[] = [];
  const query = { tree: serverTree, workers: workers?.pids ?? [], cpus: serverCpus };
  const started = performance.now();
  let last: ServerSample | undefined;
  let held: Map<number, number> | undefined;
  let peakRss = 0;
  let running = true;
  const once = async () => {
    const pid = toolPid();
    const toolTicks = pid ? cpuTicks(pid) : 0;
    // A tool that is gone reads 0: such a sample would fake a negative rate; skip it.
    if (toolTicks === 0 && samples.length > 0) return;
    const sentAt = performance.now();
    const server = await host.sample(query);
    last = server;
    // Read on the server host halfway between asking and hearing back.
    const t = (sentAt + performance.now()) / 2;
    samples.push({
      t,
      serverTicks: server.treeTicks,
      ...(server.treeNs !== undefined ? { serverNs: server.treeNs } : {}),
      toolTicks,
      stealTicks: server.steal,
      serverStealTicks: server.cpusSteal,
      serverIdleTicks: server.idle,
      ...(workers ? { workerTicks: server.workerTicks } : {}),
      ...(sampled.database ? { databaseNs: treeNsOf(sampled.database) } : {}),
    });
    // Halfway through, the connections are open and spread: who holds them is who serves.
    if (workers && !held && performance.now() - started >= heldAtMs) {
      held = await host.held(workers.port, workers.pids);
    }
    peakRss = Math.max(peakRss, server.rssBytes);
  };
  const loop = (async () => {
    while (running) {
      const next = performance.now() + SAMPLE_MS;
      await once().catch(() => {});
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
      // After the load: the memory it left, and which workers survived it.
      const end = await host.sample(query).catch(() => last);
      return {
        peakRss: Math.max(peakRss, end?.rssBytes ?? 0),
        held: held ?? new Map<number, number>(),
        end,
      };
    },
  };
}

/** The tool's result, windowed and held to the scenario's status, or why there is none. */
export function readResult(
  tool: ToolInfo,
  cmd: ToolCommand,
  out: ToolOutput,
  requestedSec: number,
  hardLimitMs: number,
): { result: LoadResult | null; problem?: string } {
  if (out.hung) {
    return {
      result: null,
      problem: `${tool.name} did not finish within ${hardLimitMs / 1000} s and was killed`,
    };
  }
  try {
    const text = cmd.resultOn === "stdout" ? out.stdout : out.stderr;
    const parsed =
      tool.name === "h2load"
        ? parseH2load(text, out.log ?? "", cmd.h2load?.protocol ?? "http/1.1")
        : PARSERS[tool.name](text);
    const measured = windowed(tool, parsed, requestedSec);
    return { result: againstExpected(measured, cmd.expectedStatus, cmd.allowance) };
  } catch (error) {
    const detail = error instanceof ParseError ? error.message : String(error);
    return {
      result: null,
      problem: `${tool.name} exited ${out.exit}; its output could not be read: ${detail} ${out.stderr.slice(-300)}`,
    };
  }
}

/** Runs `cmd` once; `onChild` sees the tool's process (to stop it on Ctrl-C). */
export async function runLoad(
  tool: ToolInfo,
  cmd: ToolCommand,
  requestedSec: number,
  sampled: Sampled,
  onChild: (child: ChildProcess | undefined) => void = () => {},
): Promise<LoadRun> {
  // The tool stops itself at the deadline; this bound only catches a hung tool.
  const hardLimitMs = (requestedSec + 30) * 1000;
  const spawnedMs = performance.now();
  const { child, output } = spawnTool(cmd, hardLimitMs);
  onChild(child);
  const toolPid = () => (child.pid && child.exitCode === null ? child.pid : undefined);
  const sampling = sampler(sampled, toolPid, (requestedSec * 1000) / 2);
  const out = await output;
  const exitedMs = performance.now();
  const { samples } = sampling;
  const { peakRss, held, end } = await sampling.stop();
  onChild(undefined);
  const { result, problem } = readResult(tool, cmd, out, requestedSec, hardLimitMs);
  const durationSec = result?.durationSec ?? requestedSec;
  const window = loadWindow(spawnedMs, exitedMs, durationSec, requestedSec);
  const { machineCores, serverCpus, workers } = sampled;
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
          workers: workerUse(samples, window, workers.pids, held, (pid) => {
            const i = workers.pids.indexOf(pid);
            return end?.alive[i] ?? false;
          }),
          primaryRssBytes: end?.primaryRssBytes ?? 0,
        }
      : {}),
  };
}
