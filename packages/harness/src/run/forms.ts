// The forms a value on the command line may take: whole numbers, lists of counts, percentages,
// durations, one of a few names, rates, versions, a git ref, a host. Each form turns the text
// given into the value the run uses, or throws a UsageError that names the flag and quotes the
// text; FLAGS (flags.ts) gives each flag its form. A form knows no other flag: the rules
// between flags are command.ts's and options.ts's.

import { availableParallelism } from "node:os";
import { STEAL_OFF } from "../analysis/steal.ts";
import { orList } from "../common/text.ts";
import { parseServerHost } from "../hosts/remote.ts";
import { parseRates, RateError, type RateSpec } from "../rates/rates.ts";
import { VERSION_SPEC } from "../runtimes/runtime-versions.ts";
import { UsageError } from "./errors.ts";

/**
 * A value's form: `text` as given (the first of `all`, for a flag that takes two), `flag` its
 * long name for the messages.
 */
export type Form<T> = (text: string, flag: string, all: readonly string[]) => T;

/** Any text: what it means is checked where it is used (a name, a path, a URL). */
export const anyText: Form<string> = (text) => text;

/** A whole number of at least `min`, as typed (leading zeros allowed), or a UsageError. */
export function whole(value: string, flag: string, min: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} must be a whole number >= ${min}, got '${value}'`);
  }
  return Number(value);
}

/** The form of a whole number of at least `min`. */
export const count =
  (min: number): Form<number> =>
  (text, flag) =>
    whole(text, flag, min);

/** One count or a comma-separated list of them, each at least 1, none twice (--connections). */
export const counts: Form<number[]> = (list, flag) => {
  if (list === "" || list.startsWith(",") || list.endsWith(",")) {
    throw new UsageError(
      `${flag} must be a count or a comma-separated list of counts, got '${list}'`,
    );
  }
  const each = list.split(",").map((c) => whole(c, flag, 1));
  if (new Set(each).size !== each.length) {
    throw new UsageError(`${flag} lists a count twice, got '${list}'`);
  }
  return each;
};

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

/**
 * --workers: the counts, or "auto" kept as asked (a run on another host refuses it: it counts
 * this machine's CPUs); options.ts resolves it.
 */
export const workerCounts: Form<readonly number[] | "auto"> = (text) =>
  text === "auto" ? "auto" : workersOf(text);

const isPercent = (text: string) =>
  /^\d+(\.\d+)?$/.test(text) && Number(text) > 0 && Number(text) < 100;

/** A percentage above 0 and below 100, as given ("2.5" → 2.5). */
export const percent: Form<number> = (text, flag) => {
  if (!isPercent(text)) {
    throw new UsageError(`${flag} takes a percentage above 0 and below 100, got '${text}'`);
  }
  return Number(text);
};

/** --precision's percentage: the same form, and an example of one in the refusal. */
export const targetPercent: Form<number> = (text, flag) => {
  if (!isPercent(text)) {
    throw new UsageError(
      `${flag} must be a percentage above 0 and below 100, like 3 or 2.5, got '${text}'`,
    );
  }
  return Number(text);
};

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

/** A number of milliseconds above 0 (--slo-p99). */
export const milliseconds: Form<number> = (text, flag) => {
  if (!(/^\d+(\.\d+)?$/.test(text) && Number(text) > 0)) {
    throw new UsageError(`${flag} must be a number of milliseconds above 0, got '${text}'`);
  }
  return Number(text);
};

/** One of a few names, as listed: "--tool must be oha, wrk, autocannon or h2load, got 'ab'". */
export const oneOf =
  <const C extends readonly string[]>(choices: C): Form<C[number]> =>
  (text, flag) => {
    const found = choices.find((c) => c === text);
    if (found === undefined) {
      throw new UsageError(`${flag} must be ${orList(choices)}, got '${text}'`);
    }
    return found;
  };

/** --rates: "search", or offered rates in req/s ("5000") or shares ("50%"), comma-separated. */
export const rateList: Form<readonly RateSpec[] | "search"> = (text, flag) => {
  if (text === "search") return "search";
  if (!/^\d+(\.\d+)?%?(,\d+(\.\d+)?%?)*$/.test(text)) {
    throw new UsageError(
      `${flag} must be 'search' or list rates in req/s (5000) or shares (50%), comma-separated, got '${text}'`,
    );
  }
  try {
    return parseRates(text);
  } catch (error) {
    throw new UsageError(error instanceof RateError ? error.message : String(error));
  }
};

/** --node 22,24 and the like: versions (a major, major.minor or exact), none twice. */
export const versionList: Form<readonly string[]> = (list, flag) => {
  const specs = list.split(",");
  if (specs.some((spec) => !VERSION_SPEC.test(spec))) {
    throw new UsageError(
      `${flag} takes versions like 22, 22.18 or 22.18.0, comma-separated, got '${list}'`,
    );
  }
  if (new Set(specs).size !== specs.length) {
    throw new UsageError(`${flag} lists a version twice, got '${list}'`);
  }
  return specs;
};

/** A git commit, branch or tag: not an option that took the place of one (--against --quick). */
export const gitRef: Form<string> = (text, flag) => {
  if (text.startsWith("-")) {
    throw new UsageError(`${flag} takes a git commit, branch or tag, got '${text}'`);
  }
  return text;
};

/** An absolute path: one that means the same on another machine (--server-dir). */
export const absolutePath: Form<string> = (text, flag) => {
  if (!text.startsWith("/")) throw new UsageError(`${flag} takes an absolute path, got '${text}'`);
  return text;
};

/** --server-host: [user@]host[:port], as ssh will be given it. */
export const serverHost: Form<{ destination: string; port?: number }> = (text) => {
  const parsed = parseServerHost(text);
  if (typeof parsed === "string") throw new UsageError(parsed);
  return parsed;
};

/** --export bmf FILE: the one format there is; the file. */
export const bmfFile: Form<string> = (format, flag, [, file = ""]) => {
  if (format !== "bmf") {
    throw new UsageError(`${flag} knows one format, bmf (Bencher Metric Format), got '${format}'`);
  }
  return file;
};

/** --compare BASE NEW: the two files. */
export const twoFiles: Form<readonly [string, string]> = (_text, _flag, [base = "", next = ""]) => [
  base,
  next,
];

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
