// The harness's hands on the server host of a run across two hosts (--server-host): remote.ts
// starts this over SSH in the project's checkout there (scripts/agent.sh), and it starts, samples
// and stops the apps with the same code a run on one machine uses (host.ts, launch.ts). One JSON
// line per request on stdin ({id, op, args}), one per answer on stdout ({id, value} or
// {id, error}), and unasked lines for what happens on its own ({event: "exit" | "output", pid}).
// When stdin ends (the harness finished, or the connection dropped) it stops every app it
// started and removes its scratch folder: nothing is left running on this host.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type AppSpec, connectionsHeld } from "@bench/contract";
import { REPO_ROOT, type RunningApp, type StartOptions, startApp } from "../apps/launch.ts";
import { gitInfo } from "../run/manifest.ts";
import type { AppRun } from "../runtimes/runtime-versions.ts";
import {
  infoHere,
  linkMbps,
  type SampleQuery,
  sampleHere,
  sshAddress,
  targetHere,
} from "./host.ts";

const running = new Map<number, RunningApp>();
const scratch = mkdtempSync(join(tmpdir(), "bench-agent-"));

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function start(app: AppRun, options: StartOptions) {
  const app_ = await startApp(app, { ...options, root: REPO_ROOT });
  running.set(app_.pid, app_);
  void app_.exited.then((status) => send({ event: "exit", pid: app_.pid, status }));
  return { pid: app_.pid, readyMs: app_.readyMs ?? null };
}

/** A request's arguments, as remote.ts sends them (JSON: trusted to be what the op takes). */
type Args = Record<string, unknown>;
const pids = (value: unknown) => (value as unknown[]).map(Number);

const OPS: Record<string, (args: Args) => unknown> = {
  hello: () => ({
    info: infoHere(),
    address: sshAddress(process.env.SSH_CONNECTION),
    git: gitInfo(REPO_ROOT),
    root: REPO_ROOT,
    scratch,
    pid: process.pid,
  }),
  start: ({ app, options }) => start(app as AppRun, options as StartOptions),
  stop: async ({ pid, graceMs }) => {
    const app = running.get(Number(pid));
    running.delete(Number(pid));
    return app ? app.stop(Number(graceMs)) : { signal: "none", survivors: [] };
  },
  target: ({ app, launched, count }) => targetHere(app as AppSpec, Number(launched), Number(count)),
  sample: (query) => sampleHere(query as unknown as SampleQuery),
  held: ({ port, pids: list }) => [...connectionsHeld(Number(port), pids(list))],
  // The interface toward the harness's host: the client half of $SSH_CONNECTION.
  link: () => {
    const client = sshAddress(process.env.SSH_CONNECTION, "client");
    return (client && linkMbps(client)) ?? null;
  },
  collect: ({ name }) => {
    const path = join(scratch, String(name).replaceAll("/", "_"));
    try {
      return readFileSync(path).toString("base64");
    } catch {
      return null;
    } finally {
      rmSync(path, { force: true });
    }
  },
};

async function answer(line: string): Promise<void> {
  let id: unknown;
  try {
    const request = JSON.parse(line) as { id: unknown; op: string; args?: Args };
    id = request.id;
    const op = OPS[request.op];
    if (!op) throw new Error(`unknown request ${JSON.stringify(request.op)}`);
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
