// --server-host: the apps on another machine, reached over SSH; the load generator stays here.
// One SSH connection carries everything: a ControlMaster whose own session is a lifeline (it ends
// when this process does, however it ends), and over it the agent (agent.ts, started by
// scripts/agent.sh in the project's checkout there), which starts, samples and stops the apps.
// Losing the connection ends the agent's input, and it stops every app it started.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { AppSpec } from "@bench/contract";
import {
  LaunchError,
  type RunningApp,
  type StartOptions,
  type StopReport,
} from "../apps/launch.ts";
import { CLK_TCK } from "../load/procstats.ts";
import { linkMbps, type ServerHost, type ServerHostRecord } from "./host.ts";
import type { AgentMessage, AgentOp, AgentRequest, OpArgs, OpValue } from "./protocol.ts";

export class RemoteError extends Error {}

/** --server-host [user@]host[:port], and where the project is checked out there. */
export interface RemoteSpec {
  readonly destination: string;
  readonly port?: number;
  /** The checkout on the server host (default: the same path as here). */
  readonly dir: string;
  /** ssh -F: a config file of the user's (keys, known hosts, jump hosts). */
  readonly sshConfig?: string;
}

/** "[user@]host[:port]" (an IPv6 address in brackets); a string: why it is not one. */
export function parseServerHost(text: string): { destination: string; port?: number } | string {
  const match =
    /^((?:[A-Za-z0-9._][A-Za-z0-9._-]*@)?)(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d+))?$/.exec(
      text,
    );
  if (!match || text.startsWith("-")) {
    return `--server-host takes [user@]host[:port], got '${text}'`;
  }
  const host = (match[2] as string).replace(/^\[(.*)\]$/, "$1");
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && !(port >= 1 && port <= 65535)) {
    return `--server-host: the SSH port must be 1-65535, got ${match[3]}`;
  }
  return { destination: `${match[1]}${host}`, ...(port !== undefined ? { port } : {}) };
}

/** The ssh options every connection of the run uses. */
function sshBase(spec: RemoteSpec, controlPath: string): string[] {
  return [
    ...(spec.sshConfig ? ["-F", spec.sshConfig] : []),
    ...(spec.port ? ["-p", String(spec.port)] : []),
    "-o",
    `ControlPath=${controlPath}`,
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=10",
    // A dead link is noticed within 15 s, not at TCP's timeout (minutes).
    "-o",
    "ServerAliveInterval=5",
    "-o",
    "ServerAliveCountMax=3",
  ];
}

/**
 * Median of `count` TCP connects to host:port (the SYN and its answer: the kernels', no
 * server program in between), in ms, after a few unrecorded ones; undefined when none connected.
 */
export async function connectRtt(
  host: string,
  port: number,
  count = 15,
): Promise<number | undefined> {
  const times: number[] = [];
  for (let i = -3; i < count; i++) {
    const ms = await new Promise<number | undefined>((done) => {
      const started = performance.now();
      const socket = connect({ host, port });
      socket.setTimeout(3000, () => {
        socket.destroy();
        done(undefined);
      });
      socket.once("connect", () => {
        done(performance.now() - started);
        socket.destroy();
      });
      socket.once("error", () => done(undefined));
    });
    if (ms !== undefined && i >= 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return times.length > 0 ? times[Math.floor(times.length / 2)] : undefined;
}

/** A JSON-lines conversation with the agent over the SSH session that runs it. */
export class AgentChannel {
  private next = 1;
  private readonly pending = new Map<number, { ok(v: unknown): void; fail(e: Error): void }>();
  private readonly exits = new Map<number, (status: string) => void>();
  private lostWhy: string | undefined;
  private stderr = "";

  readonly child: ChildProcess;

  constructor(child: ChildProcess, name: string, log: (line: string) => void) {
    this.child = child;
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) =>
      this.receive(line),
    );
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      this.stderr = `${this.stderr}\n${line}`.slice(-4096);
      log(`  ${name}: ${line}`);
    });
    child.once("exit", (code, signal) => {
      const last = this.stderr.trim().split("\n").pop() ?? "";
      this.end(
        `lost the connection to ${name} (ssh ${signal ?? `exited ${code}`}${last ? `: ${last}` : ""})`,
      );
    });
  }

  private receive(line: string): void {
    let message: AgentMessage;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not the agent's: a line of the bootstrap that went to stdout
    }
    // A bootstrap line can parse too ("1.4.5" does not, "12" and "null" do): only objects count.
    if (typeof message !== "object" || message === null) return;
    if ("event" in message) {
      this.exits.get(message.pid)?.(message.status ?? "?");
      return;
    }
    if (message.id === null) return; // the agent could not read a request: nobody to answer
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if ("error" in message) waiter.fail(new LaunchError(message.error));
    else waiter.ok(message.value);
  }

  /** The connection is gone: every question and every running app learns it. */
  end(why: string): void {
    if (this.lostWhy) return;
    this.lostWhy = why;
    for (const waiter of this.pending.values()) waiter.fail(new RemoteError(why));
    this.pending.clear();
    for (const exit of this.exits.values()) exit(`connection lost`);
  }

  lost(): string | undefined {
    return this.lostWhy;
  }

  /** One request to the agent; its answer is typed by the op (protocol.ts). */
  call<K extends AgentOp>(op: K, args: OpArgs<K>): Promise<OpValue<K>> {
    if (this.lostWhy) return Promise.reject(new RemoteError(this.lostWhy));
    const request: AgentRequest<K> = { id: this.next++, op, args };
    return new Promise<OpValue<K>>((ok, fail) => {
      // The agent answers op K with OpValue<K>: the protocol's one trusted step.
      this.pending.set(request.id, { ok: ok as (v: unknown) => void, fail });
      this.child.stdin?.write(`${JSON.stringify(request)}\n`);
    });
  }

  onExit(pid: number, done: (status: string) => void): void {
    this.exits.set(pid, done);
    if (this.lostWhy) done("connection lost");
  }
}

