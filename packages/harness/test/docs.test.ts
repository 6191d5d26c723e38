// The README is the front door and docs/ the manual: every relative link in them (and in the
// apps' and packages' READMEs, and the kept runs' reports) must lead somewhere, a file that
// exists and, for a #fragment into Markdown, a heading that is there; and the README stays short.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { APPS } from "@bench/contract";
import { REPO_ROOT } from "../src/index.ts";
import { PAGE, withFields } from "../src/report/schema-page.ts";
import { commandOf } from "../src/run/command.ts";
import {
  aboutMinutes,
  DEFAULT_MAX_TIME_SEC,
  DEFAULTS,
  FLAGS,
  PLAIN,
  PROCESS_COST_SEC,
  QUICK,
  runSec,
  type Values,
} from "../src/run/flags.ts";

/** Every Markdown file of the docs: README.md, docs/ (recursively), apps/ and packages/ READMEs. */
function markdownFiles(): string[] {
  const found = [join(REPO_ROOT, "README.md")];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith(".md")) found.push(path);
    }
  };
  walk(join(REPO_ROOT, "docs"));
  for (const parent of ["apps", "packages"]) {
    for (const entry of readdirSync(join(REPO_ROOT, parent))) {
      const readme = join(REPO_ROOT, parent, entry, "README.md");
      if (existsSync(readme)) found.push(readme);
    }
  }
  return found;
}

/** The lines outside fenced code blocks: links and headings inside them are examples. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/** A heading's anchor as GitHub makes it (github-slugger): numbered when repeated. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const text = (m[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links of a Markdown text: `[label](target)`, no scheme, no mail. */
function links(markdown: string): string[] {
  const out: string[] = [];
  for (const line of prose(markdown)) {
    for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] as string;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push(target);
    }
  }
  return out;
}

/** What is wrong with `target` written in `file`, or undefined when it resolves. */
function broken(file: string, target: string): string | undefined {
  const [path = "", fragment] = target.split("#");
  const resolved = path === "" ? file : join(dirname(file), decodeURIComponent(path));
  if (!existsSync(resolved)) return "no such file";
  if (fragment === undefined || !resolved.endsWith(".md")) return undefined;
  const found = anchors(readFileSync(resolved, "utf8"));
  return found.has(fragment) ? undefined : `no heading #${fragment}`;
}

describe("documentation", () => {
  test("every relative link in README.md and docs/ resolves, #fragments included", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      for (const target of links(readFileSync(file, "utf8"))) {
        checked++;
        const why = broken(file, target);
        if (why) problems.push(`${relative(REPO_ROOT, file)}: (${target}) ${why}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(60); // the links were found at all (82 when written)
  });

  test("the README is a front door: at most ~300 lines, linking every page of docs/", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    const pages = readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) expect(readme).toContain(`(docs/${page})`);
  });

  test("the quick start says how long the default run takes, as the constants compute it", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Results"));
    expect(quickStart).toMatch(
      new RegExp(`^\\./benchmark\\.sh .*: ${aboutMinutes(runSec(APPS.length))}$`, "m"),
    );
    const running = readFileSync(join(REPO_ROOT, "docs", "running.md"), "utf8");
    expect(running).toMatch(
      new RegExp(`^\\./benchmark\\.sh .*: ${aboutMinutes(runSec(APPS.length))}$`, "m"),
    );
    expect(running).toMatch(
      new RegExp(
        `^\\./benchmark\\.sh --quick .*: ${aboutMinutes(runSec(APPS.length, QUICK))}$`,
        "m",
      ),
    );
    expect(running).toContain(`plus about ${PROCESS_COST_SEC} s of start`);
    // the figure moves with the defaults: twice the rounds is not the same sentence
    expect(
      aboutMinutes(runSec(APPS.length, { ...DEFAULTS, rounds: 2 * DEFAULTS.rounds })),
    ).not.toBe(aboutMinutes(runSec(APPS.length)));
  });

  test("anchors are GitHub's: punctuation dropped, spaces to hyphens, repeats numbered", () => {
    const made = anchors(
      "# Side by side: two apps\n## `--rates` and p99 (ms)\n## Notes\n```\n# not a heading\n```\n## Notes\n",
    );
    expect([...made]).toEqual(["side-by-side-two-apps", "--rates-and-p99-ms", "notes", "notes-1"]);
  });

  test("a broken link or fragment is reported (the check can fail)", () => {
    const readme = join(REPO_ROOT, "README.md");
    expect(broken(readme, "docs/no-such-page.md")).toBe("no such file");
    expect(broken(readme, "docs/findings.md#no-such-heading")).toBe("no heading #no-such-heading");
    expect(broken(readme, "docs/findings.md#findings-dated")).toBeUndefined();
    expect(broken(readme, "#results")).toBeUndefined();
  });
});

