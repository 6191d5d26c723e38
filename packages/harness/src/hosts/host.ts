// Where the apps run: this machine, or another one reached over SSH (--server-host, remote.ts).
// Everything the harness does on the server's machine goes through a ServerHost: starting and
// stopping the apps, finding their processes, sampling their CPU and memory and the machine's
// steal and idle, copying a profile back. The load generator always runs here. The functions
// below are what a host does on its own machine: LOCAL calls them here, and the agent (agent.ts)
// calls them there for a remote host, so both measure with the same code.

import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { AppSpec } from "@bench/contract";
import { connectionsHeld, descendantsOf, executableOf } from "@bench/contract/check";
import { type RunningApp, type StartOptions, startApp } from "../apps/launch.ts";
import { serverProcesses } from "../apps/readiness.ts";
import { machineInfo } from "../common/manifest.ts";
import {
  CLK_TCK,
  cpuTicks,
  isAlive,
  machineTicks,
  rssBytes,
  treeCpuTicks,
  treeSchedNs,
} from "../load/procstats.ts";
import type { Manifest } from "../results/schema.ts";
import type { AppRun } from "../runtimes/runtime-versions.ts";

/** What the manifest records of the server's host in a run across two. */
export type ServerHostRecord = NonNullable<Manifest["serverHost"]>;

/** What one sample of the server reads: its tree, its workers, and the CPUs of its set. */
export interface SampleQuery {
  readonly tree: readonly number[];
  readonly workers: readonly number[];
  /** CPUs of the server's own set (pinned), whose idle time is summed; empty: none. */
  readonly cpus: readonly number[];
}

export interface ServerSample {
  /** utime + stime of the whole tree, in the server host's clock ticks. */
  readonly treeTicks: number;
  /** CPU time of every thread of the tree, ns (schedstat): the cost per request's numerator. */
  readonly treeNs: number;
  readonly workerTicks: readonly number[];
  readonly rssBytes: number;
  /** RSS of the tree's first process (the primary, with workers). */
  readonly primaryRssBytes: number;
  readonly steal: number;
  /** Steal on the CPUs of the query's set (0 when it has none). */
  readonly cpusSteal: number;
  readonly idle: number;
  /** Per worker, whether it still runs. */
  readonly alive: readonly boolean[];
}

/** The server's processes once it is up: see readiness.ts's serverProcesses. */
export interface ServerTarget {
  readonly root: number;
  readonly tree: readonly number[];
  readonly workers: readonly number[];
  readonly executable?: string;
}

export interface HostInfo {
  readonly cores: number;
  readonly hasTaskset: boolean;
  readonly clockTicks: number;
  readonly machine: ReturnType<typeof machineInfo>;
}

export interface ServerHost {
  /** "this machine", or the [user@]host given to --server-host. */
  readonly name: string;
  /** The address the load generator and the verifier use; the apps listen on it. */
  readonly address: string;
  readonly remote: boolean;
  readonly info: HostInfo;
  start(app: AppRun, options: StartOptions): Promise<RunningApp>;
  target(app: AppSpec, launched: number, count: number): Promise<ServerTarget | string>;
  sample(query: SampleQuery): Promise<ServerSample>;
  /** Established connections on `port` each of `pids` holds. */
  held(port: number, pids: readonly number[]): Promise<Map<number, number>>;
  /** Where an app there should write a file (a profile) that is to be copied to `local`. */
  scratchPath(local: string): string;
  /** Copies what scratchPath(local) names to `local`; false when there was nothing. */
  collect(local: string): Promise<boolean>;
  /** What the manifest records of another host (machine, commit, network); none for this one. */
  readonly record?: ServerHostRecord;
  /** Why the host can no longer be used (the connection was lost); undefined while it can. */
  lost(): string | undefined;
  close(): Promise<void>;
}

/** One sample, read from this machine's /proc. */
export function sampleHere(query: SampleQuery): ServerSample {
  const machine = machineTicks(query.cpus);
  return {
    treeTicks: treeCpuTicks(query.tree),
    treeNs: treeSchedNs(query.tree),
    workerTicks: query.workers.map(cpuTicks),
    rssBytes: query.tree.reduce((sum, pid) => sum + rssBytes(pid), 0),
    primaryRssBytes: rssBytes(query.tree[0] ?? 0),
    steal: machine.steal,
    cpusSteal: machine.cpusSteal,
    idle: machine.idle,
    alive: query.workers.map(isAlive),
  };
}

/** The server's processes, found once it is up: servers do not fork under load. */
export function targetHere(app: AppSpec, launched: number, count: number): ServerTarget | string {
  const server = serverProcesses(app, launched, count);
  if (typeof server === "string") return server;
  const executable = executableOf(server.root);
  return {
    root: server.root,
    tree: [server.root, ...descendantsOf(server.root)],
    workers: server.workers,
    ...(executable ? { executable } : {}),
  };
}

/** The first executable `name` on the PATH, as `command -v` finds it. */
export function onPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(":").filter(Boolean)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {}
  }
  return undefined;
}

export function infoHere(): HostInfo {
  return {
    cores: availableParallelism(),
    hasTaskset: onPath("taskset") !== undefined,
    clockTicks: CLK_TCK,
    machine: machineInfo(),
  };
}

/** This machine: the apps on 127.0.0.1, sampled from /proc directly. */
export function localHost(): ServerHost {
  return {
    name: "this machine",
    address: "127.0.0.1",
    remote: false,
    info: infoHere(),
    start: startApp,
    target: async (app, launched, count) => targetHere(app, launched, count),
    sample: async (query) => sampleHere(query),
    held: async (port, pids) => connectionsHeld(port, pids),
    scratchPath: (local) => local,
    collect: async (local) => existsSync(local),
    lost: () => undefined,
    close: async () => {},
  };
}

/** Speed of the interface that reaches `peer`, in Mbit/s, where the OS says (Linux). */
export function linkMbps(peer: string): number | undefined {
  try {
    const route = execFileSync("ip", ["-o", "route", "get", peer], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const dev = /\bdev (\S+)/.exec(route)?.[1];
    if (!dev) return undefined;
    const speed = Number(readFileSync(`/sys/class/net/${dev}/speed`, "utf8").trim());
    return speed > 0 ? speed : undefined;
  } catch {
    return undefined;
  }
}

/** Either end of $SSH_CONNECTION ("client-ip client-port server-ip server-port"). */
export function sshAddress(
  connection: string | undefined,
  end: "client" | "server" = "server",
): string | undefined {
  const address = connection?.trim().split(/\s+/)[end === "client" ? 0 : 2];
  return address && address !== "" ? address : undefined;
}
