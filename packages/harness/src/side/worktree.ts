// --against GIT_REF: the named apps as another commit has them, measured side by side with this
// checkout's. The commit is checked out once into .cache/against/<commit> (a git worktree: it
// shares this repository's objects) with its locked dependencies, so its apps start as that
// commit's users start them, on the runtimes its own lockfile pins; a later run against the
// same commit reuses it. Where the commit's bun.lock is this checkout's (most commits: a change
// to the code, not to the dependencies), this checkout's node_modules folders are hard-linked
// into it, which takes about a second and no space, and Bun checks them offline; otherwise its
// dependencies are installed there, from the caches first. A checkout whose install did not
// finish is removed, so the next run starts it again; of the others, the KEPT_CHECKOUTS used
// last stay, older ones are removed. Every run states what the checkout holds on disk.

import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type AppRun, registryName } from "../runtimes/runtime-versions.ts";
import { installLimitMs } from "../runtimes/runtimes.ts";
import { runWatched, WatchedTimeout } from "../runtimes/watched.ts";

/** Why --against cannot be had (exit 2, nothing measured). */
export class CheckoutError extends Error {}

export interface Checkout {
  /** As given: "HEAD~1", "main", a tag or a hash. */
  readonly ref: string;
  readonly commit: string;
  /** The worktree holding that commit, its dependencies installed. */
  readonly root: string;
}

const MARKER = ".bench-installed";
/** Checkouts kept in .cache/against, the current one included: the ones used last. */
export const KEPT_CHECKOUTS = 3;

const git = (repo: string, args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();

/** The commit a ref names in `repo`, or a CheckoutError saying it names none. */
export function commitOf(repo: string, ref: string): string {
  try {
    return git(repo, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new CheckoutError(
      `--against ${ref}: this checkout has no such commit (git rev-parse ${ref})`,
    );
  }
}

/** Where the checkout of `commit` lives. */
export const checkoutDir = (repo: string, commit: string) =>
  join(repo, ".cache", "against", commit.slice(0, 12));

function addWorktree(repo: string, dir: string, commit: string): void {
  if (existsSync(dir)) {
    try {
      git(repo, ["worktree", "remove", "--force", dir]);
    } catch {
      // not a worktree git knows (a half-made folder): removed below
    }
    rmSync(dir, { recursive: true, force: true });
  }
  git(repo, ["worktree", "prune"]);
  git(repo, ["worktree", "add", "--detach", "--force", dir, commit]);
}

/** `bun install --frozen-lockfile` in the checkout (offline: from the caches alone). */
async function bunInstall(
  dir: string,
  ref: string,
  log: (line: string) => void,
  offline: boolean,
): Promise<Awaited<ReturnType<typeof runWatched>>> {
  try {
    return await runWatched(
      process.execPath,
      ["install", "--frozen-lockfile", ...(offline ? ["--offline"] : [])],
      {
        cwd: dir,
        timeoutMs: installLimitMs(),
        progressEveryMs: 15_000,
        progress: (sec) => log(`bench: --against ${ref}: still installing (${sec} s)...`),
        // the `node` package's install script runs npm: from its cache too
        ...(offline ? { env: { ...process.env, npm_config_offline: "true" } } : {}),
      },
    );
  } catch (error) {
    const why = error instanceof WatchedTimeout ? error.message : String(error);
    throw new CheckoutError(
      `--against ${ref}: bun install in ${dir} failed: ${why} (is the npm registry reachable?)`,
    );
  }
}

/** The commit's locked dependencies installed in the checkout: the caches first, then the network. */
async function install(dir: string, ref: string, log: (line: string) => void): Promise<void> {
  log(
    `bench: --against ${ref}: installing its locked dependencies (bun install --frozen-lockfile)`,
  );
  if ((await bunInstall(dir, ref, log, true)).code === 0) return;
  const result = await bunInstall(dir, ref, log, false);
  if (result.code !== 0) {
    const tail = result.stderr.trim().split("\n").slice(-3).join(" / ");
    throw new CheckoutError(
      `--against ${ref}: bun install in ${dir} exited ${result.code ?? result.signal}: ${tail}`,
    );
  }
}

/** Whether the checkout's bun.lock is byte for byte the repository's. */
function sameLockfile(repo: string, dir: string): boolean {
  const read = (root: string) => {
    try {
      return readFileSync(join(root, "bun.lock"));
    } catch {
      return undefined;
    }
  };
  const [mine, theirs] = [read(repo), read(dir)];
  return mine !== undefined && theirs !== undefined && mine.equals(theirs);
}

/**
 * The repository's node_modules folders (its own and each workspace's: package.json's
 * "dir/*" patterns), relative to it.
 */
export function nodeModulesFolders(repo: string): string[] {
  const patterns: string[] =
    JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).workspaces ?? [];
  const workspaces = patterns.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, "");
    if (parent === pattern) return [pattern];
    const dir = join(repo, parent);
    return existsSync(dir) ? readdirSync(dir).map((name) => join(parent, name)) : [];
  });
  return ["node_modules", ...workspaces.map((w) => join(w, "node_modules"))].filter((f) =>
    existsSync(join(repo, f)),
  );
}

/**
 * This checkout's installed dependencies, hard-linked into `dir` (cp -al: the files shared,
 * their symlinks copied as they are, relative, so a workspace link resolves to the checkout's
 * own package), then checked by Bun offline; false, and nothing left of them, if that fails.
 */
