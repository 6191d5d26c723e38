// Linux /proc look-ups: who listens on a port, who holds its connections, what executable a
// process runs, and a process's descendants. Used to check an app's runtime independently of
// what it says about itself, to say who holds a port, to tell which workers served, and to make
// sure a stopped app left nothing behind.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const LISTEN = "0A";
const ESTABLISHED = "01";

/** An IPv4 address as /proc/net/tcp prints it (host byte order: 127.0.0.2 is 0200007F). */
function ipv4Hex(address: string): string | undefined {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    return undefined;
  }
  return parts
    .reverse()
    .map((p) => p.toString(16).toUpperCase().padStart(2, "0"))
    .join("");
}

/**
 * Whether a socket bound to `local` (/proc/net/tcp or tcp6's hex) takes connections to
 * `address`: bound to it, to its IPv4-mapped IPv6 form, or to any address. No address, or
 * one that is not IPv4: every socket does.
 */
export function servesAddress(local: string, address: string | undefined): boolean {
  const v4 = address === undefined ? undefined : ipv4Hex(address);
  if (v4 === undefined || /^0+$/.test(local)) return true;
  return local === v4 || local === `0000000000000000FFFF0000${v4}`;
}

/** Inodes of the TCP sockets whose local port is `port`, in the given state (and address). */
function socketInodes(port: number, state: string, address?: string): Set<string> {
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
      if (!local || cols[3] !== state) continue;
      const [host = "", hex] = [
        local.slice(0, local.lastIndexOf(":")),
        local.slice(local.lastIndexOf(":") + 1),
      ];
      if (hex === hexPort && cols[9] && servesAddress(host, address)) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** How many of `inodes` the process holds open; 0 when it is gone. */
function socketsHeld(pid: number | string, inodes: Set<string>): number {
  let held = 0;
  for (const fd of numericDirs(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1] && inodes.has(match[1])) held++;
  }
  return held;
}

/**
 * Per process, the established connections to `port` it holds: with several workers, which of
 * them were given connections to serve.
 */
export function connectionsHeld(port: number, pids: readonly number[]): Map<number, number> {
  const inodes = socketInodes(port, ESTABLISHED);
  return new Map(pids.map((pid) => [pid, inodes.size === 0 ? 0 : socketsHeld(pid, inodes)]));
}

function numericDirs(path: string): string[] {
  try {
    return readdirSync(path).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

/**
 * PIDs holding a listening TCP socket on `port` (that takes connections to `address`, when
 * given: two apps of a side-by-side pair may listen on one port, at 127.0.0.1 and 127.0.0.2);
 * empty when none or unknowable.
 */
export function pidsListeningOn(port: number, address?: string): number[] {
  const inodes = socketInodes(port, LISTEN, address);
  if (inodes.size === 0) return [];
  return numericDirs("/proc")
    .filter((pid) => socketsHeld(pid, inodes) > 0)
    .map(Number);
}

/** The parent's PID; undefined when the process is gone. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
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
