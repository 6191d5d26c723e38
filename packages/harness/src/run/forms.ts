// The form of each value on a run's command line: whole numbers, lists of counts, rates,
// percentages, durations, names from the contract's lists. Each refusal is a UsageError that
// names the flag and quotes what was given; the rules between flags are options.ts's.

import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { STEAL_OFF } from "../analysis/steal.ts";
import { DEFAULT_SLO_P99_MS, parseRates, RateError, type RateSpec } from "../rates/rates.ts";
import type { Values } from "./command.ts";
import { DEFAULT_MAX_TIME_SEC, UsageError } from "./flags.ts";
import type { Options } from "./options.ts";

/** A whole number of at least `min`, as typed (leading zeros allowed), or a UsageError. */
export function whole(value: string, flag: string, min: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} must be a whole number >= ${min}, got '${value}'`);
  }
  return Number(value);
}

/** The run's sizes: seconds, connections, rounds, samples, starts and server processes. */
export function countsOf(values: Values) {
  const durationSec = whole(values.duration, "--duration", 1);
  const warmupSec = whole(values.warmup, "--warmup", 0);
  const connectionCounts = connectionCountsOf(values.connections);
  const rounds = whole(values.rounds, "--rounds", 1);
  const samples = whole(values.samples, "--samples", 1);
  const startups = whole(values.startup, "--startup", 0);
  const workerCounts = workerCountsOf(values, connectionCounts.length > 1);
  return {
    durationSec,
    warmupSec,
    connections: Math.max(...connectionCounts),
    connectionCounts,
    rounds,
    samples,
    startups,
    workers: Math.max(...workerCounts),
    workerCounts,
  };
}

/** --connections: one count or a list, each at least 1, none twice. */
function connectionCountsOf(list: string): number[] {
  if (list === "" || list.startsWith(",") || list.endsWith(",")) {
    throw new UsageError(
      `--connections must be a count or a comma-separated list of counts, got '${list}'`,
    );
  }
  const counts = list.split(",").map((c) => whole(c, "--connections", 1));
  if (new Set(counts).size !== counts.length) {
    throw new UsageError(`--connections lists a count twice, got '${list}'`);
  }
  return counts;
}

/** More server processes than this per CPU only measure the scheduler. */
export const MAX_WORKERS_PER_CPU = 4;

/** --workers N or a list (1,2,4), or auto: one per CPU but one, which the generator keeps. */
export function workersOf(value: string, cores = availableParallelism()): number[] {
  if (value === "auto") return [Math.max(1, cores - 1)];
  if (!/^\d{1,4}(,\d{1,4})*$/.test(value) || value.split(",").some((n) => Number(n) === 0)) {
    throw new UsageError(
      `--workers must be a whole number >= 1, a comma-separated list of them, or auto, got '${value}'`,
    );
  }
  const counts = value.split(",").map(Number);
  if (new Set(counts).size !== counts.length) {
    throw new UsageError(`--workers lists a count twice, got '${value}'`);
  }
  const most = Math.max(...counts);
  if (most > MAX_WORKERS_PER_CPU * cores) {
    throw new UsageError(
      `--workers ${most} is more than ${MAX_WORKERS_PER_CPU} per CPU (${MAX_WORKERS_PER_CPU * cores} on this machine's ${cores}): they would only measure the scheduler`,
    );
  }
  return counts;
}

/** --workers: a count or a list, not beside a list of --connections; --profile takes one. */
function workerCountsOf(values: Values, connectionList: boolean): number[] {
  const counts = workersOf(values.workers);
  if (counts.length > 1 && connectionList) {
    throw new UsageError("--connections and --workers take a list one at a time, not both");
  }
  if (values.profile && values.workers !== "1") {
    throw new UsageError(
      `--profile profiles one process: it does not go with --workers ${values.workers}`,
    );
  }
  return counts;
}