/** The proxy of an app the agent started: its exit comes as an event, its stop as a request. */
function remoteApp(
  channel: AgentChannel,
  app: AppSpec,
  pid: number,
  readyMs: number | null,
): RunningApp {
  let status: string | undefined;
  const exited = new Promise<string>((done) =>
    channel.onExit(pid, (s) => {
      status = s;
      done(s);
    }),
  );
  return {
    app,
    pid,
    readyMs: readyMs ?? undefined,
    exited,
    hasExited: () => status !== undefined,
    output: () => "",
    async stop(graceMs = 3000): Promise<StopReport> {
      // Lost: the agent has stopped everything itself when its input ended.
      if (channel.lost()) return { signal: "none", survivors: [] };
      return channel.call("stop", { pid, graceMs });
    },
  };
}

/** Starts the lifeline master, then the agent over it; waits for the agent's hello. */
async function openChannel(spec: RemoteSpec, log: (line: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), "bench-ssh-"));
  const control = join(dir, "control");
  const base = sshBase(spec, control);
  // Its own process group: Ctrl-C reaches the harness, which stops the apps and then closes.
  const master = spawn(
    "ssh",
    [
      ...base,
      "-o",
      "ControlMaster=yes",
      "-o",
      "ControlPersist=no",
      spec.destination,
      "cat >/dev/null",
    ],
    { detached: true, stdio: ["pipe", "ignore", "pipe"] },
  );
  let masterErr = "";
  master.stderr?.on("data", (d: Buffer) => {
    masterErr = (masterErr + d.toString("utf8")).slice(-2048);
  });
  const masterExit = new Promise<string>((done) =>
    master.once("exit", (c, s) => done(s ?? String(c))),
  );
  const up = await waitForMaster(base, spec.destination, masterExit);
  if (!up) {
    rmSync(dir, { recursive: true, force: true });
    const why = masterErr.trim().split("\n").pop() || "ssh exited";
    throw new RemoteError(`cannot connect to ${spec.destination} over SSH: ${why}`);
  }
  const quoted = `'${spec.dir.replaceAll("'", "'\\''")}'`;
  const command =
    `cd ${quoted} 2>/dev/null || { echo "no folder ${spec.dir} there: check out this project there (--server-dir)" >&2; exit 97; }; ` +
    `[ -f scripts/agent.sh ] || { echo "${spec.dir} there is not a checkout of this project (no scripts/agent.sh): check out the same commit there" >&2; exit 98; }; ` +
    "exec bash scripts/agent.sh";
  const agent = spawn("ssh", [...base, "-o", "ControlMaster=no", spec.destination, command], {
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const channel = new AgentChannel(agent, spec.destination, log);
  const close = () => closeAll(channel, master, masterExit, dir);
  try {
    // The first contact bootstraps Bun and the dependencies there: minutes on a fresh host.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, fail) => {
      const why = `${spec.destination}: the agent did not answer within 10 min`;
      timer = setTimeout(() => fail(new RemoteError(why)), 600_000);
    });
    const hello = await Promise.race([channel.call("hello", {}), late]).finally(() =>
      clearTimeout(timer),
    );
    return { channel, hello, close };
  } catch (error) {
    await close();
    throw error instanceof LaunchError ? new RemoteError(error.message) : error;
  }
}

