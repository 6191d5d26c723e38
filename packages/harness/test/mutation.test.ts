// The mutation run's own arithmetic: each module's score, the bar, and the survivors page whose
// hand-written reasons must follow a survivor when the code around it moves.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MutationGroup } from "../mutation/groups.ts";
import {
  closure,
  fingerprint,
  readRecorded,
  resolveImport,
  specifiers,
  toRun,
  withScores,
  writeRecorded,
} from "../mutation/recorded.ts";
import {
  belowBar,
  type Mutant,
  moduleScore,
  overall,
  scoresOf,
  scoreTable,
} from "../mutation/score.ts";
import {
  originalOf,
  reasonsFrom,
  survivorsOf,
  survivorTables,
  UNREVIEWED,
  unreviewed,
} from "../mutation/survivors.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

let nextId = 0;
function mutant(status: string, line = 1, column = 1, endColumn = column + 1): Mutant {
  nextId += 1;
  return {
    id: String(nextId),
    mutatorName: "EqualityOperator",
    replacement: "a <= b",
    status,
    location: { start: { line, column }, end: { line, column: endColumn } },
  };
}
const many = (status: string, n: number) => Array.from({ length: n }, () => mutant(status));

describe("a module's score", () => {
  test("killed and timed out over killed, timed out, survived and uncovered; errors excluded", () => {
    const s = moduleScore("m.ts", [
      ...many("Killed", 6),
      ...many("Timeout", 1),
      ...many("Survived", 2),
      ...many("NoCoverage", 1),
      ...many("CompileError", 3),
      ...many("Ignored", 2),
    ]);
    // 7 detected of 10 valid; the 5 others are neither
    expect(s).toEqual({
      module: "m.ts",
      killed: 6,
      timeout: 1,
      survived: 2,
      noCoverage: 1,
      excluded: 5,
      score: 70,
    });
  });

  test("a module with no valid mutant has no score and is never below the bar", () => {
    const s = moduleScore("empty.ts", many("Ignored", 3));
    expect(s.score).toBeUndefined();
    expect(belowBar([s], 90)).toEqual([]);
  });

  test("the bar: 90% passes, anything under it does not", () => {
    const at = moduleScore("at.ts", [...many("Killed", 9), ...many("Survived", 1)]);
    const under = moduleScore("under.ts", [...many("Killed", 8), ...many("Survived", 1)]);
    expect(at.score).toBe(90);
    expect(belowBar([at, under], 90).map((s) => s.module)).toEqual(["under.ts"]);
  });

  test("the overall score pools mutants, not module percentages", () => {
    const a = moduleScore("a.ts", [...many("Killed", 1), ...many("Survived", 1)]); // 50%
    const b = moduleScore("b.ts", many("Killed", 8)); // 100%
    // (1 + 8) / 10 = 90%, not the mean of 50% and 100%
    expect(overall([a, b]).score).toBe(90);
    expect(overall([a, b]).survived).toBe(1);
  });

  test("the total of modules with timeouts, uncovered and excluded mutants", () => {
    const a = moduleScore("a.ts", [...many("Timeout", 2), ...many("NoCoverage", 2)]);
    const b = moduleScore("b.ts", [...many("Killed", 4), ...many("RuntimeError", 3)]);
    // detected: 2 timed out + 4 killed = 6 of 8 valid; 3 excluded
    expect(overall([a, b])).toEqual({
      module: "all modules",
      killed: 4,
      timeout: 2,
      survived: 0,
      noCoverage: 2,
      excluded: 3,
      score: 75,
    });
    expect(overall([moduleScore("e.ts", many("Ignored", 1))]).score).toBeUndefined();
  });

  test("the table: a dash for no score, uncovered counted with survived, the bar itself passes", () => {
    const none = moduleScore("pkg/none.ts", []);
    const at = moduleScore("pkg/at.ts", [...many("Killed", 9), ...many("NoCoverage", 1)]);
    const [first, second] = scoreTable([none, at], 90).split("\n");
    expect(first).toMatch(/^pkg\/none\.ts +– {2}\(0 killed, 0 timed out, 0 survived\)$/);
    expect(second).toMatch(/ 90\.0% {2}\(9 killed, 0 timed out, 1 survived\)$/);
  });

  test("the table marks the modules below the bar and ends with the total", () => {
    const a = moduleScore("pkg/a.ts", [...many("Killed", 1), ...many("Survived", 1)]);
    const b = moduleScore("pkg/b.ts", many("Killed", 2));
    const lines = scoreTable([a, b], 90).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("50.0%");
    expect(lines[0]).toEndWith(")  below the bar");
    expect(lines[1]).toContain("100.0%");
    expect(lines[1]).not.toContain("below");
    expect(lines[2]).toMatch(
      /^all modules +75\.0% {2}\(3 killed, 0 timed out, 1 survived\) {2}below/,
    );
  });

  test("a report's files are named from the repository root, in order", () => {
    const report = {
      files: {
        "src/b.ts": { source: "", mutants: many("Killed", 1) },
        "src/a.ts": { source: "", mutants: many("Survived", 1) },
      },
    };
    expect(scoresOf(report, "packages/harness").map((s) => s.module)).toEqual([
      "packages/harness/src/a.ts",
      "packages/harness/src/b.ts",
    ]);
  });
});

