// The runtime matrix's decisions (src/runtimes/runtime-versions.ts), without npm or any install: what a
// version flag takes, which release a spec resolves to among what a made-up registry lists,
// which versions are too old and why, the environment an app is started with, and the row
// names. Every expected value is written out from the rule in the doc comment it tests (the
// floors of OLDEST, numeric part-by-part order), never computed with the module's own code.

import { describe, expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import {
  type AppRun,
  bareVersion,
  buildEnv,
  compareVersions,
  listedVersions,
  npmError,
  type Registry,
  RuntimeError,
  registryName,
  resolveRuntimes,
  resolveVersion,
  tooOld,
  VERSION_SPEC,
  versionedName,
  versionOfName,
} from "../src/runtimes/runtime-versions.ts";

/** A registry that lists exactly these versions for every spec, whatever it is. */
const lists =
  (...versions: string[]): Registry =>
  () =>
    versions;

/** A registry that fails as npm does: an error carrying npm's stderr (or an errno code). */
const failing =
  (fields: { stderr?: string; code?: string; message?: string }): Registry =>
  () => {
    throw Object.assign(new Error(fields.message ?? "npm failed"), fields);
  };

/** The message a registry failure gives, with the flag and the npm command in front of it. */
function resolveFailure(registry: Registry): string {
  try {
    resolveVersion("node", "22", registry);
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return (error as Error).message;
  }
  throw new Error("resolveVersion did not throw");
}
const PREFIX = "--node 22: cannot resolve it on the npm registry (npm view node@22): ";

describe("what a version flag takes", () => {
  test("a major, major.minor or major.minor.patch of digits", () => {
    for (const spec of ["22", "1.3", "2.9.6", "10.20.30", "0"]) {
      expect(VERSION_SPEC.test(spec)).toBe(true);
    }
  });

  test("nothing else: four parts, a prefix, a suffix, empty parts, letters", () => {
    for (const spec of ["1.2.3.4", "v22", "22x", "x22", "1..2", "", "22.", ".22", "1.2a", "a"]) {
      expect(VERSION_SPEC.test(spec)).toBe(false);
    }
  });
});

describe("comparing versions", () => {
  test("part by part, as numbers (9 is older than 23, not newer as text would have it)", () => {
    expect(compareVersions("22.9.0", "22.23.3")).toBeLessThan(0);
    expect(compareVersions("22.23.3", "22.9.0")).toBeGreaterThan(0);
    expect(compareVersions("1.3.9", "1.3.10")).toBeLessThan(0);
    expect(compareVersions("2.0.0", "1.99.99")).toBeGreaterThan(0);
    expect(compareVersions("1.2.3", "1.2.3")).toBe(0);
  });

  test("a missing part counts as 0: 22 is 22.0.0, older than 22.0.1", () => {
    expect(compareVersions("22", "22.0.0")).toBe(0);
    expect(compareVersions("22.0.0", "22")).toBe(0);
    expect(compareVersions("22", "22.0.1")).toBeLessThan(0);
    expect(compareVersions("22.0.1", "22")).toBeGreaterThan(0);
    expect(compareVersions("22.1", "22.0.5")).toBeGreaterThan(0);
  });
});

describe("versions too old for the apps", () => {
  // The floors, from OLDEST's doc comment: Node 22.18.0 in the 22 line and 23.6.0 in the 23
  // line (type stripping on by default), Bun 1.2.3 (Bun.serve routes), Deno 2.0.0.
  test("each floor itself runs; the release just below it is refused", () => {
    expect(tooOld("node", "22.18.0")).toBeUndefined();
    expect(tooOld("node", "23.6.0")).toBeUndefined();
    expect(tooOld("bun", "1.2.3")).toBeUndefined();
    expect(tooOld("deno", "2.0.0")).toBeUndefined();
    expect(tooOld("node", "22.17.1")).toStartWith("node 22.17.1 is older than the apps can run: ");
    expect(tooOld("node", "23.5.0")).toStartWith("node 23.5.0 is older than the apps can run: ");
    expect(tooOld("bun", "1.2.2")).toStartWith("bun 1.2.2 is older than the apps can run: ");
    expect(tooOld("deno", "1.46.3")).toStartWith("deno 1.46.3 is older than the apps can run: ");
  });

  test("the reason is the floor of the version's own line, else of the next line up", () => {
    expect(tooOld("node", "22.17.1")).toContain("type stripping on by default from Node 22.18");
    expect(tooOld("node", "23.5.0")).toContain("type stripping on by default from Node 23.6");
    // No floor in the 20 or 21 line: the lowest floor above them, 22.18.0, says why.
    expect(tooOld("node", "20.19.5")).toContain("from Node 22.18");
    expect(tooOld("node", "21.7.3")).toContain("from Node 22.18");
    expect(tooOld("bun", "1.1.45")).toContain("Bun.serve's routes table, new in Bun 1.2.3");
    expect(tooOld("bun", "0.8.1")).toContain("new in Bun 1.2.3");
    expect(tooOld("deno", "1.46.3")).toContain("Deno 2's support for package.json workspaces");
  });

  test("newer releases in a line with a floor, and lines above every floor, run", () => {
    // 22.19.0 is above its own floor (22.18.0) though below 23.6.0: its own line decides.
    for (const v of ["22.19.0", "22.23.3", "23.6.1", "23.11.0", "24.0.0", "26.1.0"]) {
      expect(tooOld("node", v)).toBeUndefined();
    }
    expect(tooOld("bun", "1.2.10")).toBeUndefined();
    expect(tooOld("bun", "1.3.0")).toBeUndefined();
    expect(tooOld("bun", "2.0.0")).toBeUndefined();
    expect(tooOld("deno", "2.9.6")).toBeUndefined();
    expect(tooOld("deno", "3.0.0")).toBeUndefined();
  });
});

describe("what npm view prints", () => {
  test("a list, one version alone (npm prints a bare string for one), or nothing", () => {
    expect(listedVersions('["22.9.0", "22.23.3"]\n')).toEqual(["22.9.0", "22.23.3"]);
    expect(listedVersions('"22.23.3"\n')).toEqual(["22.23.3"]);
    expect(listedVersions("")).toEqual([]);
    expect(listedVersions("  \n")).toEqual([]);
  });

  test("anything that is not a string is dropped", () => {
    expect(listedVersions('["1.3.0", 3, null, {"v": "1.3.1"}]')).toEqual(["1.3.0"]);
    expect(listedVersions("{}")).toEqual([]);
  });

  test("--version output as a bare version, wherever the x.y.z is", () => {
    expect(bareVersion("v22.23.3\n")).toBe("22.23.3");
    expect(bareVersion("deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)\nv8 14.0")).toBe(
      "2.9.6",
    );
    expect(bareVersion("1.3.10")).toBe("1.3.10");
    expect(bareVersion("version 22.1")).toBeUndefined();
  });
});

describe("resolving a spec on the registry", () => {
  test("the newest stable release, compared as numbers, whatever order npm lists them in", () => {
    // By hand: 22.10.0 > 22.9.3 > 22.1.0 numerically (as text, "22.9.3" would sort last).
    expect(resolveVersion("node", "22", lists("22.1.0", "22.10.0", "22.9.3"))).toBe("22.10.0");
    expect(resolveVersion("node", "22", lists("22.10.0", "22.9.3", "22.1.0"))).toBe("22.10.0");
    expect(resolveVersion("bun", "1.3.10", lists("1.3.10"))).toBe("1.3.10");
  });

  test("pre-releases and anything not x.y.z are never picked", () => {
    const listed = lists(
      "22.9.0",
      "22.99.0-rc.1", // a suffix
      "rc-22.98.0", // a prefix
      "22.97", // two parts
      "22.x.0",
      "22.96.a",
    );
    expect(resolveVersion("node", "22", listed)).toBe("22.9.0");
  });

  test("a registry that lists nothing stable is refused, naming the flag", () => {
    for (const registry of [lists(), lists("3.0.0-rc.1", "3.0.0-beta")]) {
      expect(() => resolveVersion("deno", "3", registry)).toThrow(
        new RuntimeError("--deno 3: the npm registry lists no release matching it"),
      );
    }
  });

  test("npm's 404 or 'No match' is: no such release is published", () => {
    const notFound = failing({ stderr: "npm error code E404\nnpm error 404 Not Found" });
    expect(resolveFailure(notFound)).toBe(`${PREFIX}no such release is published`);
    const noMatch = failing({ stderr: "npm error No match found for version 19.99" });
    expect(resolveFailure(noMatch)).toBe(`${PREFIX}no such release is published`);
  });

  test("another npm failure gives its first error line, trimmed", () => {
    const offline = failing({
      stderr: "npm warn config something\n  npm error code ENOTFOUND  \nnpm error network down",
    });
    expect(resolveFailure(offline)).toBe(`${PREFIX}npm error code ENOTFOUND`);
    // Case does not matter: "Error" and "ERROR" start error lines too.
    expect(resolveFailure(failing({ stderr: "warn: retrying\nERROR: EAI_AGAIN\nError: x" }))).toBe(
      `${PREFIX}ERROR: EAI_AGAIN`,
    );
  });

  test("without an error line, all of what npm said, trimmed", () => {
    expect(resolveFailure(failing({ stderr: "  proxy refused the tunnel\n" }))).toBe(
      `${PREFIX}proxy refused the tunnel`,
    );
  });

  test("no npm at all, or no answer in time: what to do about it", () => {
    expect(resolveFailure(failing({ code: "ENOENT", message: "spawnSync npm ENOENT" }))).toBe(
      `${PREFIX}npm is not installed, and it fetches the runtimes: install Node.js (which brings npm)`,
    );
    const slow = resolveFailure(failing({ code: "ETIMEDOUT", stderr: "" }));
    expect(slow).toBe(
      `${PREFIX}npm error: no answer within 90 s: is the npm registry reachable? (offline, or a proxy: HTTPS_PROXY, npm_config_registry)`,
    );
  });

  test("an error without stderr is told by its own text", () => {
    expect(npmError(new Error("boom"))).toBe("Error: boom");
    expect(npmError(Object.assign(new Error("x"), { stderr: "npm error E500" }))).toBe(
      "npm error E500",
    );
    expect(npmError(Object.assign(new Error("x"), { code: "EACCES", stderr: "denied" }))).toBe(
      "denied",
    );
    expect(resolveFailure(failing({ message: "socket hang up" }))).toBe(
      `${PREFIX}Error: socket hang up`,
    );
  });
});

describe("resolving the whole matrix", () => {
  /** Made-up releases: a spec matches itself and every release under it ("22" → "22.x.y"). */
  const PUBLISHED: Record<string, string[]> = {
    node: ["20.19.5", "22.17.1", "22.23.3", "24.3.0", "24.21.0"],
    bun: ["1.2.2", "1.3.9", "1.3.10"],
    deno: ["2.9.6"],
  };
  const registry: Registry = (runtime, spec) =>
    (PUBLISHED[runtime] ?? []).filter((v) => v === spec || v.startsWith(`${spec}.`));

  test("every version, resolved, in the order asked, runtime by runtime", () => {
    expect(resolveRuntimes({ node: ["24", "22"], bun: ["1.3"] }, registry)).toEqual([
      { runtime: "node", asked: "24", version: "24.21.0" },
      { runtime: "node", asked: "22", version: "22.23.3" },
      { runtime: "bun", asked: "1.3", version: "1.3.10" },
    ]);
    expect(resolveRuntimes({}, registry)).toEqual([]);
  });

  test("one the apps cannot run stops it all, naming the flag, the release and why", () => {
    expect(() => resolveRuntimes({ node: ["24", "20"] }, registry)).toThrow(
      "--node 20: node 20.19.5 is older than the apps can run: the apps are TypeScript that Node runs directly, with type stripping on by default from Node 22.18",
    );
    expect(() => resolveRuntimes({ bun: ["1.2"] }, registry)).toThrow(
      "--bun 1.2: bun 1.2.2 is older than the apps can run",
    );
  });

  test("a too-old version is named even when another flag would also be refused later", () => {
    // 22 and 22.23.3 are the same release (refused as a repeat), but 20 is too old: the
    // version check comes first, for every version.
    expect(() => resolveRuntimes({ node: ["22", "22.23.3", "20"] }, registry)).toThrow(
      "--node 20: node 20.19.5 is older",
    );
  });

  test("one release asked for twice is refused, naming the second spelling", () => {
    expect(() => resolveRuntimes({ node: ["22", "22.23.3"] }, registry)).toThrow(
      new RuntimeError("--node asks for 22.23.3 twice (22.23.3 resolves to it)"),
    );
    // The same version number on two runtimes is two releases, not a repeat.
    const same: Registry = () => ["2.9.6"];
    expect(resolveRuntimes({ bun: ["2"], deno: ["2"] }, same)).toHaveLength(2);
  });

  test("a spec the registry cannot resolve stops it too", () => {
    expect(() => resolveRuntimes({ bun: ["1.4"] }, registry)).toThrow(
      "--bun 1.4: the npm registry lists no release matching it",
    );
  });
});

describe("how an app is started on its version", () => {
  const nodeHono = getApp("node-hono");
  const build = { runtime: "node", asked: "22", version: "22.23.3", binary: "/c/node" } as const;

  test("a version of the matrix: BENCH_<RUNTIME> names its binary", () => {
    const app: AppRun = { ...nodeHono, build };
    expect(buildEnv(app)).toEqual({ BENCH_NODE: "/c/node", BENCH_EXTRA_WORK: "" });
    const deno: AppRun = {
      ...getApp("deno-bare"),
      build: { ...build, runtime: "deno", binary: "/c/deno" },
    };
    expect(buildEnv(deno)).toEqual({ BENCH_DENO: "/c/deno", BENCH_EXTRA_WORK: "" });
  });

  test("a calibration row: its extra iterations; any other app: none of it", () => {
    const calibrated: AppRun = { ...nodeHono, extraWork: { share: 0.5, iterations: 1234 } };
    expect(buildEnv(calibrated)).toEqual({ BENCH_EXTRA_WORK: "1234" });
    expect(buildEnv(nodeHono)).toEqual({ BENCH_EXTRA_WORK: "" });
  });
});

describe("row names", () => {
  test("app@version, and back", () => {
    expect(versionedName("node-hono", "22.23.3")).toBe("node-hono@22.23.3");
    expect(registryName("node-hono@22.23.3")).toBe("node-hono");
    expect(registryName("bun-bare+50%")).toBe("bun-bare");
    expect(registryName("bun-bare#2")).toBe("bun-bare");
    expect(registryName("node-hono")).toBe("node-hono");
    expect(versionOfName("node-hono@22.23.3")).toBe("22.23.3");
    expect(versionOfName("node-hono")).toBeUndefined();
  });
});
