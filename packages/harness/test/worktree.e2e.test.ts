// --against's checkouts in .cache/against (side/worktree.ts), in a throwaway git repository:
// what a ref names, and which checkouts stay once a run is done with them. No install, no load.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CheckoutError,
  checkoutDir,
  commitOf,
  KEPT_CHECKOUTS,
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
