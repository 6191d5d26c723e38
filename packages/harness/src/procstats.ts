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

/** Steal ticks summed over every CPU (/proc/stat's "cpu" line, 8th value); 0 if unreadable. */
export function stealTicks(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
    // cpu user nice system idle iowait irq softirq steal ...
    return Number(line.trim().split(/\s+/)[8] ?? 0) || 0;
  } catch {
    return 0;
  }
}