describe("docs/running.md's flag table", () => {
  const table = readFileSync(join(REPO_ROOT, "docs", "running.md"), "utf8")
    .split("\n")
    .filter((line) => /^\| `[-[]/.test(line))
    .map((line) => line.split("|").map((cell) => cell.trim()));
  const flagsOf = (cell: string) =>
    [...cell.matchAll(/(?<![\w-])--?[a-z][\w-]*/g)].map((m) => m[0]);

  test("lists every flag of the command line, and no other", () => {
    const documented = table.flatMap((row) => flagsOf(row[1] ?? "")).sort();
    const defined = FLAGS.flatMap((f) => f.names).sort();
    expect(documented).toEqual(defined);
  });

  const stated = (flag: string) =>
    table.find((row) => flagsOf(row[1] ?? "").includes(flag))?.[3]?.replaceAll("`", "");

  test("states the default each flag takes in the default run, as its row gives it", () => {
    // Where the default is a place on this machine, the table describes it in words.
    const described = ["--output", "--server-dir"];
    let checked = 0;
    for (const flag of FLAGS.filter((f) => f.value !== undefined && f.default)) {
      const name = flag.names.at(-1) as string;
      if (described.includes(name)) continue;
      const said = (stated(name) ?? "").split(" ")[0] as string;
      const value = flag.default?.(PLAIN);
      let read: unknown = said;
      try {
        read = said === String(value) ? value : flag.form(said, name, [said]);
      } catch {
        // not a value of the flag at all: the text as it is, which cannot equal the default
      }
      expect({ flag: name, stated: read }).toEqual({ flag: name, stated: value });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
    expect(stated("--max-time")).toBe(`${DEFAULT_MAX_TIME_SEC / 60}m`);
  });

  test("states --quick's and --side-by-side's defaults as those modes take them", () => {
    const page = readFileSync(join(REPO_ROOT, "docs", "running.md"), "utf8");
    const preset = (pattern: RegExp) => (pattern.exec(page)?.[1] ?? "").split(" ");
    const cases: [string, string[]][] = [
      ["--quick", preset(/smoke preset: `([^`]+)`/)],
      ["--side-by-side", preset(/defaults become `([^`]+)`/)],
    ];
    for (const [mode, flags] of cases) {
      const said = runValues(flags);
      const taken = runValues([mode]);
      expect(said.given.size).toBeGreaterThanOrEqual(4);
      for (const key of said.given) {
        expect({ mode, key, value: said[key] }).toEqual({ mode, key, value: taken[key] });
      }
    }
  });
});

/** A run's values from its command line, as a run reads them. */
function runValues(argv: string[]): Values {
  const command = commandOf(argv, {}, REPO_ROOT);
  if (command.kind !== "run") throw new Error(`not a run: ${argv.join(" ")}`);
  return command.values;
}

describe("docs/results-json.md's field reference", () => {
  test("is the schema's: every field, its type and its comment, as schema-page.ts renders them", () => {
    const page = readFileSync(PAGE, "utf8");
    expect(withFields(page)).toBe(page);
    expect(page).toContain("| `trials[].server.cpuNsPerRequest` | number ≥ 0 (optional) |");
  });

  test("a field the page lacks is noticed (the check can fail)", () => {
    const page = readFileSync(PAGE, "utf8");
    const dropped = page.replace(/^\| `trials\[\]\.round` .*\n/m, "");
    expect(dropped).not.toBe(page);
    expect(withFields(dropped)).not.toBe(dropped);
  });
});
