// The load generators: how each is found, which version it is, and the exact command line that
// sends a scenario's request. Every HTTP tool sends the same method, headers and body; ws-load
// (tools/ws-load) loads the WebSocket scenarios, which no HTTP tool can.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import {
  allowedOtherAnswers,
  expectedStatus,
  h2Split,
  loadedByWsLoad,
  type Scenario,
} from "@bench/contract";
import type { ToolName } from "./parse.ts";

const HARNESS_DIR = join(import.meta.dir, "..", "..");

/** Where the project's own autocannon and the Node that runs it live. */
export const AUTOCANNON = {
  node: join(HARNESS_DIR, "node_modules", ".bin", "node"),
  script: join(HARNESS_DIR, "node_modules", "autocannon", "autocannon.js"),
  packageJson: join(HARNESS_DIR, "node_modules", "autocannon", "package.json"),
};

export const WRK_SCRIPT = join(import.meta.dir, "wrk.lua");

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
    if (name === "h2load") {
      // "h2load nghttp2/1.52.0"
      const text = execFileSync(path, ["--version"], { encoding: "utf8" });
      return /nghttp2\/(\S+)/.exec(text)?.[1] ?? "unknown";
    }
    if (name === "oha" || name === "ws-load") {
      // "oha 1.16.0", "ws-load 0.1.0"
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
  /**
   * Open loop: send this many requests per second, latency from when each was due (oha only:
   * wrk and autocannon measure from when a request was sent, which hides queueing).
   */
  readonly rate?: number;
  /** Server processes behind the port (--workers); 1 when absent. */
  readonly processes?: number;
  /** The run's certificate (PEM file): what ws-load's handshake mode trusts, and only it. */
  readonly caFile?: string;
}

export interface ToolCommand {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Which stream carries the machine-readable result. */
  readonly resultOn: "stdout" | "stderr";
  /** Threads that send load: the most cores the tool can keep busy. */
  readonly threads: number;
  /** Connections the tool really opens. */
  readonly connections: number;
  /**
   * The most answers in flight at once, when it is more than the connections (the judge's
   * bound, Little's law): a broadcast's messages in flight, each to every subscriber.
   */
  readonly inFlight?: number;
  /** The status every answer must have (the scenario's); any other is a failed request. */
  readonly expectedStatus: number;
  /** Answers of another status that are right too, up to a count (a rate limit's 200s). */
  readonly allowance?: { readonly status: number; readonly upTo: number };
  /**
   * h2load: the file it logs each request to (the statuses and latencies come from there; it is
   * removed before the tool starts and after it is read), and the protocol it must speak.
   */
  readonly h2load?: { readonly logFile: string; readonly protocol: H2loadProtocol };
}

export type H2loadProtocol = "http/1.1" | "h2" | "h2c";

/**
 * Physical cores as oha counts them (num_cpus::get_physical(): distinct physical id / core id
 * pairs of /proc/cpuinfo, ignoring taskset), which is how many load threads oha starts.
 */
export function physicalCores(cpuinfo?: string): number {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return availableParallelism();
    }
  }
  const cores = new Set<string>();
  for (const block of text.split(/\n\s*\n/)) {
    const physical = /^physical id\s*:\s*(\d+)/m.exec(block)?.[1];
    const core = /^core id\s*:\s*(\d+)/m.exec(block)?.[1];
    if (physical !== undefined && core !== undefined) cores.add(`${physical}:${core}`);
  }
  return cores.size > 0 ? cores.size : availableParallelism();
}

/**
 * wrk gives each thread ⌊c / t⌋ connections, so `-c 400 -t 15` opens 390: use the most
 * threads (up to the cores it may use) that divide the connections evenly.
 */
export function wrkThreads(connections: number, cores: number): number {
  for (let t = Math.max(1, Math.min(cores, connections)); t > 1; t--) {
    if (connections % t === 0) return t;
  }
  return 1;
}

/** The scenario's own headers as "name: value" (oha) or "name=value" (autocannon) flags. */
function headerFlags(scenario: Scenario, separator: ": " | "="): string[] {
  return Object.entries(scenario.headers ?? {}).flatMap(([name, value]) => [
    "-H",
    `${name}${separator}${value}`,
  ]);
}

