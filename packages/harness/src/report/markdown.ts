// The Markdown report: what a person reads next to results.json, and what the README embeds.
// Every qualifier (failed, invalid trials, load-generator bound, ...) is tagged in the row it
// qualifies; its explanation and the trials' notes follow the table as a list, so the table
// stays narrow enough to read.

import { findScenario } from "@bench/contract";
import type { Analysis, Flag, GroupAnalysis, SummaryRow } from "../analysis/analysis.ts";
import { connectionsText, scenarioOfKey, workersText } from "../analysis/groups.ts";
import { QUALITY_SCALE_TEXT } from "../analysis/stats.ts";
import type { Results } from "../results/schema.ts";
import { fmt, pct } from "./format.ts";
import { runHistoryLines } from "./history-report.ts";
import { CHART_CAPTION, mermaidCharts } from "./mermaid.ts";
import { type Section, sections } from "./sections.ts";
import { stealLine } from "./steal-table.ts";
import {
  ciText,
  databaseText,
  designText,
  halfWidthText,
  machinesText,
  meanText,
  p99Text,
  pinningText,
  rankLongText,
  SIGNIFICANCE_NOTE,
  taxText,
  toolsText,
} from "./summary.ts";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** A table; `align` has a letter per column, l (left) or r (right), as in "lrr". */
function table(
  header: readonly string[],
  align: string,
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `| ${[...align].map((a) => (a === "r" ? "--:" : ":--")).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** A flag's short form for a table cell; its full text is in the notes below the table. */
function tagCell(flag: Flag): string {
  if (flag.tag === "FAILED") return "❌ failed";
  if (flag.tag.startsWith("INVALID")) return `⚠️ ${flag.tag.toLowerCase()} excluded`;
  return `⚠️ ${flag.tag.toLowerCase()}`;
}

/** The req/s cell: the number and, right beside it, the tag of everything that qualifies it. */
export function throughputCell(row: SummaryRow): string {
  return [meanText(row), ...row.flags.map(tagCell)].join(" ");
}

/** The per-scenario table, shared by the Markdown and HTML reports. */
export const SCENARIO_HEADER = [
  "rank",
  "app",
  "req/s (mean ± sd)",
  "95% CI",
  "±",
  "CoV",
  "p50 ms",
  "p99 ms (range)",
  "peak RSS MiB",
  "server CPU",
  "load gen CPU",
  "processes",
  "valid samples",
];
const SCENARIO_ALIGN = "lllrrlrrrrrrr";

export function scenarioRow(r: SummaryRow): string[] {
  return [
    rankLongText(r.rank),
    r.app,
    throughputCell(r),
    ciText(r.ci, r.rps.n),
    halfWidthText(r),
    r.quality ? `${fmt(r.rps.cov * 100, 1)}% ${r.quality}` : "—",
    fmt(r.latencyMs.p50, 2),
    p99Text(r),
    fmt(r.peakRssMiB, 1),
    pct(r.serverCpuPercent),
    pct(r.loadCpuPercent),
    String(r.rps.n),
    `${r.validTrials}/${r.trials}`,
  ];
}

/** Each flag's explanation and the trials' own notes, one app after another. */
export function rowNotes(
  rows: readonly SummaryRow[],
): { app: string; text: string; notes: string[] }[] {
  const out: { app: string; text: string; notes: string[] }[] = [];
  for (const r of rows) {
    r.flags.forEach((flag, i) => {
      // The trials' notes explain the flags, so they hang under the row's last flag.
      out.push({
        app: r.app,
        text: flag.text,
        notes: i === r.flags.length - 1 ? [...r.notes] : [],
      });
    });
    if (r.flags.length === 0 && r.notes.length > 0)
      out.push({ app: r.app, text: "notes", notes: [...r.notes] });
  }
  return out;
}

/** Relative throughput, row as % of column; "≈" where the pair is not significantly different. */
export function relativeMatrix(group: GroupAnalysis): {
  header: string[];
  rows: string[][];
} {
  const measured = group.rows.filter((r) => r.rps.n > 0);
  const cellFor = (r: SummaryRow, c: SummaryRow) => {
    const value = pct((r.rps.mean / c.rps.mean) * 100);
    if (r === c) return value;
    return group.between(c.app, r.app).significant ? value : `≈${value}`;
  };
  return {
    header: ["", ...measured.map((r) => r.app)],
    rows: measured.map((r) => [r.app, ...measured.map((c) => cellFor(r, c))]),
  };
}

export function headerLines(results: Results): string[][] {
  const m = results.manifest;
  const runtimes = [
    ...new Set(
      results.apps.flatMap((a) =>
        a.reportedRuntime ? [`${a.reportedRuntime.name} ${a.reportedRuntime.version}`] : [],
      ),
    ),
  ].sort();
  // autocannon is locked as the fallback generator; it is one of the run's packages only when
  // it measured (the Load row names the tool that did).
  const packages = Object.entries(m.versions.lockfile)
    .filter(([name]) => name !== "autocannon" || m.tool.name === "autocannon")
    .map(([name, version]) => `${name} ${version}`)
    .join(", ");
  const s = m.settings;
  const engine = databaseText(results);
  const database = engine === undefined ? [] : [["Database", engine]];
  return [
    ["Date", `${results.startedAt.replace("T", " ").slice(0, 16)} UTC (${results.status})`],
    [m.serverHost ? "Machines" : "Machine", machinesText(results, true)],
    [
      "Load",
      `${toolsText(m)} · ${connectionsText(s)} keep-alive connections · ${designText(results)}, apps interleaved`,
    ],
    ["Server processes", workersText(s)],
    ["Pinning", pinningText(results)],
    ...database,
    ["Runtimes (as the apps reported)", runtimes.join(", ") || "—"],
    ["Packages (bun.lock)", packages],
    ["Commit", `${m.git.commit.slice(0, 12)}${m.git.dirty ? " (uncommitted changes)" : ""}`],
    ["Command", `./benchmark.sh ${s.argv.join(" ")}`.trim()],
  ];
}

/** The group's variance components, one sentence: what the run's design has to beat. */
export function noiseText(group: GroupAnalysis): string | undefined {
  const parts = group.rows.flatMap((r) =>
    r.estimate.components
      ? [
          `${r.app} ${fmt(r.estimate.components.within * 100, 1)}% within a process, ` +
            `${fmt(r.estimate.components.between * 100, 1)}% between processes`,
        ]
      : [],
  );
  if (parts.length === 0) return undefined;
  const round =
    group.roundCov === undefined
      ? ""
      : ` Shared by every app of a round: ${fmt(group.roundCov * 100, 1)}%.`;
  return `Noise (CoV of one sample): ${parts.join("; ")}.${round}`;
}

/** What every report says once, before its tables. */
export const READING_GUIDE = [
  "Only valid samples count. A sample is one short load run; each process (a fresh start of " +
    "the app) takes several after its warm-up, and the processes of different apps are " +
    "interleaved round by round. ±: the 95% CI's half-width as a share of the mean. CoV is the " +
    `spread of the process means, with its quality: ${QUALITY_SCALE_TEXT}.`,
  "Latency: the median over valid samples of each sample's percentile; p99 also shows its lowest–highest over samples.",
  SIGNIFICANCE_NOTE,
  "Load-generator bound: the load generator was saturated and the server was not, so the req/s is a lower bound. " +
    "Generator ceiling: the load generator used 95% or more of what it can, or connections waited on it while the server's core had idle time: a lower bound of the server's capacity, whatever the server's own CPU. " +
    "Unsaturated: neither was saturated, so something else limited the run (not the server's best). " +
    "Contended: the server's core was busy with something other than the server, or CPU steal was high (not the server's best). Machine full: unpinned, the server and the load generator shared the cores and together filled them (neither the server's best nor a load-generator limit). " +
    "Idle connections: far fewer requests were in flight than connections were open (the load generator paced the run).",
];

function scenarioSection(scenario: string, group: GroupAnalysis, level: string): string {
  const { rows } = group;
  const description = findScenario(scenarioOfKey(scenario))?.description ?? "";
  const out = [`${level} ${scenario}${description ? ` — ${description}` : ""}`, ""];
  out.push(table(SCENARIO_HEADER, SCENARIO_ALIGN, rows.map(scenarioRow)));
  const notes = rowNotes(rows);
  if (notes.length > 0) {
    out.push("", "Notes:", "");
    for (const n of notes) {
      out.push(`- ${n.app}: ${n.text}`, ...n.notes.map((note) => `  - ${note}`));
    }
  }
  const matrix = relativeMatrix(group);
  if (matrix.rows.length > 1) {
    out.push(
      "",
      "Relative throughput (the row's req/s as % of the column's; ≈: not significant):",
      "",
    );
    out.push(
      table(
        matrix.header,
        matrix.header.map((_, i) => (i === 0 ? "l" : "r")).join(""),
        matrix.rows,
      ),
    );
  }
  const taxed = rows.filter((r) => r.pctOfBaseline !== undefined);
  if (taxed.length > 0) {
    out.push(
      "",
      "Framework tax (the framework app's req/s as % of its runtime's bare baseline; ≈ tie: not significant, with the smallest difference the run could have detected):",
      "",
    );
    const cells = taxed.map((r) => {
      const t = taxText(r);
      return [r.app, t.ofBare, t.cost, t.p];
    });
    out.push(table(["app", "% of bare", "cost", "p"], "lrlr", cells));
  }
  return out.join("\n");
}

/** A section of sections.ts: its title one level below the report's, its parts below that. */
function sectionLines(section: Section, h: string): string[] {
  const out = ["", `${h}# ${section.title}`, "", section.intro];
  for (const part of section.parts) {
    if (part.heading) out.push("", `${h}## ${part.heading}`);
    const text = `${part.link ? `[${part.link}](${part.link}). ` : ""}${part.text ?? ""}`;
    if (text) out.push("", text);
    for (const t of part.tables) out.push("", table(t.header, t.align, t.rows));
    if (part.after !== undefined) out.push("", part.after);
    if (part.notes && part.notes.length > 0) {
      out.push("", "Notes:", "");
      for (const n of part.notes)
        out.push(`- ${n.app}: ${n.text}`, ...n.notes.map((x) => `  - ${x}`));
    }
    if (part.mermaid) out.push("", part.mermaid);
  }
  return out;
}

/**
 * The whole report. `level` is the heading level of the title (1 for a file of its own, deeper
 * when embedded); scenarios sit one level below.
 */
export function markdownReport(analysis: Analysis, level = 1): string {
  const { results } = analysis;
  const h = "#".repeat(level);
  const out = [`${h} Benchmark results`, ""];
  const history = runHistoryLines(results);
  const rows = [...headerLines(results), ["CPU steal", stealLine(analysis)]];
  if (history.length > 0) rows.push(["History", history.map((l) => l.trim()).join(" ")]);
  out.push(table(["", ""], "ll", rows));
  if (results.status === "interrupted") {
    out.push("", "**Interrupted**: only the trials that finished are included.");
  }
  out.push("", READING_GUIDE.join("\n\n"));
  for (const [scenario, group] of analysis.groups) {
    out.push("", scenarioSection(scenario, group, `${h}#`));
    const noise = noiseText(group);
    if (noise) out.push("", noise);
  }
  const charts = mermaidCharts(analysis);
  if (charts) out.push("", `${h}# Charts`, "", CHART_CAPTION, "", charts);
  for (const section of sections(analysis)) out.push(...sectionLines(section, h));
  return `${out.join("\n")}\n`;
}
