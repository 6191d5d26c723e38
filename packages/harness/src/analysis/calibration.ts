// ./benchmark.sh --calibrate: the statistics checked against a known answer on the machine at
// hand. bun-bare is measured against itself (A/A: no difference exists) and against itself
// with a fixed extra CPU cost per request of 2%, 5% and 10% of its own (BENCH_EXTRA_WORK,
// sized here). The run's analysis must call A/A a tie and find the others; over many
// subsamples of the run's rounds, at the default number of rounds, the share of verdicts that
// call a row different is its false-positive rate (A/A) or its detection rate.

import { listText } from "../common/text.ts";
import type { Results } from "../results/schema.ts";
import type { AppRun } from "../runtimes/runtime-versions.ts";
import { type Analysis, analyze } from "./analysis.ts";
import { mulberry32 } from "./random.ts";
import { analyzeSide, medianNsPerRequest } from "./ratios.ts";
import { median } from "./stats.ts";
import { counted, exclusionOf } from "./steal.ts";
import type { Verdict } from "./verdicts.ts";

/** The calibration app: the cheapest server, so the extra work is the largest share of it. */
export const CALIBRATION_APP = "bun-bare";
/** Extra work as a share of a request's own CPU cost; 0 is the second A of A/A. */
export const CALIBRATION_SHARES: readonly number[] = [0, 0.02, 0.05, 0.1];
/**
 * With --side-by-side, whose figure is the CPU time per request itself and whose promise is
 * to settle 2%: A/A, +1%, +2% and +5%.
 */
export const SIDE_CALIBRATION_SHARES: readonly number[] = [0, 0.01, 0.02, 0.05];

/** "2%, 5% and 10%": the shares beside A/A as prose names them. */
const sharesText = (shares: readonly number[]): string =>
  listText(
    shares.filter((s) => s > 0).map((s) => `${Math.round(s * 100)}%`),
    "and",
  );
export const CALIBRATION_SHARES_TEXT = sharesText(CALIBRATION_SHARES);
export const SIDE_CALIBRATION_SHARES_TEXT = sharesText(SIDE_CALIBRATION_SHARES);

/** "bun-bare+5%": a calibration row. */
export const calibrationName = (base: string, share: number) =>
  `${base}+${Math.round(share * 100)}%`;

/** With a CPU-bound server, x more CPU per request serves 1/(1+x) as many: the known answer. */
export const expectedChange = (share: number) => 1 / (1 + share) - 1;

export interface Sizing {
  /** The base app's server CPU time per request, ns (server CPU / req/s). */
  readonly costPerRequestNs: number;
  /** One iteration of the extra-work loop, ns (timed on the server's CPU). */
  readonly nsPerIteration: number;
}

/** The base row: the app through the extra-work wrapper, with 0 iterations (as sized). */
export const calibrationBase = (app: AppRun): AppRun => ({
  ...app,
  extraWork: { share: 0, iterations: 0 },
});

/** The run's rows: the base, then one per share (0 first: the A of A/A). */
export function calibrationRows(
  base: AppRun,
  sizing: Sizing,
  shares: readonly number[] = CALIBRATION_SHARES,
): AppRun[] {
  const perShare = sizing.costPerRequestNs / sizing.nsPerIteration;
  return [
    calibrationBase(base),
    ...shares.map((share) => ({
      ...base,
      name: calibrationName(base.name, share),
      extraWork: { share, iterations: Math.round(share * perShare) },
    })),
  ];
}

/** The sizing from the base app's measured samples: median CPU-seconds per request. */
export function costPerRequestNs(samples: readonly { cpuPercent: number; rps: number }[]): number {
  return median(samples.filter((s) => s.rps > 0).map((s) => (s.cpuPercent / 100 / s.rps) * 1e9));
}

export interface CalibrationRow {
  readonly name: string;
  /** The share the row was sized for, from the sizing before the rounds. */
  readonly share: number;
  readonly iterations: number;
  /**
   * The share its iterations really were of the base row's CPU time per request, as measured
   * in this run's own samples (median), which are many more than the sizing's.
   */
  readonly realized: number;
  readonly expected: number;
  /** Measured change against the base row, with its 95% CI; undefined: untestable. */
  readonly measured?: number;
  readonly ci?: { readonly low: number; readonly high: number };
  /** The run's own verdict: significantly different from the base (Holm over the table). */
  readonly different: boolean;
  readonly mdd?: number;
  /** Share of subsamples whose verdict was "different" (A/A: the false-positive rate). */
  readonly rate?: number;
}

export interface CalibrationView {
  readonly group: string;
  readonly base: string;
  readonly rows: CalibrationRow[];
  /** Rounds per subsample and how many subsamples the rates are over. */
  readonly subsample?: { readonly rounds: number; readonly draws: number };
}

/** `k` of `items`, drawn without replacement. */
function draw<T>(items: readonly T[], k: number, random: () => number): T[] {
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, k);
}