/** --rates (offered rates, or "search") and --slo-p99, checked. */
export function ratesOptionsOf(values: Values): {
  rates: RateSpec[];
  search: boolean;
  sloP99Ms: number;
} {
  const given = values.rates;
  const search = given === "search";
  if (given !== undefined && !search && !/^\d+(\.\d+)?%?(,\d+(\.\d+)?%?)*$/.test(given)) {
    throw new UsageError(
      `--rates must be 'search' or list rates in req/s (5000) or shares (50%), comma-separated, got '${given}'`,
    );
  }
  if (search && values.precision !== undefined)
    throw new UsageError(
      "--rates search runs in the last round, which --precision does not fix in advance",
    );
  if (search && values.workers.includes(","))
    throw new UsageError("--rates search finds one capacity per app: give --workers one count");
  const slo = values["slo-p99"];
  if (slo !== undefined && !(/^\d+(\.\d+)?$/.test(slo) && Number(slo) > 0)) {
    throw new UsageError(`--slo-p99 must be a number of milliseconds above 0, got '${slo}'`);
  }
  const rates = given === undefined || search ? [] : ratesOf(given);
  return { rates, search, sloP99Ms: slo === undefined ? DEFAULT_SLO_P99_MS : Number(slo) };
}

/** The values with a fixed set of forms: the tool, the database engine; --apps-root. */
export function formsOf(values: Values): void {
  if (values.tool !== undefined && !["oha", "wrk", "autocannon"].includes(values.tool)) {
    throw new UsageError(`--tool must be oha, wrk or autocannon, got '${values.tool}'`);
  }
  if (values.db !== undefined && values.db !== "sqlite" && values.db !== "postgres") {
    throw new UsageError(`--db must be sqlite or postgres, got '${values.db}'`);
  }
  const root = values["apps-root"];
  if (root !== undefined && !isFolder(join(root, "apps"))) {
    throw new UsageError(`--apps-root ${root} has no apps/ folder`);
  }
}

function ratesOf(list: string): RateSpec[] {
  try {
    return parseRates(list);
  } catch (error) {
    throw new UsageError(error instanceof RateError ? error.message : String(error));
  }
}

/** Comma-separated names from the contract's list, or "all"; none unknown, none twice. */
export function names<T extends { readonly name: string }>(
  list: string | undefined,
  known: readonly T[],
  kind: string,
): T[] {
  if (list === "all") return [...known];
  const found: T[] = [];
  for (const name of (list ?? "").split(",").filter(Boolean)) {
    const item = known.find((k) => k.name === name);
    if (!item) {
      const all = known.map((k) => k.name).join(" ");
      throw new UsageError(`unknown ${kind} '${name}' (known: ${all}, all)`);
    }
    // Twice would be measured twice: two rows, or back-to-back samples counted as processes.
    if (found.includes(item)) throw new UsageError(`${kind} '${name}' is given twice`);
    found.push(item);
  }
  if (found.length === 0) throw new UsageError(`no ${kind} given`);
  return found;
}

/** A share from a percentage above 0 and below 100 ("2.5" → 0.025), or a UsageError. */
export function percentOf(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0 && n < 100)) {
    throw new UsageError(`${flag} takes a percentage above 0 and below 100, got '${text}'`);
  }
  return n / 100;
}

/** --max-steal: a percentage above 0, up to STEAL_OFF (which keeps every sample). */
export function maxStealOf(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0 && n <= STEAL_OFF)) {
    throw new UsageError(
      `--max-steal takes a percentage above 0 and up to ${STEAL_OFF} (${STEAL_OFF}: off), got '${text}'`,
    );
  }
  return n;
}

/** "10m", "90s", "1h", or seconds: the time --precision may take, or a campaign's window. */
export function durationOf(text: string, flag = "--max-time"): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  const n = Number(m?.[1]);
  if (!m || !(n > 0)) {
    throw new UsageError(`${flag} takes a duration like 90s, 10m or 1h, got '${text}'`);
  }
  return n * ({ s: 1, m: 60, h: 3600 }[m[2] ?? "s"] as number);
}

export function precisionOf(
  pct: string | undefined,
  maxTime: string | undefined,
): { precision?: Options["precision"] } {
  if (pct === undefined) {
    if (maxTime !== undefined) throw new UsageError("--max-time goes with --precision");
    return {};
  }
  const target = Number(pct);
  if (!/^\d+(\.\d+)?$/.test(pct) || !(target > 0 && target < 100)) {
    throw new UsageError(
      `--precision must be a percentage above 0 and below 100, like 3 or 2.5, got '${pct}'`,
    );
  }
  const maxTimeSec = maxTime === undefined ? DEFAULT_MAX_TIME_SEC : durationOf(maxTime);
  return { precision: { target: target / 100, maxTimeSec } };
}

const isFolder = (path: string) =>
  statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
