// The three load generators: how each is found, which version it is, and the exact command
// line that sends a scenario's request. Every tool sends the same method, headers and body.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Scenario } from "@bench/contract";
import type { ToolName } from "./parse.ts";

const HARNESS_DIR = join(import.meta.dir, "..");

/** Where the project's own autocannon and the Node that runs it live. */
export const AUTOCANNON = {
  node: join(HARNESS_DIR, "node_modules", ".bin", "node"),
  script: join(HARNESS_DIR, "node_modules", "autocannon", "autocannon.js"),
  packageJson: join(HARNESS_DIR, "node_modules", "autocannon", "package.json"),
};

export const WRK_SCRIPT = join(import.meta.dir, "tools", "wrk.lua");

/** Per-request bound: a request that takes longer counts as a timeout instead of hanging. */
export const REQUEST_TIMEOUT_SEC = 10;

export interface ToolInfo {
  readonly name: ToolName;
  /** The executable (for autocannon: its script, run by the project's Node). */
  readonly path: string;
  readonly version: string;
}

export function toolVersion(name: ToolName, path: string): string {
  try {
    if (name === "autocannon") {
      return JSON.parse(readFileSync(AUTOCANNON.packageJson, "utf8")).version;
    }
    if (name === "oha") {
      // "oha 1.16.0"
      return (
        execFileSync(path, ["--version"], { encoding: "utf8" }).trim().split(/\s+/)[1] ?? "unknown"
      );
    }
    // wrk -v prints "wrk 4.1.0 [epoll] Copyright (C) ..." and exits 1.
    let text: string;
    try {
      text = execFileSync(path, ["-v"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      text = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    }
    return /wrk\s+(\S+)/.exec(text)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

export interface LoadPlan {
  readonly url: string;
  readonly scenario: Scenario;
  readonly connections: number;
  readonly durationSec: number;
  /** File holding the scenario's body, when it has one. */
  readonly bodyFile?: string;
  /** taskset CPU list for the tool; undefined: not pinned. */
  readonly cpus?: string;
  /** How many cores the tool may use (its CPU set, or the machine's). */
  readonly cores: number;
}

export interface ToolCommand {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Which stream carries the machine-readable result. */
  readonly resultOn: "stdout" | "stderr";
  /** Cores the tool can keep busy: 1 for single-threaded autocannon. */
  readonly capacityCores: number;
}

export function toolCommand(tool: ToolInfo, plan: LoadPlan): ToolCommand {
  const { scenario, connections, durationSec, url, bodyFile } = plan;
  const post = scenario.body !== undefined && bodyFile !== undefined;
  const contentType = scenario.contentType ?? "application/json";
  let argv: string[];
  let env: Record<string, string> = {};
  let resultOn: "stdout" | "stderr" = "stdout";
  let capacityCores = plan.cores;
  switch (tool.name) {
    case "oha":
      argv = [
        tool.path,
        "--no-tui",
        "--output-format",
        "json",
        "-z",
        `${durationSec}s`,
        "-c",
        String(connections),
        // Wait for in-flight requests at the deadline instead of aborting them.
        "-w",
        "-t",
        `${REQUEST_TIMEOUT_SEC}s`,
        "-m",
        scenario.method,
        ...(post ? ["-H", `content-type: ${contentType}`, "-D", bodyFile] : []),
        url,
      ];
      break;
    case "wrk": {
      const threads = Math.max(1, Math.min(plan.cores, connections));
      capacityCores = Math.min(plan.cores, threads);
      argv = [
        tool.path,
        "-t",
        String(threads),
        "-c",
        String(connections),
        "-d",
        `${durationSec}s`,
        "--timeout",
        `${REQUEST_TIMEOUT_SEC}s`,
        "--latency",
        "-s",
        WRK_SCRIPT,
        url,
      ];
      env = {
        BENCH_METHOD: scenario.method,
        ...(post ? { BENCH_CONTENT_TYPE: contentType, BENCH_BODY_FILE: bodyFile } : {}),
      };
      resultOn = "stderr";
      break;
    }
    case "autocannon":
      capacityCores = 1;
      argv = [
        AUTOCANNON.node,
        tool.path,
        "--json",
        "-c",
        String(connections),
        "-d",
        String(durationSec),
        "-t",
        String(REQUEST_TIMEOUT_SEC),
        "-m",
        scenario.method,
        ...(post ? ["-H", `content-type=${contentType}`, "-i", bodyFile] : []),
        url,
      ];
      break;
  }
  if (plan.cpus !== undefined) argv = ["taskset", "-c", plan.cpus, ...argv];
  return { argv, env, resultOn, capacityCores };
}