describe("the survivors page", () => {
  const source = "const a = 1;\nif (x < y) {\n  go();\n}\n";

  test("the original text: columns count from 1, end exclusive; across lines too", () => {
    expect(originalOf(source, mutant("Survived", 2, 5, 10))).toBe("x < y");
    const block: Mutant = {
      ...mutant("Survived"),
      location: { start: { line: 2, column: 12 }, end: { line: 4, column: 2 } },
    };
    expect(originalOf(source, block)).toBe("{\n  go();\n}");
  });

  test("a mutant spanning lines ends where its end column says; long code is cut, on one line", () => {
    const code = "if (a) {\n  go();\n} else {\n  stop();\n}\n";
    const block: Mutant = {
      ...mutant("Survived"),
      location: { start: { line: 1, column: 8 }, end: { line: 3, column: 2 } },
    };
    expect(originalOf(code, block)).toBe("{\n  go();\n}");
    const long = `${"x".repeat(80)}\n`;
    const [s] = survivorsOf(
      {
        files: {
          "a.ts": {
            source: `{\n   a;\n  }\n${long}`,
            mutants: [
              {
                ...block,
                location: { start: { line: 1, column: 1 }, end: { line: 3, column: 4 } },
              },
              { ...mutant("Survived", 4, 1, 71), replacement: undefined },
              { ...mutant("Survived", 4, 1, 72) },
            ],
          },
        },
      },
      "p",
    ).map((x) => x.change);
    // the newlines and their indentation become one space each
    expect(s).toBe("`{ a; }` → `a <= b`");
    const cut = survivorsOf(
      {
        files: {
          "a.ts": {
            source: long,
            mutants: [
              { ...mutant("Survived", 1, 1, 71), replacement: undefined },
              mutant("Survived", 1, 2, 73),
            ],
          },
        },
      },
      "p",
    ).map((x) => x.change);
    // 70 characters stay whole; 71 become 67 and an ellipsis; no replacement: empty code
    expect(cut).toEqual([`\`${"x".repeat(70)}\` → \`\``, `\`${"x".repeat(67)}…\` → \`a <= b\``]);
  });

  test("survivors of one module are sorted by line, then column", () => {
    const src = "a < b\nc < d\n";
    const report = {
      files: {
        "a.ts": {
          source: src,
          mutants: [mutant("Survived", 2, 3), mutant("Survived", 1, 3), mutant("Survived", 1, 1)],
        },
      },
    };
    expect(survivorsOf(report, "p").map((x) => `${x.line}:${x.column}`)).toEqual([
      "1:1",
      "1:3",
      "2:3",
    ]);
  });

  test("only survived and uncovered mutants are listed, sorted by module, line and column", () => {
    const report = {
      files: {
        "src/b.ts": { source, mutants: [mutant("Survived", 2, 5, 10)] },
        "src/a.ts": {
          source,
          mutants: [
            mutant("Survived", 2, 9, 10),
            mutant("Killed", 1, 1),
            mutant("NoCoverage", 2, 5, 10),
            mutant("Timeout", 1, 1),
          ],
        },
      },
    };
    const s = survivorsOf(report, "p");
    expect(s.map((x) => `${x.module}:${x.line}:${x.column}`)).toEqual([
      "p/src/a.ts:2:5",
      "p/src/a.ts:2:9",
      "p/src/b.ts:2:5",
    ]);
    expect(s[0]?.change).toBe("`x < y` → `a <= b`");
  });

  test("a reason follows its survivor to another line; a changed mutant is unreviewed", () => {
    const report = (line: number, replacement: string) => ({
      files: {
        "src/a.ts": {
          source: `${"\n".repeat(line - 1)}x < y || z\n`,
          mutants: [{ ...mutant("Survived", line, 1, 6), replacement }],
        },
      },
    });
    const first = survivorsOf(report(1, "x <= y"), "p");
    const page = survivorTables(first, new Map());
    expect(page).toContain(`| 1:1 | EqualityOperator | \`x < y\` → \`x <= y\` | ${UNREVIEWED} |`);
    const reviewed = page.replace(UNREVIEWED, "exact boundary: x and y are never equal");
    const reasons = reasonsFrom(reviewed);
    const moved = survivorsOf(report(7, "x <= y"), "p");
    expect(survivorTables(moved, reasons)).toContain(
      "| 7:1 | EqualityOperator | `x < y` → `x <= y` | exact boundary: x and y are never equal |",
    );
    expect(unreviewed(moved, reasons)).toBe(0);
    const other = survivorsOf(report(7, "x > y"), "p");
    expect(unreviewed(other, reasons)).toBe(1);
  });

  test("pipes in code are escaped and the reason is still read back", () => {
    const s = survivorsOf(
      {
        files: {
          "src/a.ts": {
            source: "a || b\n",
            mutants: [{ ...mutant("Survived", 1, 1, 7), replacement: "a && b" }],
          },
        },
      },
      "p",
    );
    expect(s[0]?.change).toBe("`a \\|\\| b` → `a && b`");
    const page = survivorTables(s, new Map()).replace(UNREVIEWED, "same value");
    expect(unreviewed(s, reasonsFrom(page))).toBe(0);
  });

  test("rows are read only under a module heading; unreviewed rows give no reason", () => {
    const row = "| 12:34 | EqualityOperator | `x < y` → `x <= y` | exact boundary |";
    expect(reasonsFrom(row).size).toBe(0);
    const page = `# Survivors\n\n## p/src/a.ts (12)\n\n${row}\n| 1:1 | BlockStatement | \`{}\` → \`{}\` | ${UNREVIEWED} |\n`;
    expect([...reasonsFrom(page)]).toEqual([
      [
        "p/src/a.ts\tEqualityOperator\t`x < y` → `x <= y`",
        [{ at: "12:34", reason: "exact boundary" }],
      ],
      ["p/src/a.ts\tBlockStatement\t`{}` → `{}`", [{ at: "1:1" }]],
    ]);
  });

  test("survivors of one kind keep their own reasons: by place, else by rank when the code moved", () => {
    const report = (shift: number, lines: number[]) => ({
      files: {
        "src/a.ts": {
          source: "x = []\n".repeat(shift + 9),
          mutants: lines.map((l) => ({
            ...mutant("Survived", l + shift, 5, 7),
            replacement: "[1]",
          })),
        },
      },
    });
    const first = survivorsOf(report(0, [2, 5, 8]), "p");
    let n = 0;
    const page = survivorTables(first, new Map()).replaceAll(UNREVIEWED, () => `reason ${++n}`);
    const reasons = reasonsFrom(page);
    const why = (s: ReturnType<typeof survivorsOf>) =>
      [...survivorTables(s, reasons).matchAll(/reason \d|not yet reviewed/g)].map((m) => m[0]);
    expect(why(survivorsOf(report(3, [2, 5, 8]), "p"))).toEqual([
      "reason 1",
      "reason 2",
      "reason 3",
    ]);
    // The first one killed: the two left keep theirs where they are.
    expect(why(survivorsOf(report(0, [5, 8]), "p"))).toEqual(["reason 2", "reason 3"]);
    // A fourth of the kind, new: its reasons differ, so it waits for one.
    expect(why(survivorsOf(report(0, [2, 5, 8, 9]), "p"))).toEqual([
      "reason 1",
      "reason 2",
      "reason 3",
      "not yet reviewed",
    ]);
    // Another kind between them counts for neither its rank nor its number.
    const mixed = (shift: number) =>
      survivorsOf(
        {
          files: {
            "src/a.ts": {
              source: "x = []\n".repeat(shift + 9),
              mutants: [2, 4, 5, 8].map((l) => ({
                ...mutant("Survived", l + shift, 5, 7),
                replacement: l === 4 ? "[2]" : "[1]",
              })),
            },
          },
        },
        "p",
      );
    let m = 0;
    const twoKinds = reasonsFrom(
      survivorTables(mixed(0), new Map()).replaceAll(UNREVIEWED, () => `reason ${++m}`),
    );
    expect([...survivorTables(mixed(3), twoKinds).matchAll(/reason \d/g)].map((r) => r[0])).toEqual(
      ["reason 1", "reason 2", "reason 3", "reason 4"],
    );
    // A kind with one reason carries it to a new one.
    const same = reasonsFrom(survivorTables(first, new Map()).replaceAll(UNREVIEWED, "same value"));
    expect(unreviewed(survivorsOf(report(0, [2, 5, 8, 9]), "p"), same)).toBe(0);
  });

  test("each module gets a section headed with its survivor count", () => {
    const report = {
      files: {
        "src/a.ts": {
          source,
          mutants: [mutant("Survived", 2, 5, 10), mutant("Survived", 2, 9, 10)],
        },
      },
    };
    const both = {
      files: { ...report.files, "src/b.ts": { source, mutants: [mutant("Survived", 2, 5, 10)] } },
    };
    const page = survivorTables(survivorsOf(both, "p"), new Map());
    const [a, b] = page.split("\n\n## ");
    expect(a?.split("\n").slice(0, 4)).toEqual([
      "## p/src/a.ts (2)",
      "",
      "| location | mutator | change | why it survives |",
      "| --- | --- | --- | --- |",
    ]);
    expect(a?.match(/^\| \d+:\d+ \|/gm)).toHaveLength(2);
    expect(b?.startsWith("p/src/b.ts (1)\n")).toBe(true);
  });
});

