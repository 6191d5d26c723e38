// --against GIT_REF: the named apps as another commit has them, measured side by side with this
// checkout's. The commit is checked out once into .cache/against/<commit> (a git worktree: it
// shares this repository's objects) and its locked dependencies installed there with the
// pinned Bun, so its apps start as that commit's users start them, on the runtimes its own
// lockfile pins; a later run against the same commit reuses it. A checkout whose install did
// not finish is removed, so the next run starts it again; of the others, the KEPT_CHECKOUTS
// used last stay (each holds its own node_modules), older ones are removed.

import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
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

async function install(dir: string, ref: string, log: (line: string) => void): Promise<void> {
  log(
    `bench: --against ${ref}: installing its locked dependencies (bun install --frozen-lockfile)`,
  );
  let result: Awaited<ReturnType<typeof runWatched>>;
  try {
    result = await runWatched(process.execPath, ["install", "--frozen-lockfile"], {
      cwd: dir,
      timeoutMs: installLimitMs(),
      progressEveryMs: 15_000,
      progress: (sec) => log(`bench: --against ${ref}: still installing (${sec} s)...`),
    });
  } catch (error) {
    const why = error instanceof WatchedTimeout ? error.message : String(error);
    throw new CheckoutError(
      `--against ${ref}: bun install in ${dir} failed: ${why} (is the npm registry reachable?)`,
    );
  }
  if (result.code !== 0) {
    const tail = result.stderr.trim().split("\n").slice(-3).join(" / ");
    throw new CheckoutError(
      `--against ${ref}: bun install in ${dir} exited ${result.code ?? result.signal}: ${tail}`,
    );
  }
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
    return { ref, commit, root };
  }
  log(`bench: --against ${ref}: checking out commit ${commit.slice(0, 12)} into ${root}`);
  try {
    addWorktree(repo, root, commit);
    await install(root, ref, log);
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
