// The plan of a run: which CPUs the server and the load generator get, and the order in
// which apps take their turns. Pure, so the order and the pinning are tested without a run.

import type { AppSpec } from "@bench/contract";

export interface Pinning {
  readonly enabled: boolean;
  readonly serverCpus?: string;
  readonly loadCpus?: string;
  readonly note?: string;
  /** Cores the server may use: its CPU set, or the machine. */
  readonly serverCores: number;
  /** Cores the load generator may use: its CPU set, or the machine (shared with the server). */
  readonly loadCores: number;
  /** Server and load generator on two machines (--server-host): they share no core. */
  readonly separate?: boolean;
}

/**
 * The server's processes on the first CPUs (CPU 0 for one, 0..N-1 for N workers), the load
 * generator on the rest, when taskset exists and at least one CPU is left for the generator;
 * otherwise everything shares the machine, and the note says why.
 */
export function pinningPlan(
  pin: boolean,
  cores: number,
  hasTaskset: boolean,
  workers = 1,
): Pinning {
  const shared = (note: string): Pinning => ({
    enabled: false,
    note,
    serverCores: cores,
    loadCores: cores,
  });
  if (!pin) return shared("--no-pin");
  if (cores < 2) return { enabled: false, note: "1 core", serverCores: 1, loadCores: 1 };
  if (!hasTaskset) return shared("taskset not installed (util-linux)");
  if (workers >= cores) {
    return shared(
      `${workers} workers on ${cores} cores leave the load generator no CPU of its own`,
    );
  }
  const range = (from: number, to: number) => (from === to ? `${from}` : `${from}-${to}`);
  return {
    enabled: true,
    serverCpus: range(0, workers - 1),
    loadCpus: range(workers, cores - 1),
    serverCores: workers,
    loadCores: cores - workers,
  };
}

/**
 * A run across two hosts: the server on the first CPUs of its own machine (CPU 0 for one, 0..N-1
 * for N workers) when taskset exists there and it has as many, the load generator on every core
 * of this one; they share none, whatever the server's plan.
 */
export function remotePlan(
  pin: boolean,
  serverMachineCores: number,
  hasTaskset: boolean,
  workers: number,
  loadMachineCores: number,
): Pinning {
  const unpinned = (note: string): Pinning => ({
    enabled: false,
    note,
    serverCores: serverMachineCores,
    loadCores: loadMachineCores,
    separate: true,
  });
  if (!pin) return unpinned("--no-pin");
  if (!hasTaskset) return unpinned("taskset not installed on the server host (util-linux)");
  if (workers > serverMachineCores) {
    return unpinned(`${workers} workers on the server host's ${serverMachineCores} cores`);
  }
  return {
    enabled: true,
    serverCpus: workers === 1 ? "0" : `0-${workers - 1}`,
    serverCores: workers,
    loadCores: loadMachineCores,
    separate: true,
  };
}

/**
 * The plan for a server of `workers` processes in a run planned for up to `pinning`'s count:
 * the first `workers` CPUs, while the load generator keeps its CPUs, so that every worker count
 * of a run (--workers 1,2,4) is measured against the same generator.
 */
export function serverPinning(pinning: Pinning, workers: number): Pinning {
  if (!pinning.enabled) return pinning;
  return { ...pinning, serverCpus: workers === 1 ? "0" : `0-${workers - 1}`, serverCores: workers };
}

/** "0", "1-15", "0,2-3" → the CPU numbers. */
export function cpuList(spec: string | undefined): number[] {
  if (!spec) return [];
  return spec.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number) as [number, number | undefined];
    const last = to ?? from;
    return Array.from({ length: last - from + 1 }, (_, i) => from + i);
  });
}

/**
 * The apps in the order each round runs them: A B C D, then D C B A, ... so drift of a shared
 * machine (and whatever each app leaves behind in caches) hits every app alike.
 */
export function roundOrder<T extends Pick<AppSpec, "name">>(
  apps: readonly T[],
  round: number,
): T[] {
  return round % 2 === 1 ? [...apps] : [...apps].reverse();
}
