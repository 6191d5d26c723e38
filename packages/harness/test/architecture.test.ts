// The layout of packages/harness/src is its architecture (src/README.md): a folder per
// subsystem, no file name used twice, and data flowing one way, measure → record → analyse →
// render. The contract's (packages/contract/README.md): what the apps import never reaches what
// checks them, and no cycle. These rules read every import of every module, so a change that
// breaks one fails here; each is a function of an import graph, so a planted one shows it can fail.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "src");
/** The contract's sources: what apps import (spec/, serve/, stores/) and what checks them (check/). */
const CONTRACT = join(import.meta.dir, "..", "..", "contract", "src");

/** Every file under `root`, as paths relative to it. */
function sources(root = SRC, dir = root): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(root, path) : [relative(root, path)];
  });
}

/**
 * The modules a module imports (relative specifiers only), as paths relative to its root:
 * static imports and re-exports, side-effect imports and dynamic `import()` with any quote.
 */
export function importsOf(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*(["'`])(\.{1,2}\/[^"'`]+)\1/g)) {
    found.add(join(dirname(file), m[2] as string));
  }
  return [...found];
}

/**
 * The modules a module imports for their values: importsOf without `import type` and `export
 * type` statements, which leave nothing at run time (a folder may name another's types).
 */
export function valueImportsOf(file: string, text: string): string[] {
  const values = text.replace(/^(?:import|export)\s+type\s[^;]*?from\s*(["'`])[^"'`]+\1;?/gm, "");
  return importsOf(file, values);
}

/** Each module and the modules it imports. */
type Graph = ReadonlyMap<string, readonly string[]>;

function graphOf(
  files: readonly string[],
  read: (file: string) => string,
  of: (file: string, text: string) => string[] = importsOf,
): Graph {
  const ts = files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  return new Map(ts.map((file) => [file, of(file, read(file))]));
}

const folderOf = (path: string) => (path.includes("/") ? (path.split("/")[0] as string) : "");

/**
 * What a folder (or a single file, whose rule then replaces its folder's) may not import: the
 * folders in `never` ("" is the files at the top), except the single files in `except`.
 */
interface Rule {
  readonly never: readonly string[];
  readonly except?: readonly string[];
}

/** Every harness folder, for the rules that name them all. */
const FOLDERS = [
  "common",
  "results",
  "runtimes",
  "analysis",
  "load",
  "hosts",
  "apps",
  "side",
  "rates",
  "profiles",
  "history",
  "report",
  "run",
] as const;

/** Every folder but these: what a folder low in the flow may not import. */
const allBut = (...allowed: string[]) => ["", ...FOLDERS.filter((f) => !allowed.includes(f))];

/**
 * What each harness folder may not import (src/README.md's table): data flows one way, measure
 * → record → analyse → render, with run/ on top putting a run in sequence.
 */
const RULES: Record<string, Rule> = {
  // Leaf modules every folder shares (the root, the plan of CPUs, machine and git, time, JSON).
  common: { never: allBut("common") },
  // results.json's shape depends on nothing the harness does.
  results: { never: allBut("results") },
  // Runtime versions and installs: names and processes, nothing of a run.
  runtimes: { never: allBut("runtimes", "common") },
  // The analysis computes from results alone: nothing that measures, nothing that renders.
  analysis: { never: allBut("analysis", "results", "runtimes", "common") },
  // A measurement knows its tool and its host, nothing of the run around it.
  load: { never: allBut("load", "hosts", "results", "runtimes", "common") },
  // Where the apps run: they start apps and sample /proc, and measure nothing themselves.
  hosts: { never: allBut("hosts", "apps", "load", "results", "runtimes", "common") },
  // The apps under test: start, readiness, their databases, start-up figures.
  apps: { never: allBut("apps", "hosts", "analysis", "results", "runtimes", "common") },
  // Side by side's measuring pieces: pairs, a pair's load and judgement, the other commit.
  side: { never: allBut("side", "load", "apps", "results", "runtimes", "common") },
  // Open-loop trials: a rate's load and what the analysis says of it.
  rates: { never: allBut("rates", "load", "analysis", "results", "runtimes", "common") },
  // Profiled trials: an app started under its runtime's profiler.
  profiles: { never: allBut("profiles", "apps", "load", "results", "runtimes", "common") },
  // The history keeps finished runs and reads them back: it measures and renders nothing.
  history: { never: allBut("history", "analysis", "results", "common") },
  // Rendering reads the analysis (and the history's view): it starts and measures nothing.
  report: { never: allBut("report", "analysis", "history", "results", "runtimes", "common") },
  // One run in sequence, from the command line to the record: it may use every folder.
  run: { never: [""] },
};

/**
 * The contract's rules (packages/contract/README.md). What the apps load (the "." entry, index.ts:
 * spec/, serve/, stores/) never reaches the verifier (check/), whose cases build ~1 MiB at import;
 * the spec depends on nothing else; the checks read the spec and the stores, never the reverse.
 */
const CONTRACT_RULES: Record<string, Rule> = {
  spec: { never: ["serve", "stores", "check", ""] },
  serve: { never: ["stores", "check", ""] },
  stores: { never: ["serve", "check", ""] },
  check: { never: ["serve", ""] },
  // "@bench/contract": what the apps import.
  "index.ts": { never: ["check", ""] },
  // "@bench/contract/check": the verifier's side only.
  "check.ts": { never: ["spec", "serve", "stores", ""] },
};

function violations(graph: Graph, rules: Record<string, Rule>): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const rule = rules[file] ?? rules[folderOf(file)];
    if (!rule) continue;
    for (const target of targets) {
      if (rule.never.includes(folderOf(target)) && !rule.except?.includes(target)) {
        out.push(`${file} imports ${target}`);
      }
    }
  }
  return out;
}

/** Every module `from` leads to, through any number of imports (`from` included). */
function reachable(graph: Graph, from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of graph.get(file) ?? []) visit(next);
  };
  for (const file of from) visit(file);
  return seen;
}

