// --against for real, in a throwaway clone of this checkout (its uncommitted changes applied,
// so the harness under test is this one): a commit that makes bun-bare do far more work per
// request must come out slower than its parent (exit 1, the app named), the same commit
// against itself must not (exit 0), and a ref that names nothing is one line and exit 2. The
// planted cost is ~20× a request's own, so no machine's noise can hide it. Against itself the
// gate runs at a 50% threshold: at the default 2%, two pairs (one degree of freedom) call an
// A/A run slower or faster in 5% of runs each, by design (CI once drew one); a 50% change is
// beyond anything noise does to a ratio of CPU per request. The protocols go through the same
// gate: the planted cost is the HTTP handler's, so over TLS bun-bare is slower too, and its
// WebSocket echo, which the plant does not touch, is not.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Results } from "../src/results/schema.ts";
import { findWsLoad } from "../src/run/environment.ts";
import { benchmarkIn, cloneHere, git, plantCost } from "./support/clone.ts";
import { SKIP_WITHOUT_OPENSSL } from "./support/openssl.ts";
import { expectExit, taggedProcesses } from "./support/run-benchmark.ts";

const run = (dir: string, args: string[]) => benchmarkIn(dir, args);

const SHORT = ["--quick", "--rounds", "2", "--samples", "1", "--tool", "wrk", "bun-bare"];

describe("--against GIT_REF", () => {
  let dir: string;
  // A full clone (--no-local copies every object) took over 5 s, bun's default, on a busy
  // machine: the hooks get the time a clone and a removal of the tree may need.
  beforeAll(() => {
    dir = cloneHere();
    plantCost(dir);
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(join(dir, ".."), { recursive: true, force: true });
  }, 60_000);

  test("a commit that costs ~20× more per request: slower than its parent, exit 1", async () => {
    const out = join(dir, "..", "slower");
    const r = await run(dir, ["--against", "HEAD~1", "-o", out, ...SHORT]);
    expect(r.stderr).toContain("bench: --against HEAD~1: checking out commit");
    // the planted commit changed no dependency: this clone's are hard-linked in, in seconds
    const reused = /: this checkout's installed dependencies hard-linked in \((\d+\.\d) s\)/.exec(
      r.stderr,
    );
    expect(Number(reused?.[1])).toBeLessThan(10);
    expect(r.stderr).toMatch(
      /bench: --against HEAD~1: the checkout holds [\d.]+ MB of its own on disk/,
    );
    expectExit(r, 1);
    expect(r.stdout).toContain("SLOWER than HEAD~1");
    expect(r.stdout).toMatch(/bun-bare +api +\+\d[\d,]*\.\d% .* SLOWER/);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
    const parent = git(dir, "rev-parse", "HEAD~1").trim();
    expect(results.manifest.settings.sideBySide?.against).toEqual({
      ref: "HEAD~1",
      commit: parent,
    });
    expect(results.apps.map((a) => [a.name, a.checkout?.commit])).toEqual([
      [`bun-bare@${parent.slice(0, 7)}`, parent],
      ["bun-bare", undefined],
    ]);
    const ratios = (results.pairTrials ?? []).map((t) => {
      const ns = (app: string) => t.sides.find((s) => s.app === app)?.nsPerRequest ?? 0;
      return ns("bun-bare") / ns(`bun-bare@${parent.slice(0, 7)}`);
    });
    for (const ratio of ratios) expect(ratio).toBeGreaterThan(3);
    // The checkout is kept for the next run against the same commit.
    expect(existsSync(join(dir, ".cache", "against", parent.slice(0, 12), "node_modules"))).toBe(
      true,
    );
    expect(taggedProcesses()).toEqual([]);
  }, 300_000);

  // CI builds ws-load (.ci/run); elsewhere a checkout without it skips, visibly. The clone has no
  // build of its own: it finds this checkout's on its PATH.
  const wsLoad = findWsLoad();
  const protocols = (wsLoad !== undefined || process.env.CI === "true") && !SKIP_WITHOUT_OPENSSL;
  if (!protocols) console.log("against.e2e: -s tls,ws-echo skipped: ws-load or openssl missing");
  test.skipIf(!protocols)(
    "-s tls,ws-echo: the plant's HTTP cost slows TLS too; the WebSocket echo it does not touch is not slower",
    async () => {
      const out = join(dir, "..", "protocols");
      const args = ["--against", "HEAD~1", "--threshold", "50", "-s", "tls,ws-echo", "-o", out];
      const path = `${dirname(wsLoad ?? "/nonexistent/ws-load")}:${process.env.PATH}`;
      const r = await benchmarkIn(dir, [...args, ...SHORT], { PATH: path });
      expectExit(r, 1);
      expect(r.stdout).toMatch(/bun-bare +tls +\+\d[\d,]*\.\d% .* SLOWER/);
      expect(r.stdout).toMatch(/bun-bare +ws-echo .*(no change beyond the threshold|inconclusive)/);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
      const scenarios = new Set((results.pairTrials ?? []).map((t) => t.scenario));
      expect([...scenarios].sort()).toEqual(["api", "tls", "ws-echo"]);
      for (const t of results.pairTrials ?? []) {
        for (const side of t.sides) expect(side.nsPerRequest).toBeGreaterThan(0);
      }
      expect(taggedProcesses()).toEqual([]);
    },
    300_000,
  );

  test("the same commit against itself: not slower, exit 0", async () => {
    const out = join(dir, "..", "same");
    const r = await run(dir, ["--against", "HEAD", "--threshold", "50", "-o", out, ...SHORT]);
    expectExit(r, 0);
    // two pairs may not settle even 50%: the last line then says so, and the gate still passes
    const verdict = /bun-bare +api .*(no change beyond the threshold|inconclusive)/.exec(r.stdout);
    expect(verdict).not.toBeNull();
    const last = r.stdout.split("\n").find((l) => /^(no app slower|INCONCLUSIVE) /.test(l));
    expect(last).toStartWith(
      verdict?.[1] === "inconclusive" ? "INCONCLUSIVE against HEAD" : "no app slower than HEAD",
    );
    expect(taggedProcesses()).toEqual([]);
  }, 300_000);

  test("a ref that names no commit: one line, exit 2, nothing measured", async () => {
    const out = join(dir, "..", "none");
    const r = await run(dir, ["--against", "no-such-branch", "-o", out, ...SHORT]);
    expectExit(r, 2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      "bench: --against no-such-branch: this checkout has no such commit (git rev-parse no-such-branch)",
    );
    expect(existsSync(join(out, "results.json"))).toBe(false);
  }, 120_000);
});
