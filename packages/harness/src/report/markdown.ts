// The Markdown report: what a person reads next to results.json, and what the README embeds.
// Every qualifier (failed, invalid trials, load-generator bound) stands in the row it qualifies.

import { findScenario } from "@bench/contract";
import type { Results } from "../schema.ts";
import { pinningText, type SummaryRow, summarize } from "../summary.ts";
import { fmt, pct } from "./format.ts";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function table(header: readonly string[], align: readonly ("l" | "r")[], rows: string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `| ${align.map((a) => (a === "r" ? "--:" : ":--")).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** The req/s cell: the number and, right beside it, everything that qualifies it. */
export function throughputCell(row: SummaryRow): string {
  const notes: string[] = [];
  if (row.status === "failed") notes.push(`❌ failed: ${(row.failure ?? "").split("\n")[0]}`);
  for (const flag of row.flags) {
    if (flag.startsWith("FAILED")) continue;
    if (flag.startsWith("LOAD-GENERATOR BOUND")) notes.push(`⚠️ ${flag.toLowerCase()}`);
    else if (flag.startsWith("INVALID"))
      notes.push(`⚠️ ${flag.replace("INVALID", "invalid trials excluded:")}`);
    else notes.push(`⚠️ ${flag}`);
  }
  const number = row.rps.n > 0 ? `${fmt(row.rps.mean)} ± ${fmt(row.rps.stddev)}` : "—";
  return [number, ...notes].join(" ");
}

/** The per-scenario table, shared by the Markdown and HTML reports. */
export const SCENARIO_HEADER = [
  "app",
  "req/s (mean ± sd)",
  "CoV",
  "p50 ms",
  "p99 ms",
  "peak RSS MiB",
  "server CPU",
  "load gen CPU",
  "valid trials",
];

export function scenarioRow(r: SummaryRow): string[] {
  return [
    r.app,
    throughputCell(r),
    r.verdict ? `${fmt(r.rps.cov * 100, 1)}% ${r.verdict}` : "—",
    fmt(r.latencyMs.p50, 2),
    fmt(r.latencyMs.p99, 2),
    fmt(r.peakRssMiB, 1),
    pct(r.serverCpuPercent),
    pct(r.loadCpuPercent),
    `${r.validTrials}/${r.trials}`,
  ];
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
  const packages = Object.entries(m.versions.lockfile)
    .map(([name, version]) => `${name} ${version}`)
    .join(", ");
  const s = m.settings;
  return [
    ["Date", `${results.startedAt.replace("T", " ").slice(0, 16)} UTC (${results.status})`],
    [
      "Machine",
      `${m.machine.cpuModel}, ${m.machine.cores} cores, ${m.machine.memoryGiB} GiB · ${m.machine.os} · ${m.machine.kernel}`,
    ],
    [
      "Load",
      `${m.tool.name} ${m.tool.version} · ${s.connections} keep-alive connections · ${s.trials} × ${s.durationSec} s trials after ${s.warmupSec} s warm-up, apps interleaved`,
    ],
    ["Pinning", pinningText(results)],
    ["Runtimes (as the apps reported)", runtimes.join(", ") || "—"],
    ["Packages (bun.lock)", packages],
    ["Commit", `${m.git.commit.slice(0, 12)}${m.git.dirty ? " (uncommitted changes)" : ""}`],
    ["Command", `./benchmark.sh ${s.argv.join(" ")}`.trim()],
  ];
}

function scenarioSection(scenario: string, rows: SummaryRow[], level: string): string {
  const description = findScenario(scenario)?.description ?? "";
  const out = [`${level} ${scenario}${description ? ` — ${description}` : ""}`, ""];
  out.push(
    table(SCENARIO_HEADER, ["l", "l", "l", "r", "r", "r", "r", "r", "r"], rows.map(scenarioRow)),
  );
  const measured = rows.filter((r) => r.rps.n > 0);
  if (measured.length > 1) {
    out.push("", "Relative throughput (the row's req/s as % of the column's):", "");
    out.push(
      table(
        ["", ...measured.map((r) => r.app)],
        ["l", ...measured.map(() => "r" as const)],
        measured.map((r) => [r.app, ...measured.map((c) => pct((r.rps.mean / c.rps.mean) * 100))]),
      ),
    );
  }
  const taxed = rows.filter((r) => r.pctOfBaseline !== undefined);
  if (taxed.length > 0) {
    out.push(
      "",
      "Framework tax (the framework app's req/s as % of its runtime's bare baseline):",
      "",
    );
    out.push(
      table(
        ["app", "% of bare", "cost"],
        ["l", "r", "r"],
        taxed.map((r) => [r.app, pct(r.pctOfBaseline), pct(100 - (r.pctOfBaseline ?? 100))]),
      ),
    );
  }
  return out.join("\n");
}

/**
 * The whole report. `level` is the heading level of the title (1 for a file of its own, deeper
 * when embedded); scenarios sit one level below.
 */
export function markdownReport(results: Results, level = 1): string {
  const h = "#".repeat(level);
  const out = [`${h} Benchmark results`, ""];
  out.push(table(["", ""], ["l", "l"], headerLines(results)));
  if (results.status === "interrupted") {
    out.push("", "**Interrupted**: only the trials that finished are included.");
  }
  out.push(
    "",
    "Only valid trials count. CoV verdict: < 3% excellent, 3–5% acceptable, 5–10% noisy, > 10% unreliable. " +
      "Load-generator bound: the load generator was saturated and the server was not, so the req/s is a lower bound.",
  );
  for (const [scenario, rows] of summarize(results)) {
    out.push("", scenarioSection(scenario, rows, `${h}#`));
  }
  return `${out.join("\n")}\n`;
}