/** A verdict of the calibration's table: is `name` different from `base`? */
type Between = (base: string, name: string) => Verdict;

/** The run's rounds, and the table's verdicts of the run cut down to some of them. */
interface Rounds {
  readonly all: readonly number[];
  readonly analyzeKept: (keep: ReadonlySet<number>) => Between | undefined;
}

/** One at a time: the closed-loop trials' rounds, the first group's verdicts. */
const trialRounds = (results: Results): Rounds => ({
  all: [...new Set(results.trials.map((t) => t.round))],
  analyzeKept: (keep) => {
    // The subsample's tables only: without the calibration record, its analysis does not
    // subsample itself again.
    const { calibration: _, ...manifest } = results.manifest;
    const trials = results.trials.filter((t) => keep.has(t.round));
    const sub = analyze({ ...results, manifest, trials });
    return [...sub.groups.values()][0]?.between;
  },
});

/** Side by side: the pairs' rounds, the first scenario's verdicts. */
const pairRounds = (results: Results): Rounds => {
  const trials = results.pairTrials ?? [];
  return {
    all: [...new Set(trials.map((t) => t.round))],
    analyzeKept: (keep) => {
      const sub = analyzeSide({ ...results, pairTrials: trials.filter((t) => keep.has(t.round)) });
      return [...(sub?.groups.values() ?? [])][0]?.between;
    },
  };
};

/**
 * Per calibration row, the share of `draws` subsamples of `rounds` rounds (the same rounds for
 * every row, as a shorter run would have had them) whose analysis calls it different from
 * the base. undefined when the run has no more rounds than a subsample.
 */
export function subsampleRates(
  results: Results,
  rounds: number,
  draws: number,
  seed = 1,
  of: Rounds = results.manifest.settings.sideBySide ? pairRounds(results) : trialRounds(results),
): Map<string, number> | undefined {
  if (of.all.length <= rounds) return undefined;
  const base = results.manifest.calibration?.app ?? CALIBRATION_APP;
  const names = results.apps.filter((a) => a.extraWork && a.name !== base).map((a) => a.name);
  const hits = new Map(names.map((n) => [n, 0]));
  const random = mulberry32(seed);
  for (let d = 0; d < draws; d++) {
    const between = of.analyzeKept(new Set(draw(of.all, rounds, random)));
    for (const name of names) {
      if (between?.(base, name).significant) hits.set(name, (hits.get(name) ?? 0) + 1);
    }
  }
  return new Map([...hits].map(([n, h]) => [n, h / draws]));
}

/**
 * The base row's cost per request in this run's own samples, and what x more of it does to the
 * figure: one at a time, a CPU-bound server serves 1/(1 + x) as much; side by side, the figure
 * is the CPU time per request itself, x more of it is a ratio of 1 + x (schedstat figures).
 */
function knownAnswer(analysis: Analysis, base: string) {
  const { results } = analysis;
  if (analysis.side) {
    return { baseCost: medianNsPerRequest(results, base), expected: (x: number) => x };
  }
  const keep = counted(exclusionOf(results));
  const baseCost = costPerRequestNs(
    results.trials
      .filter((t) => t.app === base && keep(t) && t.result)
      .map((t) => ({ cpuPercent: t.server.cpuPercent, rps: t.result?.rps ?? 0 })),
  );
  return { baseCost, expected: expectedChange };
}

/** What the reports show for a calibration run; empty for any other run. */
export function calibrationViews(analysis: Analysis, draws = 400): CalibrationView[] {
  const { results } = analysis;
  const calibration = results.manifest.calibration;
  if (!calibration) return [];
  const rounds = calibration.subsampleRounds;
  const rates = subsampleRates(results, rounds, draws);
  const { baseCost, expected } = knownAnswer(analysis, calibration.app);
  const realized = (iterations: number) =>
    Number.isFinite(baseCost) ? (iterations * calibration.nsPerIteration) / baseCost : 0;
  const groups: [string, { between: Between }][] = [...(analysis.side?.groups ?? analysis.groups)];
  return groups.map(([key, group], i) => ({
    group: key,
    base: calibration.app,
    rows: results.apps.flatMap((app): CalibrationRow[] => {
      if (!app.extraWork || app.name === calibration.app) return [];
      const d = group.between(calibration.app, app.name);
      const share = realized(app.extraWork.iterations);
      return [
        {
          name: app.name,
          share: app.extraWork.share,
          iterations: app.extraWork.iterations,
          realized: share,
          expected: expected(share),
          ...(d.test ? { measured: d.test.change, ci: d.test.ci } : {}),
          different: d.significant,
          ...(d.mdd === undefined ? {} : { mdd: d.mdd }),
          ...(rates && i === 0 ? { rate: rates.get(app.name) ?? 0 } : {}),
        },
      ];
    }),
    ...(rates ? { subsample: { rounds, draws } } : {}),
  }));
}
