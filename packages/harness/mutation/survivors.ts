// The survivors page (docs/mutation-survivors.md): every mutant no test noticed, with why. The
// reasons are written by hand in the page itself; a new run regenerates the tables and carries
// each reason over to the survivor with the same module, mutator and change, wherever it moved
// (where several share them, see reasonsOf).

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

/** One row of an earlier page: where its survivor was, and why (none if not yet reviewed). */
export interface Reviewed {
  readonly at: string;
  readonly reason?: string;
}

/** An earlier page's rows by module, mutator and change, in page order. */
export type Reasons = ReadonlyMap<string, readonly Reviewed[]>;

export function reasonsFrom(page: string): Map<string, Reviewed[]> {
  const reasons = new Map<string, Reviewed[]>();
  let module = "";
  for (const line of page.split("\n")) {
    const heading = /^## (\S+) \(\d+\)$/.exec(line);
    if (heading) module = heading[1] as string;
    // | 12:3 | Mutator | `a` → `b` | why |   (a cell may contain escaped pipes)
    const row = /^\| (\d+:\d+) \| (\w+) \| (.+) \| ((?:[^|\\]|\\.)+) \|$/.exec(line);
    if (!module || !row) continue;
    const [, at, mutator, change, reason] = row as unknown as string[];
    const key = keyOf(module, mutator as string, change as string);
    const reviewed = reason === UNREVIEWED ? {} : { reason: reason as string };
    reasons.set(key, [...(reasons.get(key) ?? []), { at: at as string, ...reviewed }]);
  }
  return reasons;
}

/**
 * Each survivor's reason, carried from the row of its kind (module, mutator, change) it is:
 * as many of the kind as before, the one of the same rank (code above them moved); otherwise
 * the one at the same place; otherwise the kind's reason if it has only one.
 */
function reasonsOf(survivors: readonly Survivor[], reasons: Reasons): (string | undefined)[] {
  const keys = survivors.map((s) => keyOf(s.module, s.mutator, s.change));
  const count = (key: string) => keys.filter((k) => k === key).length;
  return survivors.map((s, i) => {
    const key = keys[i] as string;
    const before = reasons.get(key) ?? [];
    if (before.length === count(key))
      return before[keys.slice(0, i).filter((k) => k === key).length]?.reason;
    const here = before.find((r) => r.at === `${s.line}:${s.column}`);
    if (here) return here.reason;
    const kinds = new Set(before.map((r) => r.reason));
    return kinds.size === 1 ? before[0]?.reason : undefined;
  });
}

/** The tables of the page: one section per module, each survivor with its carried reason. */
export function survivorTables(survivors: readonly Survivor[], reasons: Reasons): string {
  const modules = [...new Set(survivors.map((s) => s.module))];
  return modules
    .map((module) => {
      const mine = survivors.filter((s) => s.module === module);
      const why = reasonsOf(mine, reasons);
      const rows = mine.map(
        (s, i) =>
          `| ${s.line}:${s.column} | ${s.mutator} | ${s.change} | ${why[i] ?? UNREVIEWED} |`,
      );
      const head = [
        "| location | mutator | change | why it survives |",
        "| --- | --- | --- | --- |",
      ];
      return [`## ${module} (${mine.length})`, "", ...head, ...rows].join("\n");
    })
    .join("\n\n");
}

export const unreviewed = (survivors: readonly Survivor[], reasons: Reasons) =>
  reasonsOf(survivors, reasons).filter((r) => r === undefined).length;
