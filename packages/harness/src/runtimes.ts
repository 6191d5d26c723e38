// The runtime matrix (./benchmark.sh --node 22,24 --bun 1.3 --deno 2.9): each version asked
// for is resolved on the npm registry (a major or major.minor to its newest release, an exact
// version as given), installed once into the project's own cache (.cache/runtimes, never the
// user's global setup) from the registry's `node`, `bun` and `deno` packages, and checked by
// running `--version`. All of it happens before anything is measured: a version that cannot be
// had stops the run with the reason.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppSpec, Runtime } from "@bench/contract";
import { runWatched, WatchedTimeout } from "./watched.ts";

/** "22", "1.3", "2.9.6": what a version flag takes. */
export const VERSION_SPEC = /^\d+(\.\d+){0,2}$/;

export class RuntimeError extends Error {}

/** One runtime version of the run: as asked, as resolved, and the executable to start. */
export interface RuntimeBuild {
  readonly runtime: Runtime;
  readonly asked: string;
  readonly version: string;
  readonly binary: string;
}

/** An app of the run: with --node/--bun/--deno, on one version of its runtime. */
export type AppRun = AppSpec & {
  readonly build?: RuntimeBuild;
  /** --calibrate: extra loop iterations per request (BENCH_EXTRA_WORK), a share of its cost. */
  readonly extraWork?: { readonly share: number; readonly iterations: number };
};

/**
 * The environment that makes start-app.sh run this version (BENCH_NODE, BENCH_BUN,
 * BENCH_DENO), and a calibration row's extra work; every other app runs without any.
 */
export const buildEnv = (app: AppRun): Record<string, string> => ({
  ...(app.build ? { [`BENCH_${app.runtime.toUpperCase()}`]: app.build.binary } : {}),
  BENCH_EXTRA_WORK: app.extraWork ? String(app.extraWork.iterations) : "",
});

/** Where each runtime's npm package puts its executable, relative to the install folder. */
const BINARY: Record<Runtime, string> = {
  node: "node_modules/.bin/node",
  bun: "node_modules/.bin/bun",
  // Deno's .bin entry is a Node wrapper (slower to start, its docs warn): the binary itself.
  deno: "node_modules/deno/deno",
};

/**
 * The oldest release the apps run on, and why, checked by running every app of the runtime
 * against the contract (2026-11-22): Node 22.17.1 and 23.5.0 refuse a .ts entry, 22.18.0 and
 * 23.6.0 (type stripping on by default) conform; Bun 1.2.3 (Bun.serve's routes, which bun-bare
 * uses, are new in it) and Deno 2.0.0 conform.
 */
export const OLDEST: Record<Runtime, { version: string; why: string }[]> = {
  node: [
    {
      version: "22.18.0",
      why: "the apps are TypeScript that Node runs directly, with type stripping on by default from Node 22.18 (23.6 in the 23 line)",
    },
    {
      version: "23.6.0",
      why: "the apps are TypeScript that Node runs directly, with type stripping on by default from Node 23.6 (22.18 in the 22 line)",
    },
  ],
  bun: [
    { version: "1.2.3", why: "bun-bare serves with Bun.serve's routes table, new in Bun 1.2.3" },
  ],
  deno: [
    {
      version: "2.0.0",
      why: "the apps need Deno 2's support for package.json workspaces and node_modules",
    },
  ],
};

const parts = (version: string) => version.split(".").map(Number);

/** Negative, zero or positive as a is older than, equal to or newer than b (x.y.z only). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Why the apps cannot run on this version, or undefined when they can. */
export function tooOld(runtime: Runtime, version: string): string | undefined {
  const [major] = parts(version);
  // The floor of the version's own major line, else the lowest floor above it.
  const floors = OLDEST[runtime];
  const floor =
    floors.find((f) => parts(f.version)[0] === major) ??
    floors.find((f) => compareVersions(f.version, version) > 0);
  if (!floor || compareVersions(version, floor.version) >= 0) return undefined;
  return `${runtime} ${version} is older than the apps can run: ${floor.why}`;
}

/** npm's own limits: offline, it otherwise retries for minutes before it says anything. */
const NPM_FETCH_FLAGS = ["--fetch-timeout=30000", "--fetch-retries=1"];

/** The published versions `npm view <package>@<spec> version` lists (throws as npm does). */
export type Registry = (runtime: Runtime, spec: string) => string[];

