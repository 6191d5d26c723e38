// The survivors page (docs/mutation-survivors.md): every mutant no test noticed, with why. The
// reasons are written by hand in the page itself; a new run regenerates the tables and carries
// each reason over to the survivor with the same module, mutator and change, wherever it moved.

import type { Mutant, StrykerReport } from "./score.ts";

export interface Survivor {
  readonly module: string;
  readonly line: number;
  readonly column: number;
  readonly mutator: string;
  /** `original` → `replacement`, as a Markdown table cell. */
  readonly change: string;
}

export const UNREVIEWED = "not yet reviewed";

const cell = (code: string) => {
  const oneLine = code.replace(/\s*\n\s*/g, " ");
  const short = oneLine.length > 70 ? `${oneLine.slice(0, 67)}…` : oneLine;
  return `\`${short.replaceAll("|", "\\|")}\``;
};

/** The source text a mutant replaces (Stryker's lines and columns count from 1). */
export function originalOf(source: string, m: Mutant): string {
  const lines = source.split("\n");
  const line = (n: number) => lines[n - 1] ?? "";
  const { start, end } = m.location;
  if (start.line === end.line) return line(start.line).slice(start.column - 1, end.column - 1);
  const first = line(start.line).slice(start.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  const last = line(end.line).slice(0, end.column - 1);
  return [first, ...middle, last].join("\n");
}

export function survivorsOf(report: StrykerReport, packageDir: string): Survivor[] {
  const out: Survivor[] = [];
  for (const [file, f] of Object.entries(report.files)) {
    for (const m of f.mutants) {
      if (m.status !== "Survived" && m.status !== "NoCoverage") continue;
      out.push({
        module: `${packageDir}/${file}`,
        line: m.location.start.line,
        column: m.location.start.column,
        mutator: m.mutatorName,
        change: `${cell(originalOf(f.source, m))} → ${cell(m.replacement ?? "")}`,
      });
    }
  }
  return out.sort(
    (a, b) => a.module.localeCompare(b.module) || a.line - b.line || a.column - b.column,
  );
}

const keyOf = (module: string, mutator: string, change: string) =>
  `${module}\t${mutator}\t${change}`;

/** The reasons written in an earlier page, by module, mutator and change. */
export function reasonsFrom(page: string): Map<string, string> {
  const reasons = new Map<string, string>();
  let module = "";
  for (const line of page.split("\n")) {
    const heading = /^## (\S+) \(\d+\)$/.exec(line);
    if (heading) module = heading[1] as string;
    // | 12:3 | Mutator | `a` → `b` | why |   (a cell may contain escaped pipes)
    const row = /^\| \d+:\d+ \| (\w+) \| (.+) \| ((?:[^|\\]|\\.)+) \|$/.exec(line);
    if (!module || !row) continue;
    const reason = row[3] as string;
    if (reason !== UNREVIEWED)
      reasons.set(keyOf(module, row[1] as string, row[2] as string), reason);
  }
  return reasons;
}

/** The tables of the page: one section per module, each survivor with its carried reason. */
export function survivorTables(
  survivors: readonly Survivor[],
  reasons: ReadonlyMap<string, string>,
): string {
  const modules = [...new Set(survivors.map((s) => s.module))];
  return modules
    .map((module) => {
      const mine = survivors.filter((s) => s.module === module);
      const rows = mine.map((s) => {
        const reason = reasons.get(keyOf(s.module, s.mutator, s.change)) ?? UNREVIEWED;
        return `| ${s.line}:${s.column} | ${s.mutator} | ${s.change} | ${reason} |`;
      });
      const head = [
        "| location | mutator | change | why it survives |",
        "| --- | --- | --- | --- |",
      ];
      return [`## ${module} (${mine.length})`, "", ...head, ...rows].join("\n");
    })
    .join("\n\n");
}

export const unreviewed = (survivors: readonly Survivor[], reasons: ReadonlyMap<string, string>) =>
  survivors.filter((s) => !reasons.has(keyOf(s.module, s.mutator, s.change))).length;
