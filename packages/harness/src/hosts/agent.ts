// The harness's hands on the server host of a run across two hosts (--server-host): remote.ts
// starts this over SSH in the project's checkout there (scripts/agent.sh), and it starts, samples
// and stops the apps with the same code a run on one machine uses (host.ts, launch.ts). One JSON
// line per request on stdin ({id, op, args}), one per answer on stdout ({id, value} or
// {id, error}), and unasked lines for what happens on its own ({event: "exit", pid, status});
// protocol.ts types each of them.
// When stdin ends (the harness finished, or the connection dropped) it stops every app it
// started and removes its scratch folder: nothing is left running on this host.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectionsHeld } from "@bench/contract/check";
import { type RunningApp, startApp } from "../apps/launch.ts";
import { gitInfo } from "../common/manifest.ts";
import { REPO_ROOT } from "../common/root.ts";
import { infoHere, linkMbps, sampleHere, sshAddress, targetHere } from "./host.ts";
import type { AgentMessage, AgentOp, AgentRequest, OpArgs, OpValue } from "./protocol.ts";

const running = new Map<number, RunningApp>();
const scratch = mkdtempSync(join(tmpdir(), "bench-agent-"));

function send(message: AgentMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function start({ app, options }: OpArgs<"start">): Promise<OpValue<"start">> {
  const app_ = await startApp(app, { ...options, root: REPO_ROOT });
  running.set(app_.pid, app_);
  void app_.exited.then((status) => send({ event: "exit", pid: app_.pid, status }));
  return { pid: app_.pid, readyMs: app_.readyMs ?? null };
}

const OPS: { [K in AgentOp]: (args: OpArgs<K>) => OpValue<K> | Promise<OpValue<K>> } = {
  hello: () => {
    const address = sshAddress(process.env.SSH_CONNECTION);
    return {
      info: infoHere(),
      ...(address !== undefined ? { address } : {}),
      git: gitInfo(REPO_ROOT),
      root: REPO_ROOT,
      scratch,
      pid: process.pid,
    };
  },
  start,
  stop: async ({ pid, graceMs }) => {
    const app = running.get(pid);
    running.delete(pid);
    return app ? app.stop(graceMs) : { signal: "none", survivors: [] };
  },
  target: ({ app, launched, count }) => targetHere(app, launched, count),
  sample: (query) => sampleHere(query),
  held: ({ port, pids }) => [...connectionsHeld(port, pids)],
  // The interface toward the harness's host: the client half of $SSH_CONNECTION.
  link: () => {
    const client = sshAddress(process.env.SSH_CONNECTION, "client");
    return client ? (linkMbps(client) ?? null) : null; // an empty address is none
  },
  collect: ({ name }) => {
    const path = join(scratch, name.replaceAll("/", "_"));
    try {
      return readFileSync(path).toString("base64");
    } catch {
      return null;
    } finally {
      rmSync(path, { force: true });
    }
  },
};

/** One request line: the op's answer, or its error. The JSON is the harness's (remote.ts). */
async function answer(line: string): Promise<void> {
  let id: number | null = null;
  try {
    const request = JSON.parse(line) as AgentRequest;
    id = request.id;
    // The ops are OPS's own keys: no second list to keep in step with protocol.ts.
    if (!Object.hasOwn(OPS, request.op)) {
      throw new Error(`unknown request ${JSON.stringify(request.op)}`);
    }
    // One cast, at the boundary: the op's name was checked, its arguments are remote.ts's.
    const op = OPS[request.op] as (args: unknown) => unknown;
    send({ id, value: await op(request.args ?? {}) });
  } catch (error) {
    send({ id, error: error instanceof Error ? error.message : String(error) });
  }
}

/** The harness is gone: stop everything this agent started, leave nothing behind. */
async function shutdown(): Promise<void> {
  await Promise.all([...running.values()].map((app) => app.stop().catch(() => undefined)));
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

if (import.meta.main) {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => void answer(line));
  lines.on("close", () => void shutdown());
  // SIGHUP when sshd closes the session; TERM from anyone: the same clean stop.
  for (const signal of ["SIGHUP", "SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => void shutdown());
  }
}