const npmView: Registry = (runtime, spec) => {
  // Bounded twice: npm's fetch limits make it give up offline, the timeout if it still hangs.
  const out = execFileSync(
    "npm",
    ["view", ...NPM_FETCH_FLAGS, `${runtime}@${spec}`, "version", "--json"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 90_000, killSignal: "SIGKILL" },
  );
  const parsed: unknown = out.trim() === "" ? [] : JSON.parse(out);
  return (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => typeof v === "string");
};

/** What npm said when it failed; when there is no npm at all, how to get it. */
function npmError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    return "npm is not installed, and it fetches the runtimes: install Node.js (which brings npm)";
  }
  if (code === "ETIMEDOUT") {
    return "npm error: no answer within 90 s: is the npm registry reachable? (offline, or a proxy: HTTPS_PROXY, npm_config_registry)";
  }
  return String((error as { stderr?: unknown }).stderr ?? error);
}

/** The newest stable release matching the spec: "22" → "22.23.3"; an exact version as given. */
export function resolveVersion(runtime: Runtime, spec: string, registry = npmView): string {
  let listed: string[];
  try {
    listed = registry(runtime, spec);
  } catch (error) {
    const stderr = npmError(error);
    const why = /E404|No match/.test(stderr)
      ? "no such release is published"
      : (stderr.split("\n").find((l) => /error/i.test(l)) ?? stderr).trim();
    throw new RuntimeError(
      `--${runtime} ${spec}: cannot resolve it on the npm registry (npm view ${runtime}@${spec}): ${why}`,
    );
  }
  const stable = listed.filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const newest = stable.sort(compareVersions).at(-1);
  if (!newest) {
    throw new RuntimeError(`--${runtime} ${spec}: the npm registry lists no release matching it`);
  }
  return newest;
}

/** What `<binary> --version` prints, as a bare version: "v22.23.3" and "deno 2.9.6 (...)" too. */
export function versionOf(binary: string): string | undefined {
  try {
    const out = execFileSync(binary, ["--version"], { encoding: "utf8", stdio: "pipe" });
    return /(\d+\.\d+\.\d+)/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

/** An install that takes longer than this is stopped: the registry is unreachable or too slow. */
export const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** How often a running install says it still is. */
const INSTALL_PROGRESS_MS = 15_000;

/**
 * The executable of `runtime` `version`, installed into `cacheDir` if it is not there yet:
 * npm installs into a scratch folder that is renamed into place only once the binary reports
 * the version, so an interrupted, timed-out or failed install never passes for a finished one
 * (and leaves no scratch folder). The install says every 15 s that it is still running, and
 * is stopped, with its whole process tree, after `timeoutMs`.
 */
export async function installRuntime(
  runtime: Runtime,
  version: string,
  cacheDir: string,
  log: (line: string) => void,
  timeoutMs = INSTALL_TIMEOUT_MS,
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
  const wanted = Object.entries(asked) as [Runtime, readonly string[]][];
  const resolved = wanted.flatMap(([runtime, specs]) =>
    specs.map((spec) => ({
      runtime,
      asked: spec,
      version: resolveVersion(runtime, spec, registry),
    })),
  );
  for (const r of resolved) {
    const old = tooOld(r.runtime, r.version);
    if (old) throw new RuntimeError(`--${r.runtime} ${r.asked}: ${old}`);
  }
  const seen = new Set<string>();
  for (const r of resolved) {
    const key = `${r.runtime}@${r.version}`;
    if (seen.has(key)) {
      throw new RuntimeError(
        `--${r.runtime} asks for ${r.version} twice (${r.asked} resolves to it)`,
      );
    }
    seen.add(key);
  }
  if (resolved.length > 0 && !existsSync(cacheDir)) mkdirSync(cacheDir, { recursive: true });
  const builds: RuntimeBuild[] = [];
  for (const r of resolved) {
    builds.push({ ...r, binary: await installRuntime(r.runtime, r.version, cacheDir, log) });
  }
  return builds;
}

/** "node-hono@22.23.3": an app on one version of the run's matrix (its results' row). */
export const versionedName = (name: string, version: string) => `${name}@${version}`;

/** The registry's name of an app, with or without its version: "node-hono@22.23.3" → "node-hono". */
export const registryName = (name: string) => name.split(/[@+]/)[0] as string;

/** The version a row's name carries, if any. */
export const versionOfName = (name: string): string | undefined => name.split("@")[1];
