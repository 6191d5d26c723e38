// The runtime matrix (./benchmark.sh --node 22,24 --bun 1.3 --deno 2.9): each version asked
// for is resolved on the npm registry (a major or major.minor to its newest release, an exact
// version as given), installed once into the project's own cache (.cache/runtimes, never the
// user's global setup) from the registry's `node`, `bun` and `deno` packages, and checked by
// running `--version`. All of it happens before anything is measured: a version that cannot be
// had stops the run with the reason. This module runs npm and the binaries; what is decided
// from their answers (which release, which are too old) is in runtime-versions.ts.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "@bench/contract";
import {
  bareVersion,
  listedVersions,
  npmError,
  type Registry,
  type RuntimeBuild,
  RuntimeError,
  resolveRuntimes,
} from "./runtime-versions.ts";
import { runWatched, WatchedTimeout } from "./watched.ts";

/** Where each runtime's npm package puts its executable, relative to the install folder. */
const BINARY: Record<Runtime, string> = {
  node: "node_modules/.bin/node",
  bun: "node_modules/.bin/bun",
  // Deno's .bin entry is a Node wrapper (slower to start, its docs warn): the binary itself.
  deno: "node_modules/deno/deno",
};

/** npm's own limits: offline, it otherwise retries for minutes before it says anything. */
const NPM_FETCH_FLAGS = ["--fetch-timeout=30000", "--fetch-retries=1"];

/** The registry as npm sees it: `npm view <runtime>@<spec> version --json`. */
export const npmView: Registry = (runtime, spec) => {
  // Bounded twice: npm's fetch limits make it give up offline, the timeout if it still hangs.
  const out = execFileSync(
    "npm",
    ["view", ...NPM_FETCH_FLAGS, `${runtime}@${spec}`, "version", "--json"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 90_000, killSignal: "SIGKILL" },
  );
  return listedVersions(out);
};

/** What `<binary> --version` prints, as a bare version: "v22.23.3" and "deno 2.9.6 (...)" too. */
export function versionOf(binary: string): string | undefined {
  try {
    return bareVersion(execFileSync(binary, ["--version"], { encoding: "utf8", stdio: "pipe" }));
  } catch {
    return undefined;
  }
}

/**
 * The one limit of every install a run makes, by default (seconds): an install that takes
 * longer is stopped, the registry unreachable or too slow. BENCH_INSTALL_TIMEOUT sets it for
 * scripts/bootstrap.sh (Bun and the dependencies), whose default is this one, and here.
 */
export const INSTALL_LIMIT_SEC = 300;

/** The install limit in ms: BENCH_INSTALL_TIMEOUT (whole seconds), else INSTALL_LIMIT_SEC. */
export function installLimitMs(env: Record<string, string | undefined> = process.env): number {
  const given = env.BENCH_INSTALL_TIMEOUT;
  if (given === undefined || given === "") return INSTALL_LIMIT_SEC * 1000;
  if (!/^[1-9][0-9]*$/.test(given)) {
    throw new RuntimeError(
      `BENCH_INSTALL_TIMEOUT is the installs' limit in whole seconds, got '${given}'`,
    );
  }
  return Number(given) * 1000;
}
/** How often a running install says it still is. */
const INSTALL_PROGRESS_MS = 15_000;

/**
 * The executable of `runtime` `version`, installed into `cacheDir` if it is not there yet:
 * npm installs into a scratch folder that is renamed into place only once the binary reports
 * the version, so an interrupted, timed-out or failed install never passes for a finished one
 * (and leaves no scratch folder). The install says every 15 s that it is still running, and
 * is stopped, with its whole process tree, after `timeoutMs` (the install limit).
 */
export async function installRuntime(
  runtime: Runtime,
  version: string,
  cacheDir: string,
  log: (line: string) => void,
  timeoutMs = installLimitMs(),
): Promise<string> {
  const dir = join(cacheDir, `${runtime}-${version}`);
  const binary = join(dir, BINARY[runtime]);
  if (versionOf(binary) === version) return binary;
  mkdirSync(cacheDir, { recursive: true });
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  log(`bench: installing ${runtime} ${version} into ${dir} (npm, once)...`);
  const args = ["install", "--silent", "--no-audit", "--no-fund", ...NPM_FETCH_FLAGS];
  let failure: string | undefined;
  try {
    const result = await runWatched(
      "npm",
      [...args, "--prefix", scratch, `${runtime}@${version}`],
      {
        timeoutMs,
        progressEveryMs: INSTALL_PROGRESS_MS,
        progress: (sec) => log(`bench: still installing ${runtime} ${version} (${sec} s)...`),
      },
    );
    if (result.code !== 0) {
      failure = result.signal
        ? `stopped by ${result.signal}`
        : (result.stderr.trim().split("\n").at(-1) ?? `exit ${result.code}`);
    }
  } catch (error) {
    failure =
      error instanceof WatchedTimeout
        ? `${error.message}: is the npm registry reachable? (offline, or a proxy: HTTPS_PROXY, npm_config_registry)`
        : npmError(error);
  }
  if (failure !== undefined) {
    rmSync(scratch, { recursive: true, force: true });
    throw new RuntimeError(`npm could not install ${runtime}@${version}: ${failure}`);
  }
  const got = versionOf(join(scratch, BINARY[runtime]));
  if (got !== version) {
    rmSync(scratch, { recursive: true, force: true });
    throw new RuntimeError(
      `${runtime}@${version} installed, but its ${BINARY[runtime]} reports ${got ?? "no version"}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  return binary;
}

/** The project's runtime cache: kept between runs, ignored by git. */
export const runtimeCache = (root: string) => join(root, ".cache", "runtimes");

/**
 * Every version asked for, resolved, checked against what the apps can run and installed, in
 * the order asked. Throws RuntimeError, naming the version and why, before anything runs.
 */
export async function prepareRuntimes(
  asked: Partial<Record<Runtime, readonly string[]>>,
  cacheDir: string,
  log: (line: string) => void,
  registry: Registry = npmView,
): Promise<RuntimeBuild[]> {
  const resolved = resolveRuntimes(asked, registry);
  if (resolved.length > 0 && !existsSync(cacheDir)) mkdirSync(cacheDir, { recursive: true });
  const builds: RuntimeBuild[] = [];
  for (const r of resolved) {
    builds.push({ ...r, binary: await installRuntime(r.runtime, r.version, cacheDir, log) });
  }
  return builds;
}
