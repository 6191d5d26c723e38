// The runtime matrix (--node, --bun, --deno): resolving, refusing and installing versions, the
// rows they give (app@version), the version comparison, and one real two-version run.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { getApp } from "@bench/contract";
import { analyze } from "../src/analysis/analysis.ts";
import { compareRuns } from "../src/analysis/comparison.ts";
import { REPO_ROOT } from "../src/common/root.ts";
import { baselineName } from "../src/report/summary.ts";
import { versionMermaid, versionViews } from "../src/report/versions.ts";
import { type Results, schemaErrors } from "../src/results/schema.ts";
import { commandOf } from "../src/run/command.ts";
import { type Options, UsageError, versionsOf, withBuilds } from "../src/run/options.ts";
import { versionMismatch } from "../src/run/session.ts";
import {
  compareVersions,
  type Registry,
  RuntimeError,
  registryName,
  resolveVersion,
  tooOld,
} from "../src/runtimes/runtime-versions.ts";
import { prepareRuntimes, runtimeCache, versionOf } from "../src/runtimes/runtimes.ts";
import { CONFORMING, fakeRoot } from "./support/fake-root.ts";
import { skipWithoutRegistry } from "./support/registry.ts";
import { expectExit, planned, runBenchmark } from "./support/run-benchmark.ts";
import { syntheticVersionsRun } from "./support/synthetic.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const outs: string[] = [];
/** The three tests below that resolve or install through the real npm registry. */
const noRegistry = await skipWithoutRegistry(
  "versions.e2e.test.ts: a version that cannot be had, another version than asked, --node 22,24",
);
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
});

function freshOut(): string {
  const dir = temp("bench-versions-");
  outs.push(dir);
  return join(dir, "run");
}

/** A registry that knows these releases, and answers npm's E404 for anything else. */
const registry =
  (published: Record<string, string[]>): Registry =>
  (runtime, spec) => {
    const matching = (published[runtime] ?? []).filter(
      (v) => v === spec || v.startsWith(`${spec}.`),
    );
    if (matching.length === 0) {
      throw Object.assign(new Error("npm failed"), {
        stderr: `npm error code E404\nnpm error 404 No match found for version ${spec}`,
      });
    }
    return matching;
  };

const PUBLISHED = registry({
  node: ["20.19.5", "22.9.0", "22.17.1", "22.23.3", "22.100.0-rc.1", "24.21.0", "24.3.0"],
  bun: ["1.2.2", "1.3.9", "1.3.10"],
  deno: ["1.46.3", "2.9.6"],
});

describe("resolving a version", () => {
  test("a major or major.minor is its newest release (numerically, never a pre-release)", () => {
    expect(resolveVersion("node", "22", PUBLISHED)).toBe("22.23.3");
    expect(resolveVersion("node", "24", PUBLISHED)).toBe("24.21.0");
    expect(resolveVersion("bun", "1.3", PUBLISHED)).toBe("1.3.10");
    expect(resolveVersion("node", "22.17.1", PUBLISHED)).toBe("22.17.1");
  });

  test("one that is not published says so, naming the flag", () => {
    expect(() => resolveVersion("node", "19.99", PUBLISHED)).toThrow(
      "--node 19.99: cannot resolve it on the npm registry (npm view node@19.99): no such release is published",
    );
    const offline: Registry = () => {
      throw Object.assign(new Error("x"), {
        stderr: "npm error code ENOTFOUND\nnpm error network",
      });
    };
    expect(() => resolveVersion("bun", "1.3", offline)).toThrow("npm error code ENOTFOUND");
    const noNpm: Registry = () => {
      throw Object.assign(new Error("spawnSync npm ENOENT"), { code: "ENOENT" });
    };
    expect(() => resolveVersion("node", "22", noNpm)).toThrow(
      "--node 22: cannot resolve it on the npm registry (npm view node@22): npm is not installed, and it fetches the runtimes: install Node.js (which brings npm)",
    );
    expect(() => resolveVersion("deno", "3", () => ["3.0.0-rc.1"])).toThrow(
      "--deno 3: the npm registry lists no release matching it",
    );
  });

  test("versions compare as numbers, part by part", () => {
    expect(compareVersions("22.9.0", "22.23.3")).toBeLessThan(0);
    expect(compareVersions("24.0.0", "22.23.3")).toBeGreaterThan(0);
    expect(compareVersions("1.3.10", "1.3.10")).toBe(0);
  });
});

