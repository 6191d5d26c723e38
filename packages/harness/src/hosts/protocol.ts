// What the harness (remote.ts) and the agent on the server host (agent.ts) say to each other
// over SSH, typed once: one JSON line per request ({id, op, args}), one per answer ({id, value}
// or {id, error}), and unasked exit events. Each op names its arguments and its answer here, so
// neither side casts what the other sends; the agent trusts the JSON to match (the harness is
// its only writer) and checks only the op's name.

import type { AppSpec } from "@bench/contract";
import type { StartOptions, StopReport } from "../apps/launch.ts";
import type { AppRun } from "../runtimes/runtime-versions.ts";
import type { HostInfo, SampleQuery, ServerSample, ServerTarget } from "./host.ts";

/** The agent's greeting: its machine, the address SSH reached, the checkout there. */
export interface Hello {
  readonly info: HostInfo;
  readonly address?: string;
  readonly git: { readonly commit: string; readonly dirty: boolean };
  readonly root: string;
  readonly scratch: string;
  readonly pid: number;
}

/** Every request the agent answers: its arguments and its answer. */
export interface AgentOps {
  hello: { args: Record<string, never>; value: Hello };
  /** Start an app there (the root is the agent's own checkout). */
  start: {
    args: { app: AppRun; options: Omit<StartOptions, "root"> };
    value: { pid: number; readyMs: number | null };
  };
  stop: { args: { pid: number; graceMs: number }; value: StopReport };
  target: { args: { app: AppSpec; launched: number; count: number }; value: ServerTarget | string };
  sample: { args: SampleQuery; value: ServerSample };
  /** Connections held per pid on a port, as [pid, count] pairs. */
  held: { args: { port: number; pids: readonly number[] }; value: [number, number][] };
  /** The link speed of the interface toward the harness's host, Mb/s. */
  link: { args: Record<string, never>; value: number | null };
  /** A file the agent wrote into its scratch folder, base64, removed there once read. */
  collect: { args: { name: string }; value: string | null };
}

export type AgentOp = keyof AgentOps;
export type OpArgs<K extends AgentOp> = AgentOps[K]["args"];
export type OpValue<K extends AgentOp> = AgentOps[K]["value"];

export interface AgentRequest<K extends AgentOp = AgentOp> {
  readonly id: number;
  readonly op: K;
  readonly args: OpArgs<K>;
}

/** A line from the agent: an answer to a request, or an app's exit it reports unasked. */
export type AgentMessage =
  | { readonly id: number; readonly value: unknown }
  | { readonly id: number | null; readonly error: string }
  | { readonly event: "exit"; readonly pid: number; readonly status: string };