async function borrowDependencies(repo: string, dir: string, ref: string): Promise<boolean> {
  const folders = nodeModulesFolders(repo).filter((f) => existsSync(join(dir, dirname(f))));
  try {
    for (const folder of folders) {
      execFileSync("cp", ["-al", join(repo, folder), join(dir, folder)], { stdio: "pipe" });
    }
    if ((await bunInstall(dir, ref, () => {}, true)).code === 0) return true;
  } catch {
    // cp or the check failed: installed the usual way instead
  }
  for (const folder of folders) rmSync(join(dir, folder), { recursive: true, force: true });
  return false;
}

/** The commit's dependencies in its checkout: this checkout's when the lockfiles match. */
async function dependencies(repo: string, dir: string, ref: string, log: (line: string) => void) {
  const began = performance.now();
  if (sameLockfile(repo, dir) && (await borrowDependencies(repo, dir, ref))) {
    const sec = ((performance.now() - began) / 1000).toFixed(1);
    log(
      `bench: --against ${ref}: its bun.lock is this checkout's: this checkout's installed dependencies hard-linked in (${sec} s)`,
    );
    return;
  }
  await install(dir, ref, log);
}

/**
 * What a folder holds on disk, in bytes (allocated blocks): `own`, in files no other path
 * shares, and `shared`, in files hard-linked from elsewhere too (this checkout's node_modules,
 * Bun's cache), which cost nothing more. Symlinks are not followed. `du` counts the second kind
 * in full, which made every checkout look like 700 MB.
 */
export function diskUse(dir: string): { own: number; shared: number } {
  const use = { own: 0, shared: 0 };
  const walk = (path: string) => {
    const stat = lstatSync(path);
    const bytes = stat.blocks * 512;
    if (stat.isDirectory()) {
      use.own += bytes;
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if (stat.isFile()) {
      if (stat.nlink > 1) use.shared += bytes;
      else use.own += bytes;
    }
  };
  walk(dir);
  return use;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

function logDiskUse(root: string, ref: string, log: (line: string) => void): void {
  const { own, shared } = diskUse(root);
  log(
    `bench: --against ${ref}: the checkout holds ${megabytes(own)} of its own on disk, and ` +
      `${megabytes(shared)} in files hard-linked from elsewhere (this checkout's node_modules, ` +
      `Bun's cache), which take no more space; ${KEPT_CHECKOUTS} checkouts are kept (.cache/against)`,
  );
}

/** The commit `ref` names, checked out and installed (or found so from an earlier run). */
export async function prepareCheckout(
  repo: string,
  ref: string,
  log: (line: string) => void,
): Promise<Checkout> {
  const commit = commitOf(repo, ref);
  const root = checkoutDir(repo, commit);
  const marker = join(root, MARKER);
  if (existsSync(marker) && readFileSync(marker, "utf8").trim() === commit) {
    log(
      `bench: --against ${ref}: commit ${commit.slice(0, 12)}, checked out and installed in ${root}`,
    );
    const now = new Date();
    utimesSync(marker, now, now);
    pruneCheckouts(repo, root);
    logDiskUse(root, ref, log);
    return { ref, commit, root };
  }
  log(`bench: --against ${ref}: checking out commit ${commit.slice(0, 12)} into ${root}`);
  try {
    addWorktree(repo, root, commit);
    await dependencies(repo, root, ref, log);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    try {
      git(repo, ["worktree", "prune"]);
    } catch {
      // nothing to prune
    }
    if (error instanceof CheckoutError) throw error;
    throw new CheckoutError(
      `--against ${ref}: could not check out ${commit.slice(0, 12)}: ${String(error)}`,
    );
  }
  writeFileSync(marker, `${commit}\n`);
  pruneCheckouts(repo, root);
  logDiskUse(root, ref, log);
  return { ref, commit, root };
}

/**
 * Removes the checkouts in .cache/against beyond the KEPT_CHECKOUTS used last (by their
 * marker's time; a folder without one is a leftover), never `current`.
 */
export function pruneCheckouts(repo: string, current: string): void {
  const parent = join(repo, ".cache", "against");
  const used = (dir: string) => {
    try {
      return statSync(join(dir, MARKER)).mtimeMs;
    } catch {
      return 0;
    }
  };
  const others = readdirSync(parent)
    .map((name) => join(parent, name))
    .filter((dir) => dir !== current)
    .sort((a, b) => used(b) - used(a));
  for (const dir of others.slice(KEPT_CHECKOUTS - 1)) {
    try {
      git(repo, ["worktree", "remove", "--force", dir]);
    } catch {
      // not a worktree git knows: removed below
    }
    rmSync(dir, { recursive: true, force: true });
  }
  git(repo, ["worktree", "prune"]);
}

/** The row of `app` at the checkout: "bun-bare@1a2b3c4", started from the checkout's folder. */
export function atCheckout(app: AppRun, checkout: Checkout): AppRun {
  const dir = join(checkout.root, "apps", registryName(app.name));
  if (!existsSync(join(dir, "package.json"))) {
    throw new CheckoutError(
      `--against ${checkout.ref}: ${app.name} does not exist at ${checkout.commit.slice(0, 12)}`,
    );
  }
  return { ...app, name: `${app.name}@${checkout.commit.slice(0, 7)}`, checkout };
}

/** The run's rows: each app at the checkout, then as this checkout has it (the pair). */
export const withCheckout = (apps: readonly AppRun[], checkout: Checkout): AppRun[] =>
  apps.flatMap((app) => [atCheckout(app, checkout), app]);