describe("versions the apps cannot run", () => {
  test("Node without type stripping by default, Bun without routes, Deno 1: refused, saying why", () => {
    for (const v of ["20.19.5", "22.17.1", "23.5.0"]) {
      expect(tooOld("node", v)).toContain(`node ${v} is older than the apps can run`);
    }
    expect(tooOld("node", "20.19.5")).toContain("type stripping");
    for (const v of ["22.18.0", "22.23.3", "23.6.0", "24.21.0", "26.0.0"]) {
      expect(tooOld("node", v)).toBeUndefined();
    }
    expect(tooOld("bun", "1.2.2")).toContain("routes table, new in Bun 1.2.3");
    expect(tooOld("bun", "1.2.3")).toBeUndefined();
    expect(tooOld("deno", "1.46.3")).toContain("Deno 2");
    expect(tooOld("deno", "2.9.6")).toBeUndefined();
  });

  test("refused before anything is installed, as is one version asked for twice", async () => {
    const cache = join(temp("bench-cache-"), "runtimes");
    const log: string[] = [];
    const prepare = (asked: Parameters<typeof prepareRuntimes>[0]) =>
      prepareRuntimes(asked, cache, (l) => log.push(l), PUBLISHED);
    await expect(prepare({ node: ["24", "20"] })).rejects.toThrow(
      "--node 20: node 20.19.5 is older than the apps can run",
    );
    await expect(prepare({ node: ["22", "22.23.3"] })).rejects.toThrow(
      "--node asks for 22.23.3 twice (22.23.3 resolves to it)",
    );
    await expect(prepare({ bun: ["1.4"] })).rejects.toThrow(RuntimeError);
    expect(existsSync(cache)).toBe(false);
    expect(log).toEqual([]);
  });
});

describe("the flags and the rows they give", () => {
  const node = [getApp("node-hono"), getApp("node-bare"), getApp("bun-bare")];

  test("--node and the like: versions, none twice, for a runtime the run has apps of", () => {
    expect(versionsOf({ node: ["22", "24.21"], deno: undefined }, node)).toEqual({
      node: ["22", "24.21"],
    });
    const refused = (argv: string[], message: string) =>
      expect(() => {
        const command = commandOf([...argv, "node-hono", "node-bare", "bun-bare"], {});
        if (command.kind === "run") versionsOf(command.values, node);
      }).toThrow(new UsageError(message));
    refused(
      ["--node", "22,x"],
      "--node takes versions like 22, 22.18 or 22.18.0, comma-separated, got '22,x'",
    );
    refused(["--bun", "1.3,1.3"], "--bun lists a version twice, got '1.3,1.3'");
    refused(["--deno", "2.9"], "--deno 2.9: none of the apps to run is a deno app");
  });

  test("each app of a listed runtime once per version, named app@version; others unchanged", () => {
    const builds = ["22.23.3", "24.21.0"].map((version) => ({
      runtime: "node" as const,
      asked: version.split(".")[0] as string,
      version,
      binary: `/cache/node-${version}/node`,
    }));
    const options = withBuilds({ apps: node, builds: [] } as unknown as Options, builds);
    expect(options.apps.map((a) => a.name)).toEqual([
      "node-hono@22.23.3",
      "node-hono@24.21.0",
      "node-bare@22.23.3",
      "node-bare@24.21.0",
      "bun-bare",
    ]);
    expect(options.apps[1]?.build?.binary).toBe("/cache/node-24.21.0/node");
    expect(options.apps[1]?.port).toBe(3002);
    expect(registryName("node-hono@24.21.0")).toBe("node-hono");
    // Its framework tax is against the bare app on the same version.
    expect(baselineName("node-hono@24.21.0")).toBe("node-bare@24.21.0");
    expect(baselineName("node-hono")).toBe("node-bare");
    expect(baselineName("node-bare@24.21.0")).toBeUndefined();
  });

  test("an app that reports another version than asked is a contract failure", () => {
    const [app] = withBuilds({ apps: [getApp("node-bare")], builds: [] } as unknown as Options, [
      { runtime: "node", asked: "22", version: "22.23.3", binary: "/x/node" },
    ]).apps;
    if (!app) throw new Error("no app");
    expect(versionMismatch(app, "22.23.3")).toBeUndefined();
    expect(versionMismatch(app, "24.21.0")).toEqual({
      check: "runtime version",
      detail: 'node-bare@22.23.3 must run on node 22.23.3, but the process reports "24.21.0"',
    });
    expect(versionMismatch(getApp("node-bare"), "24.21.0")).toBeUndefined();
  });
});

