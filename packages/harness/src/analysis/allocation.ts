// How many processes (rounds) a session should measure, from a testbed's history of sessions:
// Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013), for two levels,
// processes (level 1) within sessions (level 2). Each level's variance is estimated from the one
// below it and the repetitions follow from variance and cost:
//   r₁ = ⌈√((c₂/c₁) · T₁²/T₂²)⌉,
// with the unbiased estimators as libkalibera corrected them (softdevteam/libkalibera,
// pykalibera/data.py, Ti2: T₂² = S₂² − S₁²/r₁, not the paper's first T₂² = S₂² − T₁²/r₁).
// Where sessions part far more than their processes (this VM: ~7% against a run's ~1%), the
// answer is few processes per session and more sessions; a session still measures at least
// MIN_CI_PROCESSES, so it keeps an interval of its own.

import { MIN_CI_PROCESSES } from "./estimate.ts";

/** The history a plan needs: at least this many sessions with an interval of their own. */
export const MIN_ALLOCATION_SESSIONS = 3;

/** One earlier session of the series being planned for (the same testbed and settings). */
export interface AllocationSession {
  /** The session's estimate, natural log of its figure. */
  readonly estimate: number;
  /** Its within-session standard error of that log estimate: the sd of its process means / √processes. */
  readonly se: number;
  /** How many processes (rounds) its estimate averages. */
  readonly processes: number;
}

/** What one more repetition at each level costs, in seconds. */
export interface AllocationCosts {
  /**
   * c₂: a session's fixed part, paid once whatever its rounds: bootstrap, install, verifying
   * the apps, the machine's checks, writing the report.
   */
  readonly session: number;
  /** c₁: one more process (one round): its start, warm-up, measured samples and stop. */
  readonly process: number;
}

/** The variance components a plan came from (log scale, so an SD reads as a relative one). */
export interface AllocationComponents {
  /** The sessions the estimators used (two processes or more, a finite se). */
  readonly sessions: number;
  /** T₁² = S₁²: one process's variance around its session's level, pooled over sessions. */
  readonly processVariance: number;
  /** T₂² = S₂² − S₁²·mean(1/processes): the sessions' own variance, beyond their processes'. */
  readonly sessionVariance: number;
  /** √((c₂/c₁) · T₁²/T₂²) before rounding; Infinity when T₂² ≤ 0. */
  readonly optimum: number;
}

/** How many rounds the next session should take, and why. */
export interface Allocation {
  /** Processes (rounds) per session: never fewer than MIN_CI_PROCESSES. */
  readonly rounds: number;
  /** The reason in one sentence, with the numbers: what a plan prints. */
  readonly why: string;
  /** Absent when the history is too short to estimate them. */
  readonly components?: AllocationComponents;
}

/** A variance on the log scale as the relative SD it is (printed only when it is ≥ 0). */
const percent = (variance: number) => `${(Math.sqrt(variance) * 100).toFixed(1)}%`;

/**
 * The estimators for unbalanced sessions. S₁² pools each session's variance of its process
 * means (se²·k, k − 1 degrees of freedom each); S₂² is the variance of the session estimates,
 * whose expectation is T₂² + T₁²·mean(1/k). With every session at r₁ processes these are
 * libkalibera's Si2(1), Si2(2) and Ti2(2) exactly.
 */
export function allocationComponents(
  sessions: readonly AllocationSession[],
  costs: AllocationCosts,
): AllocationComponents | undefined {
  const usable = sessions.filter((s) => s.processes >= 2 && Number.isFinite(s.se));
  const n = usable.length;
  if (n < MIN_ALLOCATION_SESSIONS) return undefined;
  const dof = usable.reduce((a, s) => a + s.processes - 1, 0);
  const processVariance =
    usable.reduce((a, s) => a + (s.processes - 1) * s.processes * s.se ** 2, 0) / dof;
  const mean = usable.reduce((a, s) => a + s.estimate, 0) / n;
  const between = usable.reduce((a, s) => a + (s.estimate - mean) ** 2, 0) / (n - 1);
  const inverse = usable.reduce((a, s) => a + 1 / s.processes, 0) / n;
  const sessionVariance = between - processVariance * inverse;
  const optimum =
    sessionVariance > 0
      ? Math.sqrt(((costs.session / costs.process) * processVariance) / sessionVariance)
      : Number.POSITIVE_INFINITY;
  return { sessions: n, processVariance, sessionVariance, optimum };
}

/**
 * Kalibera & Jones's processes per session for the next session of a series, from its earlier
 * sessions and what each level costs. `fallback` (the run's default rounds) is the answer when
 * the history cannot give one: fewer than MIN_ALLOCATION_SESSIONS usable sessions, or sessions
 * that part no more than their own processes explain (then more processes always pay, without
 * a bound the history can set).
 */
export function allocateRounds(
  sessions: readonly AllocationSession[],
  costs: AllocationCosts,
  fallback: number,
): Allocation {
  if (!(costs.process > 0 && costs.session >= 0 && Number.isFinite(costs.session))) {
    throw new RangeError(
      "allocateRounds: a process must cost more than 0 s, a session 0 s or more",
    );
  }
  const floor = Math.max(MIN_CI_PROCESSES, fallback);
  const components = allocationComponents(sessions, costs);
  if (components === undefined) {
    return {
      rounds: floor,
      why: `fewer than ${MIN_ALLOCATION_SESSIONS} earlier sessions with an interval of their own: the default, ${floor} rounds`,
    };
  }
  const { processVariance: t1, sessionVariance: t2, optimum } = components;
  const over = `${components.sessions} sessions`;
  if (!Number.isFinite(optimum)) {
    return {
      rounds: floor,
      why: `over ${over} the sessions part no more than their processes explain (processes ${percent(t1)}): more rounds would always pay, so the default, ${floor} rounds`,
      components,
    };
  }
  const exact = Math.ceil(optimum);
  const rounds = Math.max(MIN_CI_PROCESSES, exact);
  const raised =
    rounds > exact ? `, raised to ${rounds}: a session needs its own interval` : " rounds";
  return {
    rounds,
    why: `over ${over}: processes vary ${percent(t1)}, sessions ${percent(t2)} beyond them; a session's fixed part costs ${costs.session} s, a round ${costs.process} s: ⌈√(${costs.session}/${costs.process} · ${percent(t1)}² / ${percent(t2)}²)⌉ = ${exact}${raised}`,
    components,
  };
}
