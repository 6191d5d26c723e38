// Linux /proc look-ups: who listens on a port, what executable a process runs, and a process's
// descendants. Used to check an app's runtime independently of what it says about itself, to
// say who holds a port, and to make sure a stopped app left nothing behind.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const local = cols[1];
      if (!local || cols[3] !== "0A") continue; // 0A = LISTEN
      if (local.slice(local.lastIndexOf(":") + 1) === hexPort && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

function numericDirs(path: string): string[] {
  try {
    return readdirSync(path).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

/** PIDs holding a listening TCP socket on `port` (any address); empty when none or unknowable. */
export function pidsListeningOn(port: number): number[] {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return [];
  const pids: number[] = [];
  for (const pid of numericDirs("/proc")) {
    for (const fd of numericDirs(`/proc/${pid}/fd`)) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1] && inodes.has(match[1])) {
        pids.push(Number(pid));
        break;
      }
    }
  }
  return pids;
}

export function executableOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

export function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return undefined;
  }
}

/** Every live descendant of `pid` (children, grandchildren, ...), found through /proc/<pid>/stat. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of numericDirs("/proc")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name may contain spaces and parentheses: fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
