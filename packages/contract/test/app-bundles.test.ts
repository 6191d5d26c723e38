// Apps load only what they serve: every app's entry point, bundled for its runtime, holds no
// module of the verifier (check/, check.ts, cli.ts). Once every app imported a barrel that
// re-exported the checker, and CASES built ~1 MiB of strings in every app process at start-up.
// The bundler resolves the same imports the runtime does, in-process, with no port: a unit test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { APPS, type AppSpec } from "../src/index.ts";

const ROOT = join(import.meta.dir, "../../..");
const SRC = join(import.meta.dir, "../src");

/** A module of the verifier's side, by its path (absolute). */
function isChecker(path: string): boolean {
  const inSrc = relative(SRC, path);
  return inSrc.startsWith("check/") || inSrc === "check.ts" || inSrc === "cli.ts";
}

/** The entry an app's `bun run start` runs: `start-app.sh <runtime> <file>` in its package.json. */
function entryOf(app: AppSpec): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, "apps", app.name, "package.json"), "utf8"));
  const match = /start-app\.sh (\w+) (\S+)$/.exec(manifest.scripts.start);
  if (!match || match[1] !== app.runtime) {
    throw new Error(`${app.name}: start script ${manifest.scripts.start}`);
  }
  return join(ROOT, "apps", app.name, match[2] as string);
}

interface Bundled {
  /** Every module the entry imports, through any number of imports: what the runtime loads. */
  readonly loaded: string[];
  /** The modules whose code is in the bundle (after tree-shaking), from its `// path` comments. */
  readonly emitted: string[];
}

/**
 * `entry` bundled for `runtime`: Bun's own target for Bun; Node's for Node, and for Deno, whose
 * apps reach the system only through node: modules and the Deno global (built-ins stay external).
 */
async function bundle(entry: string, runtime: AppSpec["runtime"]): Promise<Bundled> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: runtime === "bun" ? "bun" : "node",
    metafile: true,
  });
  if (!result.success || !result.metafile) throw new AggregateError(result.logs, entry);
  // Paths in the metafile and in the comments are relative to the working directory.
  const absolute = (path: string) => resolve(process.cwd(), path);
  const text = await (result.outputs[0] as Bun.BuildArtifact).text();
  return {
    loaded: Object.keys(result.metafile.inputs).map(absolute),
    emitted: [...text.matchAll(/^\/\/ (\S+\.[cm]?[jt]sx?)$/gm)].map((m) =>
      absolute(m[1] as string),
    ),
  };
}

const fromSrc = (paths: readonly string[]) =>
  paths.filter((p) => !relative(SRC, p).startsWith("..")).map((p) => relative(SRC, p));

describe("every app's entry point, bundled for its runtime", () => {
  const bundles = new Map<string, Bundled>();
  // One at a time: the machine may be measuring something else (about 1 s for all 15).
  beforeAll(async () => {
    for (const app of APPS) bundles.set(app.name, await bundle(entryOf(app), app.runtime));
  });

  test.each(APPS.map((app) => [app.name] as const))("%s loads none of the checker", (name) => {
    const bundled = bundles.get(name) as Bundled;
    // The contract is there (the markers are read at all)...
    expect(fromSrc(bundled.loaded)).toContain("spec/registry.ts");
    expect(fromSrc(bundled.emitted)).toContain("spec/registry.ts");
    // ...and nothing of its checker, loaded or emitted.
    expect(fromSrc(bundled.loaded.filter(isChecker))).toEqual([]);
    expect(fromSrc(bundled.emitted.filter(isChecker))).toEqual([]);
  });

  test("every app serves its database and its workers through the contract", () => {
    for (const app of APPS) {
      const loaded = fromSrc(bundles.get(app.name)?.loaded ?? []);
      expect(loaded).toContain("stores/selector.ts");
      expect(loaded).toContain("serve/workers.ts");
    }
  });
});

describe("the check can fail", () => {
  const dir = mkdtempSync(join(tmpdir(), "app-bundles-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("an app that imports the checker is caught, even when its code is tree-shaken", async () => {
    const entry = join(dir, "leaky.ts");
    writeFileSync(
      entry,
      [
        `import { getApp } from ${JSON.stringify(join(SRC, "index.ts"))};`,
        // Only a type: nothing of verify.ts is emitted, yet the runtime loads the whole entry.
        `import { type Violation, CASES } from ${JSON.stringify(join(SRC, "check.ts"))};`,
        "const none: Violation[] = [];",
        "console.log(getApp('bun-bare'), CASES.length, none);",
      ].join("\n"),
    );
    const bundled = await bundle(entry, "bun");
    const loaded = fromSrc(bundled.loaded.filter(isChecker));
    expect(loaded).toContain("check.ts");
    expect(loaded).toContain("check/cases.ts");
    expect(loaded).toContain("check/verify.ts");
    // CASES is used: its module is in the output too, by its path comment.
    expect(fromSrc(bundled.emitted.filter(isChecker))).toContain("check/cases.ts");
    expect(fromSrc(bundled.emitted.filter(isChecker))).not.toContain("check/verify.ts");
  });
});
