// The cost of starting: every time the harness starts an app it already waits for its first
// answer, so each start is also a measurement: runtime start to first correct response, and the server's
// memory right after that and after a short idle pause. --startup N adds N fresh starts per app
// with no load at all, for a tighter figure. This module summarises the figures per app (pure);
// startup-run.ts takes them.

import type { Startup } from "../results/schema.ts";
import { median } from "./stats.ts";

/** How long the server sits idle before its memory is read a second time. */
export const IDLE_PAUSE_MS = 1000;

export interface StartupRow {
  readonly app: string;
  readonly starts: number;
  /** Of which fresh (--startup: no load before or after). */
  readonly fresh: number;
  readonly readyMs: { readonly median: number; readonly min: number; readonly max: number };
  readonly rssReadyMiB: number;
  readonly rssIdleMiB: { readonly median: number; readonly min: number; readonly max: number };
}

const spread = (xs: number[]) =>
  xs.length === 0
    ? { median: Number.NaN, min: Number.NaN, max: Number.NaN }
    : { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };

/** Median and range per app, over every start that has figures. */
export function startupRows(
  apps: readonly { readonly name: string; readonly startups?: readonly Startup[] }[],
): StartupRow[] {
  return apps
    .filter((a) => (a.startups?.length ?? 0) > 0)
    .map((a) => {
      const s = a.startups as readonly Startup[];
      return {
        app: a.name,
        starts: s.length,
        fresh: s.filter((x) => x.fresh).length,
        readyMs: spread(s.map((x) => x.readyMs)),
        rssReadyMiB: median(s.map((x) => x.rssReadyMiB)),
        rssIdleMiB: spread(s.flatMap((x) => (x.rssIdleMiB === undefined ? [] : [x.rssIdleMiB]))),
      };
    });
}