/**
 * The cycles of a directed graph: each strongly connected component of two or more nodes, or of
 * one node with an edge to itself, its nodes sorted (Tarjan's algorithm).
 */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let top: string | undefined;
    do {
      top = stack.pop() as string;
      component.push(top);
    } while (top !== node);
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return found;
}

/** The module graph's cycles: imports that only run because of hoisting, or not at all. */
function moduleCycles(graph: Graph): string[][] {
  return cycles(new Map([...graph].map(([file, targets]) => [file, new Set(targets)])));
}

/** The folders' cycles: folder A imports from folder B and B, through any modules, from A. */
function folderCycles(graph: Graph): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const target of targets) {
      if (folderOf(target) !== from) edges.get(from)?.add(folderOf(target));
    }
  }
  return cycles(edges);
}

/**
 * What a report may call from analysis/: the one analysis (analyze(), and --compare's of two
 * runs), and helpers that name or group what it computed; every figure, row and verdict comes
 * in the Analysis it is handed (analyse once, for every view).
 */
const ANALYSIS_ENTRIES = new Set([
  "analyze",
  "summarize",
  "compareRuns",
  "runMismatches",
  "connectionsText",
  "workersText",
  "scenarioOfKey",
  "groupsOf",
  "roundsMeasured",
  "chartQualifiers",
  "apiKeyOf",
  "stealOf",
  "thresholdText",
  "baselineName",
  "rankRows",
]);

/**
 * What a report module computes itself: names it imports from analysis/ that are neither
 * types, nor the constants its prose quotes (UPPER_CASE), nor ANALYSIS_ENTRIES.
 */
function statisticsIn(file: string, text: string): string[] {
  const out: string[] = [];
  const statements = /(?:import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)"/g;
  for (const m of text.matchAll(statements)) {
    const target = relative(SRC, resolve(join(SRC, dirname(file)), m[3] as string));
    if (m[1] || !target.startsWith("analysis/")) continue;
    for (const name of (m[2] as string).split(",").map((n) => n.trim())) {
      const bare = name.split(" as ")[0] as string;
      if (bare === "" || bare.startsWith("type ") || /^[A-Z][A-Z0-9_]*$/.test(bare)) continue;
      if (!ANALYSIS_ENTRIES.has(bare)) out.push(`${file} computes with ${bare} from ${target}`);
    }
  }
  return out;
}

