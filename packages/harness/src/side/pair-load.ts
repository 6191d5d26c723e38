// One side-by-side sample, measured: both generators started together (slot 0's first), each
// against its own server; both servers' CPU time (schedstat, every thread) read just before
// the first starts and just after the last ends, so it covers every request either counted;
// /proc looked at every SAMPLE_MS between for the CPU percentages. pair-checks.ts judges it.

import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { readResult, SAMPLE_MS, spawnTool } from "../load/load.ts";
import { loadWindow } from "../load/measure.ts";
import type { LoadResult } from "../load/parse.ts";
import {
  cpuSince,
  cpuTicks,
  machineTicks,
  rssBytes,
  threadNs,
  treeSchedNs,
} from "../load/procstats.ts";
import type { ToolCommand, ToolInfo } from "../load/tools.ts";
import { overlap, type PairRates, type PairSample, pairRates } from "./pair-checks.ts";
import { both } from "./pairing.ts";

/** One side's load: its generator's command and its server's processes. */
export interface PairLoad {
  readonly cmd: ToolCommand;
  readonly tree: readonly number[];
}

export interface SideRun {
  readonly command: string[];
  readonly result: LoadResult | null;
  readonly problem?: string;
  readonly cpuNs: number;
  /** Threads of its server that exited during the sample: their time in it is not in cpuNs. */
  readonly threadsExited: number;
  readonly peakRssBytes: number;
  readonly threads: number;
  readonly connections: number;
  /** The most answers in flight, when more than the connections (ToolCommand.inFlight). */
  readonly inFlight?: number;
}

export interface PairLoadRun {
  readonly sides: readonly [SideRun, SideRun];
  /** undefined: too few looks at /proc fell in the window. */
  readonly rates?: PairRates;
}

export interface PairCpus {
  /** The servers' CPU set and the generators' (empty: unpinned). */
  readonly server: readonly number[];
  readonly load: readonly number[];
  readonly machineCores: number;
}

/** Every SAMPLE_MS until stop(): both trees' ns, both tools' ticks, idle and steal. */
function pairSampler(
  trees: readonly [readonly number[], readonly number[]],
  pids: () => [number?, number?],
  cpus: PairCpus,
) {
  const samples: PairSample[] = [];
  const peaks = [0, 0];
  let running = true;
  const once = () => {
    const [a, b] = pids();
    const server = machineTicks([...cpus.server]);
    const load = machineTicks([...cpus.load]);
    samples.push({
      t: performance.now(),
      serverNs: [treeSchedNs(trees[0]), treeSchedNs(trees[1])],
      toolTicks: [a ? cpuTicks(a) : 0, b ? cpuTicks(b) : 0],
      serverIdleTicks: server.idle,
      loadIdleTicks: load.idle,
      stealTicks: server.steal,
      serverStealTicks: server.cpusSteal,
    });
    trees.forEach((tree, i) => {
      peaks[i] = Math.max(
        peaks[i] as number,
        tree.reduce((sum, pid) => sum + rssBytes(pid), 0),
      );
    });
  };
  const loop = (async () => {
    while (running) {
      const next = performance.now() + SAMPLE_MS;
      once();
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  return {
    samples,
    peaks,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * Runs both loads once, together. `onChildren` sees the generators (to stop them on Ctrl-C),
 * then nothing once they are done.
 */
export async function runPairLoad(
  tool: ToolInfo,
  loads: readonly [PairLoad, PairLoad],
  requestedSec: number,
  cpus: PairCpus,
  onChildren: (children: ChildProcess[]) => void = () => {},
): Promise<PairLoadRun> {
  const hardLimitMs = (requestedSec + 30) * 1000;
  const before = both((i) => threadNs(loads[i].tree));
  const spawnedMs = performance.now();
  const spawned = both((i) => spawnTool(loads[i].cmd, hardLimitMs));
  onChildren(spawned.map((s) => s.child));
  const alive = (i: number) => {
    const child = spawned[i]?.child;
    return child?.pid && child.exitCode === null ? child.pid : undefined;
  };
  const sampler = pairSampler([loads[0].tree, loads[1].tree], () => [alive(0), alive(1)], cpus);
  const ended = (i: 0 | 1) => spawned[i].output.then((out) => ({ out, at: performance.now() }));
  const outs = await Promise.all(both(ended));
  const after = both((i) => threadNs(loads[i].tree));
  await sampler.stop();
  onChildren([]);
  const sides = both((i): SideRun => {
    const { cmd } = loads[i];
    const cpu = cpuSince(before[i], after[i]);
    const { result, problem } = readResult(tool, cmd, outs[i].out, requestedSec, hardLimitMs);
    return {
      command: cmd.argv.map(String),
      result,
      ...(problem ? { problem } : {}),
      cpuNs: cpu.ns,
      threadsExited: cpu.exited,
      peakRssBytes: sampler.peaks[i] as number,
      threads: cmd.threads,
      connections: cmd.connections,
      ...(cmd.inFlight ? { inFlight: cmd.inFlight } : {}),
    };
  });
  const windows = both((i) =>
    loadWindow(spawnedMs, outs[i].at, sides[i].result?.durationSec ?? requestedSec, requestedSec),
  );
  const rates = pairRates(sampler.samples, overlap(windows[0], windows[1]), {
    machine: cpus.machineCores,
    server: cpus.server.length,
    load: cpus.load.length,
  });
  return { sides, ...(rates ? { rates } : {}) };
}
