// docs/results-json.md's field reference, generated from results/: every field of a
// results.json with its type and the comment the schema gives it, so the page cannot drift from
// the schema (docs.test.ts compares them). `bun packages/harness/src/report/schema-page.ts`
// rewrites the page's generated block.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ResultsSchema } from "../results/schema.ts";

/** The schema's modules, whose comments the page quotes. */
const SCHEMA_SOURCES = ["schema.ts", "trial-schema.ts", "manifest-schema.ts"].map((name) =>
  join(import.meta.dir, "..", "results", name),
);
export const PAGE = join(import.meta.dir, "..", "..", "..", "..", "docs", "results-json.md");
const BEGIN = "<!-- fields: generated from packages/harness/src/results/; do not edit -->";
const END = "<!-- fields: end -->";

type Schema = {
  type?: string;
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  anyOf?: Schema[];
  patternProperties?: Record<string, Schema>;
  minimum?: number;
  exclusiveMinimum?: number;
};

/**
 * The comments of the schema's object literals, by the literal's keys in order ("a,b,c"): the
 * schema objects TypeBox builds keep their keys, not the comments.
 */
export function schemaComments(
  source = SCHEMA_SOURCES.map((path) => readFileSync(path, "utf8")).join("\n"),
) {
  const file = ts.createSourceFile("schema.ts", source, ts.ScriptTarget.Latest, true);
  const out = new Map<string, Map<string, string>>();
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const comments = new Map<string, string>();
      const keys: string[] = [];
      for (const p of node.properties) {
        const name = p.name && ts.isIdentifier(p.name) ? p.name.text : undefined;
        if (name === undefined) continue;
        keys.push(name);
        const doc = ts.getJSDocCommentsAndTags(p).map((d) => ts.getTextOfJSDocComment(d.comment));
        const text = doc.filter(Boolean).join(" ").replace(/\s+/g, " ").trim();
        if (text) comments.set(name, text);
      }
      out.set(keys.join(","), comments);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** A schema's type in a few words: "integer ≥ 1", "string", `"ok" | "failed"`, "object". */
function typeOf(s: Schema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(" | ");
  if (Array.isArray(s.items)) return `[${s.items.map(typeOf).join(", ")}]`;
  if (s.type === "array") return `array of ${s.items ? typeOf(s.items) : "anything"}`;
  if (s.patternProperties) return "object (by name)";
  const bound =
    s.minimum !== undefined
      ? ` ≥ ${s.minimum}`
      : s.exclusiveMinimum !== undefined
        ? ` > ${s.exclusiveMinimum}`
        : "";
  return `${s.type ?? "any"}${bound}`;
}

/** Every field below `schema`, depth first: [path, type, comment]. */
export function fieldRows(
  schema: Schema = ResultsSchema as Schema,
  comments = schemaComments(),
  path = "",
): string[][] {
  const rows: string[][] = [];
  const props = schema.properties ?? {};
  const notes = comments.get(Object.keys(props).join(",")) ?? new Map<string, string>();
  for (const [key, sub] of Object.entries(props)) {
    const at = path ? `${path}.${key}` : key;
    const optional = schema.required?.includes(key) ? "" : " (optional)";
    rows.push([at, `${typeOf(sub)}${optional}`, notes.get(key) ?? ""]);
    for (const [inner, suffix] of nested(sub))
      rows.push(...fieldRows(inner, comments, at + suffix));
  }
  return rows;
}

/** The objects a field holds, with what its path gains on the way: "", "[]" or ".<name>". */
function nested(s: Schema): [Schema, string][] {
  if (s.properties) return [[s, ""]];
  if (s.type === "array" && s.items && !Array.isArray(s.items))
    return nested(s.items).map(([o, p]) => [o, `[]${p}`]);
  if (s.anyOf) return s.anyOf.flatMap(nested);
  const named = Object.values(s.patternProperties ?? {})[0];
  return named ? nested(named).map(([o, p]) => [o, `.<name>${p}`]) : [];
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The generated block: a table of every field, between its markers. */
export function fieldsBlock(): string {
  const rows = fieldRows().map(
    ([path, type, note]) => `| \`${path}\` | ${cell(type as string)} | ${cell(note as string)} |`,
  );
  return [BEGIN, "", "| field | type | what it is |", "| --- | --- | --- |", ...rows, "", END].join(
    "\n",
  );
}

/** The page with its generated block replaced (or appended, the first time). */
export function withFields(page: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) return `${page.trimEnd()}\n\n## Every field\n\n${fieldsBlock()}\n`;
  return page.slice(0, start) + fieldsBlock() + page.slice(end + END.length);
}

if (import.meta.main) {
  writeFileSync(PAGE, withFields(readFileSync(PAGE, "utf8")));
  console.log(`${PAGE}: field reference regenerated from the schema`);
}
