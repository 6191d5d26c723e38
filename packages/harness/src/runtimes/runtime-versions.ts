// The runtime matrix's decisions, apart from npm and the file system (runtimes.ts does those):
// what a version flag takes, which release a spec resolves to among those the registry lists,
// which versions the apps cannot run on, the environment that starts an app on its version,
// and the row names (app@version) the matrix gives.

import type { AppSpec, Runtime } from "@bench/contract";

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
  /** --against: the row runs the app of another commit, from a checkout of it (`root`). */
  readonly checkout?: { readonly ref: string; readonly commit: string; readonly root: string };
};

/**
 * The environment that makes start-app.sh run this version (BENCH_NODE, BENCH_BUN,
 * BENCH_DENO), and a calibration row's extra work; every other app runs without any.
 */
export const buildEnv = (app: AppRun): Record<string, string> => ({
  ...(app.build ? { [`BENCH_${app.runtime.toUpperCase()}`]: app.build.binary } : {}),
  BENCH_EXTRA_WORK: app.extraWork ? String(app.extraWork.iterations) : "",
});

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

/** The published versions `npm view <package>@<spec> version` lists (throws as npm does). */
export type Registry = (runtime: Runtime, spec: string) => string[];

/** The versions in what `npm view ... version --json` printed: one string, a list, or nothing. */
export function listedVersions(out: string): string[] {
  const parsed: unknown = out.trim() === "" ? [] : JSON.parse(out);
  return (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => typeof v === "string");
}

/** What npm said when it failed; when there is no npm at all, how to get it. */
export function npmError(error: unknown): string {
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
export function resolveVersion(runtime: Runtime, spec: string, registry: Registry): string {
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

/** A version of the matrix: as asked, and the release it resolved to. */
export interface Resolved {
  readonly runtime: Runtime;
  readonly asked: string;
  readonly version: string;
}

/**
 * Every version asked for, resolved and checked against what the apps can run, in the order
 * asked. Throws RuntimeError, naming the version and why: one the apps cannot run, or one
 * release asked for twice (as "22" and "22.23.3", say).
 */
export function resolveRuntimes(
  asked: Partial<Record<Runtime, readonly string[]>>,
  registry: Registry,
): Resolved[] {
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
  return resolved;
}

/** What `<binary> --version` printed, as a bare version: "v22.23.3" and "deno 2.9.6 (...)" too. */
export const bareVersion = (out: string): string | undefined => /(\d+\.\d+\.\d+)/.exec(out)?.[1];

/** "node-hono@22.23.3": an app on one version of the run's matrix (its results' row). */
export const versionedName = (name: string, version: string) => `${name}@${version}`;

/**
 * The registry's name of a row: "node-hono@22.23.3" (a version, or a commit with --against),
 * "bun-bare+5%" (a calibration row) and "bun-bare#2" (a side-by-side A/A's second) are all
 * the app "node-hono" or "bun-bare".
 */
export const registryName = (name: string) => name.split(/[@+#]/)[0] as string;

/** The version a row's name carries, if any. */
export const versionOfName = (name: string): string | undefined => name.split("@")[1];
