// Mutation testing re-runs only what changed: each group's scores are recorded in the repository
// (mutation/recorded.json) with a fingerprint of everything its verdicts can depend on: the
// group itself, its modules and tests, and every file they import, transitively (relative
// imports and the workspace's @bench/... packages), and the Stryker and Bun versions. A group
// whose fingerprint is the recorded one is not run again: its recorded scores stand. Any change
// in that closure re-runs it; `mutation.sh --all` runs every group, `--record` writes what a run
// scored back into the file (to be committed).

import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { MutationGroup } from "./groups.ts";
import type { ModuleScore } from "./score.ts";

export interface RecordedGroup {
  readonly fingerprint: string;
  /** When it was scored (ISO), and by which commit when known. */
  readonly scoredAt: string;
  readonly scores: readonly ModuleScore[];
}

export type Recorded = Readonly<Record<string, RecordedGroup>>;

/** Import specifiers of a TypeScript source: static, dynamic and re-exports. */
export function specifiers(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    found.add(m[1] as string);
  }
  return [...found];
}

/**
 * The file a specifier names, or undefined for one outside the repository (a package from
 * node_modules, a runtime's built-in): relative paths, and the workspace's @bench/NAME[/sub]
 * through its package.json's exports.
 */
export function resolveImport(from: string, spec: string, root: string): string | undefined {
  if (spec.startsWith(".")) {
    const path = resolve(dirname(from), spec);
    return existsSync(path) ? path : undefined;
  }
  const m = /^@bench\/([^/]+)(\/.*)?$/.exec(spec);
  if (!m) return undefined;
  const dir = join(root, "packages", m[1] as string);
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return undefined;
  const exports = (
    JSON.parse(readFileSync(manifest, "utf8")) as { exports?: Record<string, string> }
  ).exports;
  const target = exports?.[`.${m[2] ?? ""}`];
  return target ? resolve(dir, target) : undefined;
}

/** Every repository file `files` import, transitively, themselves included; sorted. */
export function closure(files: readonly string[], root: string): string[] {
  const seen = new Set<string>();
  const queue = [...files];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      const next = resolveImport(file, spec, root);
      if (next && !seen.has(next)) queue.push(next);
    }
  }
  return [...seen].sort();
}

/** The fingerprint of a group: its definition, its closure's paths and contents, the tools. */
export function fingerprint(group: MutationGroup, root: string, tools: string): string {
  const dir = join(root, "packages", group.package);
  const files = closure(
    [...group.mutate, ...group.tests].map((f) => join(dir, f)),
    root,
  );
  const hash = createHash("sha256").update(JSON.stringify(group)).update(tools);
  for (const file of files) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

export function readRecorded(path: string): Recorded {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Recorded) : {};
}

/** The recorded file with these groups' new scores (the others kept), groups in name order. */
export function withScores(
  recorded: Recorded,
  fresh: Readonly<Record<string, RecordedGroup>>,
): Recorded {
  const all = { ...recorded, ...fresh };
  return Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((k) => [k, all[k] as RecordedGroup]),
  );
}

export function writeRecorded(path: string, recorded: Recorded): void {
  writeFileSync(path, `${JSON.stringify(recorded, null, 2)}\n`);
}

/** Which groups must run: all with --all, else those whose fingerprint is not the recorded one. */
export function toRun(
  groups: readonly MutationGroup[],
  recorded: Recorded,
  fingerprintOf: (g: MutationGroup) => string,
  all: boolean,
): { run: MutationGroup[]; reused: MutationGroup[] } {
  if (all) return { run: [...groups], reused: [] };
  const fresh = (g: MutationGroup) => recorded[g.name]?.fingerprint === fingerprintOf(g);
  return { run: groups.filter((g) => !fresh(g)), reused: groups.filter(fresh) };
}
