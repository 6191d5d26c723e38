// From results.json to the table a person reads: per scenario, apps sorted by mean req/s, with
// the spread, the comparison to the fastest and to the runtime's bare baseline, and every flag.

import { baselineOf, findApp } from "@bench/contract";
import { fmt } from "./report/format.ts";
import type { Results, Trial } from "./schema.ts";
import { type Spread, spread, type Verdict, verdict } from "./stats.ts";

export interface SummaryRow {
  readonly app: string;
  readonly scenario: string;
  /** failed: never measured (or stopped being measured); see `failure`. */
  readonly status: "ok" | "failed";
  readonly failure?: string;
  readonly validTrials: number;
  /** Valid trials in which the load generator, not the server, was the limit. */
  readonly boundTrials: number;
  readonly trials: number;
  readonly rps: Spread;
  readonly verdict?: Verdict;
  /** Means over the valid trials of each trial's percentile. */
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly p999: number;
  };
  readonly peakRssMiB: number;
  readonly serverCpuPercent: number;
  readonly loadCpuPercent: number;
  /** mean req/s as a percentage of the fastest app in this scenario */
  readonly pctOfFastest?: number;
  /** mean req/s as a percentage of the same runtime's bare app (framework apps only) */
  readonly pctOfBaseline?: number;
  /** Everything that qualifies these numbers: invalid trials, load-generator bound, ... */
  readonly flags: readonly string[];
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

function rowFor(
  results: Results,
  app: string,
  scenario: string,
): Omit<SummaryRow, "pctOfFastest" | "pctOfBaseline"> {
  const record = results.apps.find((a) => a.name === app);
  const trials = results.trials.filter((t) => t.app === app && t.scenario === scenario);
  const valid = trials.filter(
    (t): t is Trial & { result: NonNullable<Trial["result"]> } =>
      t.checks.valid && t.result !== null,
  );
  const flags: string[] = [];
  const invalid = trials.length - valid.length;
  if (invalid > 0) {
    const reasons = [...new Set(trials.flatMap((t) => t.checks.invalidReasons))];
    flags.push(`INVALID ${invalid}/${trials.length} (${reasons.join("; ")})`);
  }
  const bound = valid.filter((t) => t.checks.loadGeneratorBound).length;
  if (bound > 0) flags.push(`LOAD-GENERATOR BOUND ${bound}/${valid.length}: a lower bound`);
  const little = valid.filter((t) => !t.checks.littlesLaw.ok).length;
  if (little > 0) flags.push(`LITTLE'S LAW ${little}/${valid.length}`);
  const rps = spread(valid.map((t) => t.result.rps));
  const failed = record?.status === "failed";
  // The first line says what happened; results.json keeps the app's whole output.
  if (failed) flags.unshift(`FAILED: ${(record?.failure ?? "unknown").split("\n")[0]}`);
  if (rps.n === 1) flags.push("1 valid trial: no spread");
  if (!failed && rps.n === 0 && trials.length === 0) flags.push("not measured");
  return {
    app,
    scenario,
    status: failed ? "failed" : "ok",
    ...(failed && record?.failure ? { failure: record.failure } : {}),
    validTrials: valid.length,
    boundTrials: bound,
    trials: trials.length,
    rps,
    ...(rps.n > 1 ? { verdict: verdict(rps.cov) } : {}),
    latencyMs: {
      p50: mean(valid.map((t) => t.result.latencyMs.p50)),
      p90: mean(valid.map((t) => t.result.latencyMs.p90)),
      p99: mean(valid.map((t) => t.result.latencyMs.p99)),
      p999: mean(valid.map((t) => t.result.latencyMs.p999)),
    },
    peakRssMiB: valid.length > 0 ? Math.max(...valid.map((t) => t.server.peakRssMiB)) : Number.NaN,
    serverCpuPercent: mean(valid.map((t) => t.server.cpuPercent)),
    loadCpuPercent: mean(valid.map((t) => t.loadGenerator.cpuPercent)),
    flags,
  };
}

/** Rows per scenario, fastest first; apps with no valid trial last. */
export function summarize(results: Results): Map<string, SummaryRow[]> {
  const byScenario = new Map<string, SummaryRow[]>();
  for (const scenario of results.manifest.settings.scenarios) {
    const rows = results.manifest.settings.apps.map((app) => rowFor(results, app, scenario));
    const measured = rows.filter((r) => r.rps.n > 0);
    const fastest = Math.max(0, ...measured.map((r) => r.rps.mean));
    const meanOf = (name: string) => rows.find((r) => r.app === name && r.rps.n > 0)?.rps.mean;
    const complete: SummaryRow[] = rows.map((row) => {
      if (row.rps.n === 0) return row;
      const spec = findApp(row.app);
      const baseline =
        spec && spec.framework !== "bare" ? meanOf(baselineOf(spec).name) : undefined;
      return {
        ...row,
        pctOfFastest: (row.rps.mean / fastest) * 100,
        ...(baseline ? { pctOfBaseline: (row.rps.mean / baseline) * 100 } : {}),
      };
    });
    complete.sort((a, b) => (b.rps.n > 0 ? b.rps.mean : -1) - (a.rps.n > 0 ? a.rps.mean : -1));
    byScenario.set(scenario, complete);
  }
  return byScenario;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function pinningText(results: Results): string {
  const p = results.manifest.pinning;
  return p.enabled
    ? `server on CPU ${p.serverCpus}, load generator on CPU ${p.loadCpus}`
    : `not pinned${p.note ? ` (${p.note})` : ""}`;
}

/** The terminal summary: one table per scenario, then every flag next to its app. */
export function formatSummary(results: Results): string {
  const m = results.manifest;
  const out: string[] = [];
  const pin = pinningText(results);
  out.push(
    `${m.tool.name} ${m.tool.version} · ${m.settings.connections} connections · ` +
      `${m.settings.durationSec} s trials × ${m.settings.trials} (+${m.settings.warmupSec} s warm-up) · ${pin}`,
    `${m.machine.cpuModel}, ${m.machine.cores} cores · ${m.machine.os} · commit ${m.git.commit.slice(0, 12)}${m.git.dirty ? " (dirty)" : ""}`,
  );
  if (results.status === "interrupted")
    out.push("INTERRUPTED: only the trials that finished are shown");
  for (const [scenario, rows] of summarize(results)) {
    out.push("", `== ${scenario}`);
    const body = rows.map((r) => [
      r.app,
      r.rps.n > 0 ? `${fmt(r.rps.mean)} ± ${fmt(r.rps.stddev)}` : "—",
      r.verdict ? `${fmt(r.rps.cov * 100, 1)}% ${r.verdict}` : "—",
      fmt(r.latencyMs.p99, 2),
      fmt(r.peakRssMiB, 1),
      fmt(r.serverCpuPercent),
      fmt(r.loadCpuPercent),
      r.pctOfFastest === undefined ? "—" : `${fmt(r.pctOfFastest)}%`,
      r.pctOfBaseline === undefined ? "—" : `${fmt(r.pctOfBaseline)}%`,
      `${r.validTrials}/${r.trials}`,
    ]);
    out.push(
      table(
        [
          "app",
          "req/s (mean ± sd)",
          "CoV",
          "p99 ms",
          "RSS MiB",
          "srv CPU%",
          "gen CPU%",
          "of fastest",
          "of bare",
          "valid",
        ],
        body,
      ),
    );
    for (const r of rows) for (const flag of r.flags) out.push(`  ${r.app}: ${flag}`);
  }
  return out.join("\n");
}