describe("the version comparison", () => {
  const results = syntheticVersionsRun();

  test("per scenario: each app on each version, as % of the first, ≈ where not significant", () => {
    expect(schemaErrors(results)).toEqual([]);
    const [view, ...more] = versionViews(analyze(results));
    expect(more).toEqual([]);
    expect(view?.header).toEqual(["app", "node 22.23.3", "node 24.21.0"]);
    expect(view?.rows[0]).toEqual(["node-bare", "10,000", "11,000 (110%)"]);
    // A tie says what the run could have told apart (Holm over the table's 6 pairs).
    expect(view?.rows[1]?.slice(0, 2)).toEqual(["node-hono", "8,000"]);
    expect(view?.rows[1]?.[2]).toMatch(/^8,000 \(≈100%, could detect ≥ \d+\.\d%\)$/);
    expect(versionMermaid(view as NonNullable<typeof view>)).toContain(
      'x-axis ["node-bare@22.23.3", "node-bare@24.21.0", "node-hono@22.23.3", "node-hono@24.21.0"]',
    );
  });

  test("--compare pairs rows by app and version: a slower Node 24 row is a regression", () => {
    const slower: Results = {
      ...results,
      trials: results.trials.map((t) =>
        t.app === "node-bare@24.21.0" && t.result
          ? { ...t, result: { ...t.result, rps: t.result.rps * 0.8 } }
          : t,
      ),
    };
    const rows = compareRuns(results, slower);
    expect(rows.map((r) => [r.app, r.verdict])).toEqual([
      ["node-bare@22.23.3", "no change beyond the threshold"],
      ["node-bare@24.21.0", "regression"],
      // node-hono's trials spread ±5%: too wide to rule out a 5% change either way.
      ["node-hono@22.23.3", "inconclusive"],
      ["node-hono@24.21.0", "inconclusive"],
    ]);
  });

  test("one version asked: nothing to compare, no table", () => {
    const one = {
      ...results,
      manifest: {
        ...results.manifest,
        settings: {
          ...results.manifest.settings,
          runtimeVersions: { node: [{ asked: "24", version: "24.21.0" }] },
        },
      },
    };
    expect(versionViews(analyze(one))).toEqual([]);
  });
});

describe("command line", () => {
  test("a bad version list: usage, exit 2, nothing started", async () => {
    for (const [args, message] of [
      [
        ["--node", "22,lts"],
        "--node takes versions like 22, 22.18 or 22.18.0, comma-separated, got '22,lts'",
      ],
      [["--bun", "1.3,1.3"], "--bun lists a version twice, got '1.3,1.3'"],
      [["--deno", "2.9", "node-bare"], "--deno 2.9: none of the apps to run is a deno app"],
    ] as const) {
      const out = freshOut();
      const r = await runBenchmark(["-o", out, ...args]);
      expectExit(r, 2);
      expect(r.stderr).toContain(message);
      expect(existsSync(join(out, "results.json"))).toBe(false);
    }
  }, 60_000);

  // These ask the npm registry (as a user's run does): CI reaches it; elsewhere, without it,
  // they are skipped, saying why (support/registry.ts).
  test.skipIf(noRegistry)(
    "a version that cannot be had fails before measuring, saying which and why",
    async () => {
      for (const [args, message] of [
        [
          ["--node", "24,19.99"],
          "--node 19.99: cannot resolve it on the npm registry (npm view node@19.99): no such release is published",
        ],
        [["--node", "20"], "--node 20: node 20."],
      ] as const) {
        const out = freshOut();
        const r = await runBenchmark(["-o", out, ...args, "node-bare"]);
        expectExit(r, 2);
        expect(r.stderr).toContain(message);
        expect(r.stderr).not.toContain("trial");
        expect(existsSync(join(out, "results.json"))).toBe(false);
      }
    },
    60_000,
  );
});

