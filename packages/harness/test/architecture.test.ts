// The layout of packages/harness/src is its architecture (src/README.md): a folder per
// subsystem, no file name used twice, and data flowing one way, measure → record → analyse →
// render. These rules read every import of every module, so a change that breaks one fails here.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "src");

/** Every file under src/, as paths relative to it. */
function sources(dir = SRC): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : [relative(SRC, path)];
  });
}

/** The src/ modules a module imports (relative specifiers only), as paths relative to src/. */
export function importsOf(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
    found.add(relative(SRC, resolve(join(SRC, dirname(file)), m[1] as string)));
  }
  return [...found];
}

const folderOf = (path: string) => (path.includes("/") ? (path.split("/")[0] as string) : "");

/** What each folder may not import, and the single files it may import from a folder it may not. */
const RULES: Record<string, { readonly never: readonly string[]; readonly except?: string[] }> = {
  // results.json's shape depends on nothing the harness does.
  results: {
    never: [
      "run",
      "apps",
      "load",
      "hosts",
      "side",
      "rates",
      "profiles",
      "report",
      "analysis",
      "runtimes",
    ],
  },
  // The analysis computes from results alone: nothing that measures, nothing that renders.
  analysis: { never: ["run", "apps", "load", "hosts", "side", "rates", "profiles", "report"] },
  runtimes: {
    never: ["run", "apps", "load", "hosts", "side", "rates", "profiles", "report", "analysis"],
  },
  // A measurement knows its tool and its host, nothing of the run around it.
  load: { never: ["run", "apps", "side", "rates", "profiles", "report", "analysis"] },
  // The history keeps finished runs and reads them back: it measures nothing.
  history: { never: ["run", "load", "hosts", "side", "rates", "profiles", "runtimes"] },
  // Rendering reads the analysis: it starts nothing and measures nothing.
  report: {
    never: ["run", "apps", "load", "hosts", "side", "rates", "profiles"],
    except: ["run/record.ts", "run/precision.ts"],
  },
};

function violations(files: readonly string[], read: (file: string) => string): string[] {
  const out: string[] = [];
  for (const file of files.filter((f) => f.endsWith(".ts"))) {
    const rule = RULES[folderOf(file)];
    if (!rule) continue;
    for (const target of importsOf(file, read(file))) {
      if (rule.never.includes(folderOf(target)) && !rule.except?.includes(target)) {
        out.push(`${file} imports ${target}`);
      }
    }
  }
  return out;
}

const STATISTICS = ["analysis/estimate.ts", "analysis/verdicts.ts", "analysis/stats.ts"];

/**
 * Statistics a report module computes itself: names it imports from estimate.ts or stats.ts
 * that are neither types nor the constants its prose quotes (UPPER_CASE).
 */
function statisticsIn(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)"/g)) {
    const target = relative(SRC, resolve(join(SRC, dirname(file)), m[3] as string));
    if (m[1] || !STATISTICS.includes(target)) continue;
    for (const name of (m[2] as string).split(",").map((n) => n.trim())) {
      if (name !== "" && !name.startsWith("type ") && !/^[A-Z][A-Z0-9_]*$/.test(name)) {
        out.push(`${file} computes with ${name} from ${target}`);
      }
    }
  }
  return out;
}

describe("packages/harness/src", () => {
  const files = sources();
  const read = (file: string) => readFileSync(join(SRC, file), "utf8");

  test("data flows one way: no module imports what its folder's rule forbids", () => {
    expect(violations(files, read)).toEqual([]);
  });

  test("a forbidden import is caught (the rule can fail)", () => {
    const planted = (file: string) =>
      file === "analysis/stats.ts" ? `import { runLoad } from "../load/load.ts";\n` : read(file);
    expect(violations(files, planted)).toEqual(["analysis/stats.ts imports load/load.ts"]);
  });

  test("the reports import no statistics: only types and the constants their prose quotes", () => {
    const reports = files.filter((f) => f.startsWith("report/") && f.endsWith(".ts"));
    expect(reports.flatMap((f) => statisticsIn(f, read(f)))).toEqual([]);
    const planted = `import { median, PAIRED_MIN_ROUNDS, type Interval } from "../analysis/stats.ts";`;
    expect(statisticsIn("report/x.ts", planted)).toEqual([
      "report/x.ts computes with median from analysis/stats.ts",
    ]);
  });

  test("at most ~12 folders at the top, each described in src/README.md", () => {
    const top = readdirSync(SRC);
    // twelve subsystems (history/ the latest), README.md and index.ts
    expect(top.length).toBeLessThanOrEqual(14);
    const readme = read("README.md");
    for (const entry of top.filter((e) => statSync(join(SRC, e)).isDirectory())) {
      expect(readme).toContain(`| \`${entry}/\` |`);
    }
  });

  test("no file name is used twice", () => {
    const names = files.map((f) => basename(f));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
