// CPU time and memory of processes, from /proc (Linux). A benchmark that does not measure the
// load generator cannot tell a server's limit from the load generator's.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

function clockTicks(): number {
  try {
    const value = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

/** Kernel clock ticks per second, the unit of /proc/<pid>/stat times. */
export const CLK_TCK = clockTicks();

function statFields(pid: number | "self"): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields resume after the command name, which may hold spaces: state is then field 0.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** utime + stime of one process, in ticks; 0 when it is gone. */
export function cpuTicks(pid: number): number {
  const f = statFields(pid);
  // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  return f ? Number(f[11]) + Number(f[12]) : 0;
}

export function treeCpuTicks(pids: readonly number[]): number {
  return pids.reduce((total, pid) => total + cpuTicks(pid), 0);
}

/**
 * CPU time of this process's children that have exited and been waited for. The difference
 * across one load-generator run is exactly that run's CPU, down to its last tick.
 */
export function reapedChildrenTicks(): number {
  const f = statFields("self");
  return f ? Number(f[13]) + Number(f[14]) : 0;
}

/** Resident set size in bytes; 0 when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function percentOfOneCore(ticks: number, wallSec: number): number {
  return wallSec > 0 ? (ticks / CLK_TCK / wallSec) * 100 : 0;
}

/** Samples the summed RSS of a process tree every `intervalMs` and keeps the peak. */
export class RssSampler {
  private peak = 0;
  private readonly tree: () => readonly number[];
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(tree: () => readonly number[], intervalMs = 100) {
    this.tree = tree;
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    const total = this.tree().reduce((sum, pid) => sum + rssBytes(pid), 0);
    if (total > this.peak) this.peak = total;
  }

  /** Stops sampling (after one last sample) and returns the peak in bytes. */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}
