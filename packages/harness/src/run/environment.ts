// What a run needs of this machine, checked before anything starts: the load generators, the
// results folder, and room for the connections (open files, local ports). Each refusal is one
// line saying how to fix it (an EnvironmentError: exit 2).

import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../common/root.ts";
import { onPath } from "../hosts/host.ts";
import type { ToolName } from "../load/parse.ts";
import { EnvironmentError } from "./errors.ts";

const INSTALL: Record<ToolName, string> = {
  oha: "install it with: cargo install --locked oha   (or: brew install oha)",
  wrk: "install it with: apt-get install wrk   (or: brew install wrk)",
  autocannon: `it is a project dependency: run 'bun install' in ${REPO_ROOT}`,
  h2load: "install it with: apt-get install nghttp2-client   (or: brew install nghttp2)",
  "ws-load": `it is this project's own (Rust 1.88+): build it with: cargo build --release --locked --manifest-path ${join(REPO_ROOT, "tools/ws-load/Cargo.toml")}`,
};

/** Where ws-load is built in place (cargo build --release in tools/ws-load). */
export const WS_LOAD_BUILT = join(REPO_ROOT, "tools", "ws-load", "target", "release", "ws-load");

/** ws-load as built in place, else on the PATH or where `cargo install` puts it. */
export function findWsLoad(): string | undefined {
  if (existsSync(WS_LOAD_BUILT)) return WS_LOAD_BUILT;
  const cargo = join(process.env.HOME ?? homedir(), ".cargo", "bin");
  return onPath("ws-load") ?? onPath("ws-load", cargo);
}

/** The generator of the scenarios loadedByWsLoad (WebSocket, tls-handshake), or how to build it. */
export function wsTool(scenario: string): string {
  const path = findWsLoad();
  if (path === undefined) {
    throw new EnvironmentError(
      `the ${scenario} scenario needs ws-load, this project's load generator of WebSocket and new TLS connections, which is not built; ${INSTALL["ws-load"]}`,
    );
  }
  return path;
}

/** oha on the PATH or where cargo installs it. */
export function findOha(): string | undefined {
  const cargo = join(process.env.HOME ?? homedir(), ".cargo", "bin");
  return onPath("oha") ?? onPath("oha", cargo);
}

/** oha's JSON output replaced its old -j flag; an oha without it cannot be parsed. */
const ohaCurrent = (path: string) =>
  spawnSync(path, ["--help"], { encoding: "utf8" }).stdout?.includes("--output-format") === true;

/**
 * The closed-loop generator: the one asked for, or the one least likely to be the bottleneck
 * (on two cores wrk reached ~110k req/s at 75-87% of its core where oha saturated at ~60k,
 * design.md), then oha, then the embedded autocannon, which saturates first. h2load only when
 * asked for.
 */
export function chooseTool(
  wanted: string | undefined,
  warn: (line: string) => void,
): { name: ToolName; path: string } {
  if (wanted === "h2load") {
    const h2load = onPath("h2load");
    if (h2load) return { name: "h2load", path: h2load };
    throw new EnvironmentError(`h2load is not installed; ${INSTALL.h2load}`);
  }
  if (wanted === undefined || wanted === "wrk") {
    const wrk = onPath("wrk");
    if (wrk) return { name: "wrk", path: wrk };
    if (wanted) throw new EnvironmentError(`wrk is not installed; ${INSTALL.wrk}`);
  }
  if (wanted === undefined || wanted === "oha") {
    const oha = findOha();
    if (oha && ohaCurrent(oha)) return { name: "oha", path: oha };
    const why = oha ? `oha at ${oha} is too old (no --output-format json)` : "oha is not installed";
    if (wanted) throw new EnvironmentError(`${why}; ${INSTALL.oha}`);
    if (oha) warn(`benchmark.sh: ${why}; using autocannon`);
  }
  const autocannon = join(REPO_ROOT, "packages/harness/node_modules/autocannon/autocannon.js");
  if (!existsSync(autocannon))
    throw new EnvironmentError(`autocannon is missing; ${INSTALL.autocannon}`);
  return { name: "autocannon", path: autocannon };
}

/** --rates sends at a constant rate with oha; the others cannot. */
export function rateTool(): string {
  const oha = findOha();
  if (!oha)
    throw new EnvironmentError(
      `--rates needs oha (wrk and autocannon measure latency from when a request was sent, not when it was due, which hides queueing); ${INSTALL.oha}`,
    );
  return oha;
}

/** The results folder: new (no results.json is ever overwritten), creatable and writable. */
export function usableOutput(dir: string): void {
  if (existsSync(join(dir, "results.json")))
    throw new EnvironmentError(
      `${dir} already holds a results.json; choose another --output (nothing was overwritten)`,
    );
  const again = "choose another --output";
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new EnvironmentError(`--output ${dir} is a file, not a folder; ${again}`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    throw new EnvironmentError(`cannot create the --output folder ${dir}; ${again}`);
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new EnvironmentError(`cannot write to the --output folder ${dir}; ${again}`);
  }
}

/** This process's open-file limits (soft, hard) from /proc; undefined where there is none. */
export function openFileLimits(
  limits = readOr("/proc/self/limits"),
): { soft: number; hard: number } | undefined {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits ?? "");
  if (!m) return undefined;
  const n = (v: string | undefined) => (v === "unlimited" ? Infinity : Number(v));
  return { soft: n(m[1]), hard: n(m[2]) };
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Room for `connections`: each needs a descriptor in the load generator and one in the
 * server, and a local port; past `ulimit -n` every connection failed and the run said only
 * "100% socket errors". Bun raises its own soft open-file limit to the hard one when it starts,
 * and the apps and load generators the harness starts inherit it (environment.test.ts).
 */
export function roomFor(
  connections: number,
  limits = openFileLimits(),
  portRange = readOr("/proc/sys/net/ipv4/ip_local_port_range"),
): void {
  const needed = connections + 256;
  if (limits && needed > limits.soft) {
    throw new EnvironmentError(
      `-c ${connections} needs about ${needed} open files per process, but the limit is ${limits.soft} (hard limit ${limits.hard}): raise it (ulimit -n ${needed}, as root or in /etc/security/limits.conf) or use fewer connections`,
    );
  }
  const [low, high] = (portRange ?? "").trim().split(/\s+/).map(Number);
  if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high)) return;
  const ports = high - low + 1;
  if (connections > ports)
    throw new EnvironmentError(
      `-c ${connections} is more connections than the ${ports} local ports one address has (net.ipv4.ip_local_port_range); use fewer connections`,
    );
}

/** A command a flag needs (ssh for --server-host, git for --against), or how to get it. */
export function needCommand(name: string, why: string): void {
  if (!onPath(name)) throw new EnvironmentError(why);
}