/** The headers for load/wrk.lua: one "name: value" per line. */
export function wrkHeaders(scenario: Scenario): string {
  return Object.entries(scenario.headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

/**
 * oha's connections: `-c` of them over HTTP/1.1; over HTTP/2 (the h2 scenario) the same number
 * of requests in flight, as fewer connections of several streams each (`-c` × `-p`, h2Split).
 */
function connectionFlags(plan: LoadPlan): string[] {
  if (plan.scenario.http2 !== true) return ["-c", String(plan.connections)];
  const { connections, streams } = h2Split(plan.connections);
  return ["--http2", "-c", String(connections), "-p", String(streams)];
}

function ohaArgs(tool: ToolInfo, plan: LoadPlan, post: boolean, contentType: string): string[] {
  return [
    tool.path,
    "--no-tui",
    // oha sends "Accept-Encoding: gzip, compress, deflate, br" unless told not to; wrk and
    // autocannon send none. Only the scenario's own headers go out, from every tool.
    "--disable-compression",
    "--output-format",
    "json",
    "-z",
    `${plan.durationSec}s`,
    ...connectionFlags(plan),
    // Wait for in-flight requests at the deadline instead of aborting them; the harness
    // computes req/s over the requested time, not over oha's stretched total.
    "-w",
    "-t",
    `${REQUEST_TIMEOUT_SEC}s`,
    "-m",
    plan.scenario.method,
    ...(post ? ["-H", `content-type: ${contentType}`, "-D", plan.bodyFile as string] : []),
    ...headerFlags(plan.scenario, ": "),
    ...(plan.rate === undefined ? [] : ["-q", String(plan.rate), "--latency-correction"]),
    // The tls scenario's certificate is the run's own, self-signed: oha verifies by default
    // (wrk and autocannon do not verify at all).
    ...(plan.url.startsWith("https:") ? ["--insecure"] : []),
    plan.url,
  ];
}

function autocannonArgs(
  tool: ToolInfo,
  plan: LoadPlan,
  post: boolean,
  contentType: string,
): string[] {
  return [
    AUTOCANNON.node,
    tool.path,
    "--json",
    "-c",
    String(plan.connections),
    "-d",
    String(plan.durationSec),
    "-t",
    String(REQUEST_TIMEOUT_SEC),
    "-m",
    plan.scenario.method,
    ...(post ? ["-H", `content-type=${contentType}`, "-i", plan.bodyFile as string] : []),
    ...headerFlags(plan.scenario, "="),
    plan.url,
  ];
}

/**
 * ws-load's handshake mode (the tls-handshake scenario): each connection a loop of new TLS
 * connections, one request each, the run's certificate the only one trusted.
 */
function handshakeArgs(tool: ToolInfo, plan: LoadPlan, threads: number): string[] {
  if (plan.caFile === undefined) {
    throw new Error(`the ${plan.scenario.name} scenario needs the run's certificate (caFile)`);
  }
  return [
    tool.path,
    "handshake",
    ...["--url", plan.url, "--ca", plan.caFile],
    ...["-c", String(plan.connections), "-d", String(plan.durationSec)],
    ...["-t", String(threads), "--timeout", String(REQUEST_TIMEOUT_SEC)],
  ];
}

/**
 * ws-load's command: the scenario's mode, its connections (broadcast: subscribers, and one
 * publisher more), one message in flight per connection (broadcast: one at a time), every wait
 * bounded by the request timeout.
 */
function wsLoadArgs(tool: ToolInfo, plan: LoadPlan, threads: number): string[] {
  // A WebSocket scenario: toolCommand gives ws-load no other.
  const ws = plan.scenario.websocket as NonNullable<Scenario["websocket"]>;
  return [
    tool.path,
    ws.mode,
    ...["--url", plan.url, "-c", String(plan.connections), "-d", String(plan.durationSec)],
    ...[
      "--size",
      String(ws.bytes),
      "-t",
      String(threads),
      "--timeout",
      String(REQUEST_TIMEOUT_SEC),
    ],
    ...(ws.inFlight === undefined ? [] : ["-p", String(ws.inFlight)]),
  ];
}

/**
 * h2load's warm-up before its measured window: its connections open then (TLS handshakes
 * included), so the window holds requests only. Its counts and log leave the warm-up out.
 */
export const H2LOAD_WARMUP_MS = 200;

let h2loadLogs = 0;

/** The protocol an h2load run must speak: HTTP/2 over TLS (ALPN) or in the clear, or HTTP/1.1. */
export function h2loadProtocol(plan: LoadPlan): H2loadProtocol {
  if (plan.scenario.http2 !== true) return "http/1.1";
  return plan.url.startsWith("https:") ? "h2" : "h2c";
}

/**
 * h2load's command: HTTP/1.1 (`--h1`, one request in flight per connection) or HTTP/2 (h2Split's
 * connections × streams; prior knowledge on an http:// URL), timed (-D) after its warm-up,
 * every request logged to `logFile`. It verifies no certificate. A method other than GET is
 * POST with a body (-d) or set through the `:method` pseudo-header.
 */
function h2loadArgs(tool: ToolInfo, plan: LoadPlan, threads: number, logFile: string): string[] {
  const { scenario } = plan;
  const h2 = scenario.http2 === true;
  const { connections, streams } = h2
    ? h2Split(plan.connections)
    : { connections: plan.connections, streams: 1 };
  const post = scenario.body !== undefined && plan.bodyFile !== undefined;
  const contentType = scenario.contentType ?? "application/json";
  const method = post
    ? ["-H", `content-type: ${contentType}`, "-d", plan.bodyFile as string]
    : scenario.method === "GET"
      ? []
      : ["-H", `:method: ${scenario.method}`];
  return [
    tool.path,
    ...(h2 ? [] : ["--h1"]),
    ...["-c", String(connections), "-m", String(streams), "-t", String(threads)],
    ...["-D", `${Math.round(plan.durationSec * 1000)}ms`],
    ...["--warm-up-time", `${H2LOAD_WARMUP_MS}ms`, `--log-file=${logFile}`],
    ...method,
    ...headerFlags(scenario, ": "),
    plan.url,
  ];
}

/** The TCP connections a plan opens: its connections, or h2Split's for HTTP/2. */
function openedConnections(plan: LoadPlan): number {
  return plan.scenario.http2 === true ? h2Split(plan.connections).connections : plan.connections;
}

export function toolCommand(tool: ToolInfo, plan: LoadPlan): ToolCommand {
  const { scenario, connections, durationSec, url, bodyFile } = plan;
  if (plan.rate !== undefined && tool.name !== "oha") {
    throw new Error(
      `${tool.name} cannot send a fixed rate with latency from when requests were due`,
    );
  }
  if (scenario.http2 === true && tool.name !== "oha" && tool.name !== "h2load") {
    throw new Error(
      `${tool.name} speaks HTTP/1.1 only: the ${scenario.name} scenario needs oha or h2load`,
    );
  }
  if (loadedByWsLoad(scenario) !== (tool.name === "ws-load")) {
    throw new Error(`the ${scenario.name} scenario cannot be loaded by ${tool.name}`);
  }
  const post = scenario.body !== undefined && bodyFile !== undefined;
  const contentType = scenario.contentType ?? "application/json";
  let argv: string[];
  let env: Record<string, string> = {};
  let resultOn: "stdout" | "stderr" = "stdout";
  let threads: number;
  let h2load: ToolCommand["h2load"];
  switch (tool.name) {
    case "oha":
      argv = ohaArgs(tool, plan, post, contentType);
      // Its fast path runs min(physical cores, connections) load threads (oha 1.x).
      threads = Math.min(physicalCores(), openedConnections(plan));
      break;
    case "wrk":
      threads = wrkThreads(connections, plan.cores);
      argv = [
        tool.path,
        ...["-t", String(threads), "-c", String(connections), "-d", `${durationSec}s`],
        ...["--timeout", `${REQUEST_TIMEOUT_SEC}s`, "--latency", "-s", WRK_SCRIPT, url],
      ];
      env = {
        BENCH_METHOD: scenario.method,
        BENCH_CONNECTIONS: String(connections),
        ...(post ? { BENCH_CONTENT_TYPE: contentType, BENCH_BODY_FILE: bodyFile } : {}),
        ...(scenario.headers ? { BENCH_HEADERS: wrkHeaders(scenario) } : {}),
        // wrk tells only status > 399 from the rest: a scenario that expects another status
        // than 200 has it count every status (a response() hook, which costs wrk some speed).
        ...(expectedStatus(scenario) === 200 ? {} : { BENCH_COUNT_STATUSES: "1" }),
      };
      resultOn = "stderr";
      break;
    case "autocannon":
      argv = autocannonArgs(tool, plan, post, contentType);
      threads = 1;
      break;
    case "h2load": {
      // Each thread drives its share of the connections on one core (h2load -t).
      threads = Math.max(1, Math.min(plan.cores, openedConnections(plan)));
      const logFile = join(tmpdir(), `bench-h2load-${process.pid}-${++h2loadLogs}.log`);
      argv = h2loadArgs(tool, plan, threads, logFile);
      h2load = { logFile, protocol: h2loadProtocol(plan) };
      break;
    }
    case "ws-load":
      // Its connections are tasks on this many threads, each of which can keep a core busy.
      threads = Math.max(1, Math.min(plan.cores, connections));
      argv = scenario.handshake
        ? handshakeArgs(tool, plan, threads)
        : wsLoadArgs(tool, plan, threads);
      break;
  }
  if (plan.cpus !== undefined) argv = ["taskset", "-c", plan.cpus, ...argv];
  const allowance = allowedOtherAnswers(scenario, durationSec, plan.processes);
  return {
    argv,
    env,
    resultOn,
    threads,
    connections,
    ...(scenario.websocket?.inFlight
      ? { inFlight: connections * scenario.websocket.inFlight }
      : {}),
    expectedStatus: expectedStatus(scenario),
    ...(allowance ? { allowance } : {}),
    ...(h2load ? { h2load } : {}),
  };
}