describe("a row that runs another version than asked", () => {
  // The stand-in's `bun run start` runs the project's own Bun, whatever BENCH_BUN says.
  test.skipIf(noRegistry)(
    "fails the contract check, naming both versions, and is not measured",
    async () => {
      const out = freshOut();
      const root = fakeRoot({ "bun-bare": CONFORMING }, temp);
      const r = await runBenchmark([
        "-o",
        out,
        "--apps-root",
        root,
        "--bun",
        "1.3",
        "-d",
        "1",
        "-w",
        "0",
        "-n",
        "1",
        "--samples",
        "1",
        "bun-bare",
      ]);
      expectExit(r, 1);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
      const [app] = results.apps;
      const asked = app?.runtimeBuild?.version as string;
      expect(asked).toMatch(/^1\.3\.\d+$/);
      expect(app?.status).toBe("failed");
      const reported = app?.reportedRuntime?.version as string;
      expect(app?.reportedRuntime?.name).toBe("bun");
      expect(reported).not.toBe(asked);
      expect(app?.violations).toEqual([
        {
          check: "runtime version",
          detail: `bun-bare@${asked} must run on bun ${asked}, but the process reports "${reported}"`,
        },
      ]);
      expect(results.trials).toEqual([]);
    },
    120_000,
  );
});

describe("--node 22,24, for real", () => {
  test.skipIf(noRegistry)(
    "both installed, reported by the running apps, measured in alternating order",
    async () => {
      const out = freshOut();
      const r = await runBenchmark([
        "-o",
        out,
        "--node",
        "22,24",
        "--duration",
        "1",
        "--warmup",
        "0",
        "--trials",
        "2",
        "--samples",
        "1",
        "--connections",
        "10",
        "node-bare",
      ]);
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
      expect(schemaErrors(results)).toEqual([]);
      const asked = results.manifest.settings.runtimeVersions?.node ?? [];
      expect(asked.map((v) => v.asked)).toEqual(["22", "24"]);
      const [v22, v24] = asked.map((v) => v.version);
      expect(v22).toMatch(/^22\.\d+\.\d+$/);
      expect(v24).toMatch(/^24\.\d+\.\d+$/);
      // Installed in the project's cache, and each binary is the version it claims to be.
      for (const version of [v22, v24]) {
        const binary = join(runtimeCache(REPO_ROOT), `node-${version}`, "node_modules/.bin/node");
        expect(versionOf(binary)).toBe(version as string);
      }
      // Each row ran on its version, as the running app itself reported.
      const names = [`node-bare@${v22}`, `node-bare@${v24}`] as const;
      expect(results.apps.map((a) => [a.name, a.reportedRuntime?.version, a.status])).toEqual([
        [names[0], v22 as string, "ok"],
        [names[1], v24 as string, "ok"],
      ]);
      // Interleaved: round 1 in order, round 2 reversed.
      expect(planned(results.trials).map((t) => [t.round, t.app])).toEqual([
        [1, names[0]],
        [1, names[1]],
        [2, names[1]],
        [2, names[0]],
      ]);
      expect(r.stdout).toContain("req/s by node version");
      expect(readFileSync(join(out, "report.md"), "utf8")).toContain(
        `| app | node ${v22} | node ${v24} |`,
      );
    },
    240_000,
  );
});
