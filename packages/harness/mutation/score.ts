// The mutation score of each module, from StrykerJS's JSON reports (mutation-testing-report-schema),
// the bar every module must reach, and the survivors page (docs/mutation-survivors.md), whose
// reasons are carried from one run to the next.

export interface Mutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: {
    start: { line: number; column: number };
    end: { line: number; column: number };
  };
}

export interface StrykerReport {
  readonly files: Record<string, { source: string; mutants: readonly Mutant[] }>;
}

export interface ModuleScore {
  /** The path from the repository root, e.g. packages/harness/src/load/judge.ts. */
  readonly module: string;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  /** Mutants Stryker could not judge (compile or runtime errors) or was told to skip. */
  readonly excluded: number;
  /** Detected over valid mutants, in percent; undefined when the module has none. */
  readonly score: number | undefined;
}

/** Stryker's own definition: killed and timed-out mutants over all that ran or lacked coverage. */
export function moduleScore(module: string, mutants: readonly Mutant[]): ModuleScore {
  const count = (status: string) => mutants.filter((m) => m.status === status).length;
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  return {
    module,
    killed,
    timeout,
    survived,
    noCoverage,
    excluded: mutants.length - valid,
    score: valid === 0 ? undefined : (100 * (killed + timeout)) / valid,
  };
}

export function scoresOf(report: StrykerReport, packageDir: string): ModuleScore[] {
  return Object.entries(report.files)
    .map(([file, f]) => moduleScore(`${packageDir}/${file}`, f.mutants))
    .sort((a, b) => a.module.localeCompare(b.module));
}

export function overall(scores: readonly ModuleScore[]): ModuleScore {
  const sum = (key: "killed" | "timeout" | "survived" | "noCoverage" | "excluded") =>
    scores.reduce((total, s) => total + s[key], 0);
  const valid = sum("killed") + sum("timeout") + sum("survived") + sum("noCoverage");
  return {
    module: "all modules",
    killed: sum("killed"),
    timeout: sum("timeout"),
    survived: sum("survived"),
    noCoverage: sum("noCoverage"),
    excluded: sum("excluded"),
    score: valid === 0 ? undefined : (100 * (sum("killed") + sum("timeout"))) / valid,
  };
}

/** A module without valid mutants is not below the bar. */
const under = (s: ModuleScore, bar: number) => (s.score ?? bar) < bar;

export const belowBar = (scores: readonly ModuleScore[], bar: number): ModuleScore[] =>
  scores.filter((s) => under(s, bar));

export function scoreTable(scores: readonly ModuleScore[], bar: number): string {
  const rows = [...scores, overall(scores)].map((s) => {
    const score = s.score === undefined ? "–" : `${s.score.toFixed(1)}%`;
    const mark = under(s, bar) ? "  below the bar" : "";
    const counts = `${s.killed} killed, ${s.timeout} timed out, ${s.survived + s.noCoverage} survived`;
    return `${s.module.padEnd(48)} ${score.padStart(6)}  (${counts})${mark}`;
  });
  return rows.join("\n");
}