async function waitForMaster(
  base: string[],
  destination: string,
  exited: Promise<string>,
): Promise<boolean> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + 30_000;
  while (!gone && Date.now() < deadline) {
    try {
      execFileSync("ssh", [...base, "-O", "check", destination], { stdio: "ignore" });
      return true;
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return false;
}

/** Ends the agent's input (it stops its apps and exits), then the lifeline; nothing is left. */
async function closeAll(
  channel: AgentChannel,
  master: ChildProcess,
  masterExit: Promise<string>,
  dir: string,
) {
  const agent = channel.child;
  const agentExit = new Promise<void>((done) => {
    if (agent.exitCode !== null || agent.signalCode !== null) done();
    else agent.once("exit", () => done());
  });
  agent.stdin?.end();
  await within(agentExit, 15_000);
  if (agent.exitCode === null && agent.signalCode === null) agent.kill("SIGKILL");
  master.stdin?.end();
  await within(masterExit, 5000);
  if (master.exitCode === null && master.signalCode === null) master.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  channel.end("the connection was closed");
}

/** Waits for `promise`, at most `ms`; the timer does not outlive it (nor keep the process up). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  await Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Connects, starts the agent there and checks it runs this very commit; the host to run on. */
export async function connectRemote(
  spec: RemoteSpec,
  localCommit: string,
  log: (line: string) => void,
): Promise<ServerHost & { readonly record: ServerHostRecord }> {
  const { channel, hello, close } = await openChannel(spec, log);
  const fail = async (why: string): Promise<never> => {
    await close();
    throw new RemoteError(why);
  };
  if (!hello.address)
    await fail(`${spec.destination}: the agent could not tell which address SSH reached it on`);
  if (hello.git.commit !== localCommit) {
    await fail(
      `${spec.dir} on ${spec.destination} is at ${hello.git.commit.slice(0, 12)}, this checkout at ${localCommit.slice(0, 12)}: ` +
        `check out the same commit there (git -C ${spec.dir} fetch && git -C ${spec.dir} checkout ${localCommit})`,
    );
  }
  const address = hello.address as string;
  const rttMs = (await connectRtt(address, spec.port ?? 22)) ?? 0;
  const serverLink = await channel.call("link", {}).catch(() => null);
  const loadLink = linkMbps(address);
  const record: ServerHostRecord = {
    name: spec.destination,
    address,
    machine: hello.info.machine,
    git: hello.git,
    rttMs,
    linkMbps: {
      ...(loadLink !== undefined ? { load: loadLink } : {}),
      ...(serverLink ? { server: serverLink } : {}),
    },
  };
  // Ticks are counted in the server's clock; measure.ts reads them in this one's.
  const scale = CLK_TCK / hello.info.clockTicks;
  const scratchName = (local: string) => local.replaceAll("/", "_");
  return {
    name: spec.destination,
    address,
    remote: true,
    info: hello.info,
    record,
    async start(app, options: StartOptions) {
      const { root: _root, ...rest } = options;
      const started = await channel.call("start", {
        app,
        options: rest,
      });
      return remoteApp(channel, app, started.pid, started.readyMs);
    },
    target: (app, launched, count) => channel.call("target", { app, launched, count }),
    async sample(query) {
      const s = await channel.call("sample", query);
      const workerTicks = s.workerTicks.map((t) => t * scale);
      return {
        ...s,
        treeTicks: s.treeTicks * scale,
        steal: s.steal * scale,
        cpusSteal: s.cpusSteal * scale,
        idle: s.idle * scale,
        workerTicks,
      };
    },
    held: async (port, pids) => new Map(await channel.call("held", { port, pids })),
    scratchPath: (local) => join(hello.scratch, scratchName(local)),
    async collect(local) {
      const data = await channel.call("collect", { name: scratchName(local) });
      if (data === null) return false;
      writeFileSync(local, Buffer.from(data, "base64"));
      return true;
    },
    lost: () => channel.lost(),
    close,
  };
}
