// Simulated histories of sessions for the known answers of sessions.ts and change-points.ts
// (sessions.test.ts, change-points.test.ts; docs/history.md quotes what these functions return
// for the seeds the tests use). Sessions as this VM has them (docs/history.md): each session
// moves its log estimate by its own effect (SD 7%) and measures it with its own noise (its
// within-session standard error, 1.5%), from a seeded generator, so every rate is the same on
// every machine and every run.
import { changePoints } from "../../src/analysis/change-points.ts";
import { mulberry32 } from "../../src/analysis/random.ts";
import { acrossSessions, newestChanged, type SessionPoint } from "../../src/analysis/sessions.ts";
import { tCritical } from "../../src/analysis/stats.ts";
import { normal } from "./simulate.ts";

/** The SD of a session's own effect on its log estimate: what sessions add. */
export const SESSION_SD = 0.07;
/** A session's within-session standard error of its log estimate. */
export const WITHIN_SE = 0.015;
/** The rounds behind that standard error, for a t interval: the side-by-side default. */
export const WITHIN_ROUNDS = 15;

/** `count` sessions of a series whose true log level is `level`. */
export function sessions(z: () => number, count: number, level = 0): SessionPoint[] {
  return Array.from({ length: count }, (_, i) => ({
    run: `run-${i}`,
    startedAt: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    estimate: level + SESSION_SD * z() + WITHIN_SE * z(),
    se: WITHIN_SE,
  }));
}

/** Shares of histories (and of single sessions) whose interval covers the true level, 0. */
export interface Coverage {
  /** acrossSessions' 95% interval over the history's sessions. */
  readonly across: number;
  /** One more session inside the history's 95% prediction interval. */
  readonly prediction: number;
  /** A single session's estimate ± 1.96·se. */
  readonly withinZ: number;
  /** A single session's estimate ± t(0.975, WITHIN_ROUNDS − 1)·se. */
  readonly withinT: number;
}

export function coverage(seed: number, histories: number, count: number): Coverage {
  const z = normal(mulberry32(seed));
  const t = tCritical(0.05, WITHIN_ROUNDS - 1);
  const covers = (low: number, high: number) => (low <= 0 && 0 <= high ? 1 : 0);
  let across = 0;
  let prediction = 0;
  let withinZ = 0;
  let withinT = 0;
  for (let h = 0; h < histories; h++) {
    const points = sessions(z, count);
    const a = acrossSessions(points);
    across += covers(a?.low ?? 1, a?.high ?? 1);
    const next = sessions(z, 1)[0]?.estimate ?? 0;
    prediction += covers((a?.prediction.low ?? 1) - next, (a?.prediction.high ?? 1) - next);
    for (const p of points) {
      withinZ += covers(p.estimate - 1.96 * p.se, p.estimate + 1.96 * p.se);
      withinT += covers(p.estimate - t * p.se, p.estimate + t * p.se);
    }
  }
  const single = histories * count;
  return {
    across: across / histories,
    prediction: prediction / histories,
    withinZ: withinZ / single,
    withinT: withinT / single,
  };
}

/** How often changePoints finds a step planted after session `at` of `count`. */
export interface Detection {
  /** A change point within two sessions of where the step was planted. */
  readonly found: number;
  /** Any change point at all (for a flat series, step 0: a false alarm). */
  readonly any: number;
}

export function stepDetection(
  seed: number,
  step: number,
  maxP: number,
  series = 2000,
  count = 20,
  at = 10,
): Detection {
  const z = normal(mulberry32(seed));
  let found = 0;
  let any = 0;
  for (let k = 0; k < series; k++) {
    const values = sessions(z, count).map((p, i) => p.estimate + (i >= at ? Math.log1p(step) : 0));
    const points = changePoints(values, { maxP });
    if (points.length > 0) any++;
    if (points.some((c) => Math.abs(c.index - at) <= 2)) found++;
  }
  return { found: found / series, any: any / series };
}

/** How often newestChanged flags a family's series. */
export interface Flagged {
  /** The first series, whose newest session moved by `shift` (log). */
  readonly shifted: number;
  /** Families where any of the other, unmoved series was flagged. */
  readonly others: number;
  /** Families where any series was flagged: with shift 0, the family-wise error rate. */
  readonly any: number;
}

/** `families` families of `size` series, each with `earlier` sessions and a newest one. */
export function newestFlagged(
  seed: number,
  families: number,
  size: number,
  shift: number,
  earlier = 8,
): Flagged {
  const z = normal(mulberry32(seed));
  let shifted = 0;
  let others = 0;
  let any = 0;
  for (let f = 0; f < families; f++) {
    const family = Array.from({ length: size }, (_, i) => {
      const points = sessions(z, earlier + 1);
      const newest = points[earlier] as SessionPoint;
      points[earlier] = { ...newest, estimate: newest.estimate + (i === 0 ? shift : 0) };
      return { key: `series-${i}`, points };
    });
    const result = newestChanged(family);
    if (result.get("series-0")?.changed) shifted++;
    const flagged = [...result].filter(([, r]) => r.changed).map(([key]) => key);
    if (flagged.some((key) => key !== "series-0")) others++;
    if (flagged.length > 0) any++;
  }
  return { shifted: shifted / families, others: others / families, any: any / families };
}
