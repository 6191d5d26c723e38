// CPU time and memory of processes, from /proc (Linux). A benchmark that does not measure the
// load generator cannot tell a server's limit from the load generator's.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

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

/**
 * CPU time of the children a process has waited for (cutime + cstime), in ticks; 0 when it is
 * gone. Added to its live children's, a child that exits keeps counting.
 */
export function reapedTicks(pid: number): number {
  const f = statFields(pid);
  return f ? Number(f[13]) + Number(f[14]) : 0;
}

/** Running, not a zombie; false when gone. */
export function isAlive(pid: number): boolean {
  const f = statFields(pid);
  return f !== undefined && f[0] !== "Z";
}

/**
 * CPU time of every thread of a process, in ns: the sum of the first field of
 * /proc/<pid>/task/<tid>/schedstat (time spent on a CPU, at the scheduler's nanosecond
 * resolution, where /proc/<pid>/stat counts 10 ms ticks); 0 when the process is gone. A
 * thread that exited since the last look takes its time with it.
 */
export function schedNs(pid: number): number {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let total = 0;
  for (const tid of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return total;
}

export const treeSchedNs = (pids: readonly number[]): number =>
  pids.reduce((total, pid) => total + schedNs(pid), 0);

/** Every thread's schedstat CPU time of the given processes, ns, by "pid/tid". */
export function threadNs(pids: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        out.set(`${pid}/${tid}`, ns);
      } catch {
        // the thread ended between the listing and the read
      }
    }
  }
  return out;
}

/**
 * The CPU time spent between two looks, thread by thread: a thread seen only at the end spent
 * all of its time in between; one seen only at the start exited, and what it spent in between
 * is lost (counted as `exited`, never subtracted: a sum over the threads alive at each look
 * would take the whole life of an exited thread off the total).
 */
export function cpuSince(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): { ns: number; exited: number } {
  let ns = 0;
  for (const [key, end] of after) ns += Math.max(0, end - (before.get(key) ?? 0));
  let exited = 0;
  for (const key of before.keys()) if (!after.has(key)) exited++;
  return { ns, exited };
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

export interface MachineTicks {
  /** Steal summed over every CPU: time a hypervisor gave this VM's CPUs to others. */
  readonly steal: number;
  /** Steal summed over the given CPUs: what the hypervisor took from the server's own set. */
  readonly cpusSteal: number;
  /** Idle (+ iowait) summed over the given CPUs. */
  readonly idle: number;
}

/**
 * From /proc/stat ("cpu" and "cpuN" lines: user nice system idle iowait irq softirq steal).
 * Idle is what tells whether a CPU set was saturated: kernel work done for a process (network
 * softirqs on loopback) is not charged to it, but it is not idle time either.
 */
export function machineTicks(cpus: readonly number[] = [], stat?: string): MachineTicks {
  let text = stat;
  try {
    text ??= readFileSync("/proc/stat", "utf8");
  } catch {
    return { steal: 0, cpusSteal: 0, idle: 0 };
  }
  let steal = 0;
  let cpusSteal = 0;
  let idle = 0;
  for (const line of text.split("\n")) {
    const [name, ...values] = line.trim().split(/\s+/);
    const n = values.map(Number);
    if (name === "cpu") steal = n[7] ?? 0;
    else if (name?.startsWith("cpu") && cpus.includes(Number(name.slice(3)))) {
      idle += (n[3] ?? 0) + (n[4] ?? 0);
      cpusSteal += n[7] ?? 0;
    }
  }
  return { steal, cpusSteal, idle };
}
