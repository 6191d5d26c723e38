// --against's checkouts in .cache/against (side/worktree.ts), in throwaway git repositories:
// what a ref names, which checkouts stay once a run is done with them, and where a checkout's
// dependencies come from (this checkout's, hard-linked, when the lockfiles match; an install,
// offline from Bun's cache, when they do not: the workspaces have no dependencies). No load.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CheckoutError,
  checkoutDir,
  commitOf,
  diskUse,
  KEPT_CHECKOUTS,
  nodeModulesFolders,
  prepareCheckout,
  pruneCheckouts,
} from "../src/side/worktree.ts";

const repo = mkdtempSync(join(tmpdir(), "bench-worktree-"));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();

/** A repository with `n` commits; their hashes, oldest first. */
function commits(n: number): string[] {
  git("init", "-q");
  git("config", "user.email", "bench@example.invalid");
  git("config", "user.name", "bench");
  return Array.from({ length: n }, (_, i) => {
    writeFileSync(join(repo, "file.txt"), `${i}\n`);
    git("add", "file.txt");
    git("commit", "-q", "-m", `commit ${i}`);
    return git("rev-parse", "HEAD");
  });
}

/** A checkout of `commit` as prepareCheckout leaves it, its marker last used `ageSec` ago. */
function checkedOut(commit: string, ageSec: number): string {
  const dir = checkoutDir(repo, commit);
  mkdirSync(join(repo, ".cache", "against"), { recursive: true });
  git("worktree", "add", "--detach", "--force", dir, commit);
  const marker = join(dir, ".bench-installed");
  writeFileSync(marker, `${commit}\n`);
  const at = new Date(Date.now() - ageSec * 1000);
  utimesSync(marker, at, at);
  return dir;
}

describe("--against's checkouts", () => {
  const hashes = commits(5);

  test("a ref names a commit, or the error says it names none", () => {
    expect(commitOf(repo, "HEAD~1")).toBe(hashes[3] as string);
    expect(() => commitOf(repo, "no-such-branch")).toThrow(CheckoutError);
    expect(() => commitOf(repo, "no-such-branch")).toThrow(
      "--against no-such-branch: this checkout has no such commit",
    );
  });

  test(`the ${KEPT_CHECKOUTS} used last stay, the current one always; older ones go, from git too`, () => {
    // Ages: the current checkout is the oldest, so only the rule keeps it.
    const dirs = hashes.map((h, i) => checkedOut(h, i === 0 ? 500 : 100 - i * 10));
    const leftover = join(repo, ".cache", "against", "half-made");
    mkdirSync(leftover);
    pruneCheckouts(repo, dirs[0] as string);
    // Kept: the current (hashes[0]) and the two used last (hashes[4] at 60 s, hashes[3] at 70 s).
    expect(dirs.map((d) => existsSync(d))).toEqual([true, false, false, true, true]);
    expect(existsSync(leftover)).toBe(false);
    const listed = git("worktree", "list", "--porcelain");
    expect(listed).toContain(dirs[4] as string);
    expect(listed).not.toContain(dirs[1] as string);
  });
});

describe("a checkout's dependencies", () => {
  const project = mkdtempSync(join(tmpdir(), "bench-worktree-deps-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const run = (cwd: string, command: string, ...args: string[]) =>
    execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const commit = (message: string) => {
    run(project, "git", "add", "-A");
    run(project, "git", "commit", "-q", "-m", message);
    return run(project, "git", "rev-parse", "HEAD").trim();
  };
  const workspace = (name: string) => {
    mkdirSync(join(project, "pkgs", name), { recursive: true });
    writeFileSync(join(project, "pkgs", name, "package.json"), JSON.stringify({ name }));
  };

  /** Two commits: the first with one workspace, the second (HEAD) with two: another bun.lock. */
  function history(): [string, string] {
    run(project, "git", "init", "-q");
    run(project, "git", "config", "user.email", "bench@example.invalid");
    run(project, "git", "config", "user.name", "bench");
    writeFileSync(join(project, ".gitignore"), "node_modules/\n.cache/\n");
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "p", private: true, workspaces: ["pkgs/*"] }),
    );
    workspace("a");
    run(project, process.execPath, "install");
    const first = commit("one workspace");
    workspace("b");
    run(project, process.execPath, "install");
    return [first, commit("two workspaces")];
  }

  const [first, second] = history();
  // a file of the installed tree, to follow into the checkout
  writeFileSync(join(project, "node_modules", "installed.txt"), "here\n");

  test("the node_modules folders: the root's and each workspace's that has one", () => {
    mkdirSync(join(project, "pkgs", "a", "node_modules"), { recursive: true });
    expect(nodeModulesFolders(project).sort()).toEqual(["node_modules", "pkgs/a/node_modules"]);
    rmSync(join(project, "pkgs", "a", "node_modules"), { recursive: true });
  });

  test("the same bun.lock: this checkout's node_modules hard-linked in, in seconds", async () => {
    const log: string[] = [];
    const began = performance.now();
    const checkout = await prepareCheckout(project, second, (l) => log.push(l));
    expect(performance.now() - began).toBeLessThan(10_000);
    const ino = (root: string) => statSync(join(root, "node_modules", "installed.txt")).ino;
    expect(ino(checkout.root)).toBe(ino(project));
    expect(log[1]).toMatch(
      /^bench: --against [0-9a-f]+: its bun\.lock is this checkout's: this checkout's installed dependencies hard-linked in \(\d+\.\d s\)$/,
    );
    expect(log.at(-1)).toMatch(
      /: the checkout holds [\d.]+ MB of its own on disk, and [\d.]+ MB in files hard-linked/,
    );
    expect(log.join("\n")).not.toContain("installing");
  });

  test("another bun.lock: its own dependencies installed, nothing of this checkout's", async () => {
    const log: string[] = [];
    const checkout = await prepareCheckout(project, first, (l) => log.push(l));
    expect(log[1]).toBe(
      `bench: --against ${first}: installing its locked dependencies (bun install --frozen-lockfile)`,
    );
    expect(existsSync(join(checkout.root, "node_modules"))).toBe(true);
    expect(existsSync(join(checkout.root, "node_modules", "installed.txt"))).toBe(false);
  });

  test("disk use: a file hard-linked from elsewhere is shared, not the folder's own", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-disk-"));
    try {
      writeFileSync(join(dir, "own"), "x".repeat(100_000));
      writeFileSync(join(dir, "source"), "y".repeat(200_000));
      mkdirSync(join(dir, "sub"));
      linkSync(join(dir, "source"), join(dir, "sub", "linked"));
      const sub = diskUse(join(dir, "sub"));
      expect(sub.shared).toBeGreaterThanOrEqual(200_000);
      expect(sub.own).toBeLessThan(100_000); // the folder's own block, no file
      const all = diskUse(dir);
      expect(all.own).toBeGreaterThanOrEqual(100_000);
      expect(all.shared).toBeGreaterThanOrEqual(400_000); // both names of the shared file
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