describe("packages/harness/src", () => {
  const files = sources();
  const read = (file: string) => readFileSync(join(SRC, file), "utf8");

  test("data flows one way: no module imports what its folder's rule forbids", () => {
    expect(violations(graphOf(files, read), RULES)).toEqual([]);
  });

  test("a forbidden import is caught (the rule can fail)", () => {
    const planted = (file: string) =>
      file === "analysis/stats.ts" ? `import { runLoad } from "../load/load.ts";\n` : read(file);
    expect(violations(graphOf(files, planted), RULES)).toEqual([
      "analysis/stats.ts imports load/load.ts",
    ]);
  });

  test("every folder has a rule; no folder imports another's values back (no folder cycle)", () => {
    const folders = new Set(files.filter((f) => f.includes("/")).map(folderOf));
    expect([...folders].sort()).toEqual([...FOLDERS].sort());
    expect(Object.keys(RULES).sort()).toEqual([...FOLDERS].sort());
    expect(folderCycles(graphOf(files, read, valueImportsOf))).toEqual([]);
  });

  test("a planted folder cycle is caught, and a type-only import is not one", () => {
    const planted = (file: string) =>
      file === "common/plan.ts"
        ? `import { main } from "../run/run.ts";\n${read(file)}`
        : read(file);
    expect(folderCycles(graphOf(files, planted, valueImportsOf))).toEqual([
      expect.arrayContaining(["common", "run"]),
    ]);
    expect(violations(graphOf(files, planted), RULES)).toEqual([
      "common/plan.ts imports run/run.ts",
    ]);
    const typeOnly = `import type { Run } from "../run/session.ts";\nexport type { X } from "../run/x.ts";\nimport { a } from "./a.ts";\n`;
    expect(valueImportsOf("common/plan.ts", typeOnly)).toEqual(["common/a.ts"]);
  });

  test("the reports compute nothing: from analysis/ only types, quoted constants, the entries", () => {
    const reports = files.filter((f) => f.startsWith("report/") && f.endsWith(".ts"));
    expect(reports.flatMap((f) => statisticsIn(f, read(f)))).toEqual([]);
    const planted =
      `import { median, PAIRED_MIN_ROUNDS, type Interval } from "../analysis/stats.ts";\n` +
      `import { analyze, rateLevels as levels } from "../analysis/rate-levels.ts";\n` +
      `export { workersRows } from "../analysis/scaling.ts";`;
    expect(statisticsIn("report/x.ts", planted)).toEqual([
      "report/x.ts computes with median from analysis/stats.ts",
      "report/x.ts computes with rateLevels from analysis/rate-levels.ts",
      "report/x.ts computes with workersRows from analysis/scaling.ts",
    ]);
  });

  test("at most ~13 folders at the top, each described in src/README.md", () => {
    const top = readdirSync(SRC);
    // twelve subsystems (history/ the latest), the leaf modules (common/), README.md, index.ts
    expect(top.length).toBeLessThanOrEqual(15);
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

describe("packages/contract/src", () => {
  const files = sources(CONTRACT);
  const read = (file: string) => readFileSync(join(CONTRACT, file), "utf8");
  const graph = graphOf(files, read);
  /** What the apps load: the "." entry and "./workers" (package.json's exports). */
  const APP_ENTRIES = ["index.ts", "serve/workers.ts"];
  const checker = (file: string) =>
    folderOf(file) === "check" || ["check.ts", "cli.ts"].includes(file);
  const plant = (extra: Record<string, string>) => (file: string) =>
    extra[file] === undefined ? read(file) : `${extra[file]}\n${read(file)}`;

  test("what apps import never imports what checks them: each folder's rule holds", () => {
    expect(violations(graph, CONTRACT_RULES)).toEqual([]);
  });

  test("nothing the apps load reaches check/ or the CLI, through any number of imports", () => {
    const loaded = reachable(graph, APP_ENTRIES);
    // The walk sees the whole spec side (it could find a checker there).
    expect(loaded).toContain("spec/scenarios.ts");
    expect(loaded).toContain("stores/pg-store.ts");
    expect([...loaded].filter(checker)).toEqual([]);
    expect(reachable(graph, ["check.ts"])).toContain("check/cases.ts");
  });

  test("a checker imported by the spec or a store, statically or dynamically, is caught", () => {
    const planted = graphOf(
      files,
      plant({
        // What scenarios.ts did before the split.
        "spec/scenarios.ts": `import { STACK_HEADERS } from "../check/middleware-checks.ts";`,
        "stores/selector.ts": "const { CASES } = await import(`../check/cases.ts`);",
      }),
    );
    expect(violations(planted, CONTRACT_RULES).sort()).toEqual([
      "spec/scenarios.ts imports check/middleware-checks.ts",
      "stores/selector.ts imports check/cases.ts",
    ]);
    const loaded = [...reachable(planted, APP_ENTRIES)].filter(checker);
    expect(loaded).toContain("check/cases.ts");
    expect(loaded).toContain("check/middleware-checks.ts");
  });

  test("no import cycle, between modules or between folders", () => {
    expect(moduleCycles(graph)).toEqual([]);
    expect(folderCycles(graph)).toEqual([]);
  });

  test("a planted cycle is caught: the verifier's old one, and one between folders", () => {
    // db-checks.ts took mediaTypeOf from verify.ts, which imports it through verify-db.ts.
    const back = plant({ "check/db-checks.ts": `import { mediaTypeOf } from "./verify.ts";` });
    expect(moduleCycles(graphOf(files, back))).toEqual([
      ["check/db-checks.ts", "check/verify-db.ts", "check/verify.ts"],
    ]);
    const across = plant({ "spec/db.ts": `import { worldStore } from "../stores/selector.ts";` });
    expect(folderCycles(graphOf(files, across))).toEqual([["spec", "stores"]]);
  });

  test("cycles(): each strongly connected component once, self-loops included", () => {
    const edges = new Map<string, Set<string>>([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a", "d"])],
      ["d", new Set(["d"])],
      ["e", new Set(["a"])],
    ]);
    expect(cycles(edges)).toEqual([["d"], ["a", "b", "c"]]);
    expect(cycles(new Map([["x", new Set(["y"])]]))).toEqual([]);
  });

  test("every folder has a rule and a row in the package's README; no file name twice", () => {
    const readme = readFileSync(join(CONTRACT, "..", "README.md"), "utf8");
    const folders = readdirSync(CONTRACT).filter((e) => statSync(join(CONTRACT, e)).isDirectory());
    expect(folders.sort()).toEqual(["check", "serve", "spec", "stores"]);
    for (const folder of folders) {
      expect(CONTRACT_RULES[folder]).toBeDefined();
      expect(readme).toContain(`| \`${folder}/\` |`);
    }
    const names = files.map((f) => basename(f));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