describe("only what changed is run again (recorded.ts)", () => {
  /** A repository with packages/harness/{src,test} and packages/contract, as the files say. */
  function repo(files: Record<string, string>): string {
    const root = temp("bench-mutation-");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }
  const FILES = {
    "packages/contract/package.json": JSON.stringify({
      exports: { ".": "./src/index.ts", "./check": "./src/check.ts" },
    }),
    "packages/contract/src/index.ts": 'export { a } from "./a.ts";\n',
    "packages/contract/src/a.ts": "export const a = 1;\n",
    "packages/contract/src/check.ts": "export const c = 1;\n",
    "packages/harness/src/m.ts":
      'import { x } from "./x.ts";\nimport { a } from "@bench/contract";\nimport { readFileSync } from "node:fs";\n',
    "packages/harness/src/x.ts":
      'import type { m } from "./m.ts";\nexport const x = await import("./y.ts");\n',
    "packages/harness/src/y.ts": "export const y = 1;\n",
    "packages/harness/src/other.ts": "export const other = 1;\n",
    "packages/harness/test/m.test.ts": 'import { m } from "../src/m.ts";\n',
  };
  const group: MutationGroup = {
    name: "g",
    package: "harness",
    mutate: ["src/m.ts"],
    tests: ["test/m.test.ts"],
  };

  test("specifiers: static, type-only, dynamic and re-exports", () => {
    expect(specifiers(FILES["packages/harness/src/x.ts"])).toEqual(["./m.ts", "./y.ts"]);
    expect(specifiers(FILES["packages/contract/src/index.ts"])).toEqual(["./a.ts"]);
  });

  test("imports resolve to repository files: relative ones, and @bench/... through its exports", () => {
    const root = repo(FILES);
    const m = join(root, "packages/harness/src/m.ts");
    expect(resolveImport(m, "./x.ts", root)).toBe(join(root, "packages/harness/src/x.ts"));
    expect(resolveImport(m, "@bench/contract", root)).toBe(
      join(root, "packages/contract/src/index.ts"),
    );
    expect(resolveImport(m, "@bench/contract/check", root)).toBe(
      join(root, "packages/contract/src/check.ts"),
    );
    expect(resolveImport(m, "node:fs", root)).toBeUndefined();
    expect(resolveImport(m, "@bench/nothing", root)).toBeUndefined();
    expect(resolveImport(m, "./missing.ts", root)).toBeUndefined();
  });

  test("the closure: everything imported, transitively, through a cycle, nothing else", () => {
    const root = repo(FILES);
    const files = closure([join(root, "packages/harness/test/m.test.ts")], root);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      "packages/contract/src/a.ts",
      "packages/contract/src/index.ts",
      "packages/harness/src/m.ts",
      "packages/harness/src/x.ts",
      "packages/harness/src/y.ts",
      "packages/harness/test/m.test.ts",
    ]);
  });

  test("a fingerprint changes with anything in the closure, the group or the tools; not otherwise", () => {
    const root = repo(FILES);
    const base = fingerprint(group, root, "tools 1");
    expect(fingerprint(group, root, "tools 1")).toBe(base);
    writeFileSync(join(root, "packages/harness/src/other.ts"), "export const other = 2;\n");
    writeFileSync(join(root, "packages/contract/src/check.ts"), "export const c = 2;\n");
    expect(fingerprint(group, root, "tools 1")).toBe(base);
    expect(fingerprint(group, root, "tools 2")).not.toBe(base);
    expect(
      fingerprint({ ...group, tests: [...group.tests, "test/m.test.ts"] }, root, "tools 1"),
    ).not.toBe(base);
    writeFileSync(join(root, "packages/contract/src/a.ts"), "export const a = 2;\n");
    const changed = fingerprint(group, root, "tools 1");
    expect(changed).not.toBe(base);
    writeFileSync(join(root, "packages/harness/src/y.ts"), "export const y = 2;\n");
    expect(fingerprint(group, root, "tools 1")).not.toBe(changed);
  });

  test("which groups run: the changed ones, or all; the recorded file keeps the others", () => {
    const other = { ...group, name: "h" };
    const groups = [group, other];
    const recorded = {
      g: { fingerprint: "fg", scoredAt: "then", scores: [] },
      h: { fingerprint: "old", scoredAt: "then", scores: [] },
    };
    const now = (g: MutationGroup) => (g.name === "g" ? "fg" : "fh");
    expect(toRun(groups, recorded, now, false)).toEqual({ run: [other], reused: [group] });
    expect(toRun(groups, recorded, now, true)).toEqual({ run: groups, reused: [] });
    expect(toRun(groups, {}, now, false).run).toEqual(groups);
    const merged = withScores(recorded, { h: { fingerprint: "fh", scoredAt: "now", scores: [] } });
    expect(merged).toEqual({
      g: recorded.g,
      h: { fingerprint: "fh", scoredAt: "now", scores: [] },
    });
    const file = join(temp("bench-recorded-"), "recorded.json");
    expect(readRecorded(file)).toEqual({});
    writeRecorded(file, merged);
    expect(readRecorded(file)).toEqual(merged);
  });
});
