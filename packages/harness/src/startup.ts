// The cost of starting: every time the harness starts an app it already waits for its first
// answer, so each start is also a measurement: runtime start to first correct response, and the server's
// memory right after that and after a short idle pause. --startup N adds N fresh starts per app
// with no load at all, for a tighter figure.

import { type AppSpec, descendantsOf } from "@bench/contract";
import { LaunchError, type RunningApp, serverProcesses, startApp } from "./launch.ts";
import { roundOrder } from "./plan.ts";
import { rssBytes } from "./procstats.ts";
import type { Startup } from "./schema.ts";
import { median } from "./stats.ts";

/** How long the server sits idle before its memory is read a second time. */
export const IDLE_PAUSE_MS = 1000;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The figures of one start; undefined when the app's first answer was not the right one. */
export async function measureStartup(
  app: AppSpec,
  running: RunningApp,
  fresh: boolean,
  workers = 1,
  idle = true,
): Promise<Startup | undefined> {
  if (running.readyMs === undefined) return undefined;
  const server = serverProcesses(app, running.pid, workers);
  const root = typeof server === "string" ? running.pid : server.root;
  const tree = [root, ...descendantsOf(root)];
  const rssMiB = () => tree.reduce((sum, pid) => sum + rssBytes(pid), 0) / 2 ** 20;
  const rssReadyMiB = rssMiB();
  if (!idle) return { readyMs: running.readyMs, rssReadyMiB, fresh };
  await sleep(IDLE_PAUSE_MS);
  return { readyMs: running.readyMs, rssReadyMiB, rssIdleMiB: rssMiB(), fresh };
}

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

/** What a pass over the apps after the measured rounds needs from the run. */
export interface AfterRounds {
  readonly apps: readonly AppSpec[];
  readonly appsRoot: string;
  readonly serverCpus?: string;
  /** --workers: the extra starts start as many. */
  readonly workers: number;
  failed(name: string): boolean;
  fail(name: string, why: string): void;
  interrupted(): boolean;
  log(message: string): void;
}

/** --startup N: N more starts per app that did not fail, with no load, then stop. */
export async function extraStarts(
  ctx: AfterRounds & {
    readonly count: number;
    start(app: AppSpec, running: RunningApp): Promise<void>;
  },
): Promise<void> {
  for (let i = 1; i <= ctx.count; i++) {
    for (const app of roundOrder(ctx.apps, i)) {
      if (ctx.interrupted()) return;
      if (ctx.failed(app.name)) continue;
      ctx.log(`  ${app.name}: fresh start ${i}/${ctx.count} (start-up figures only)`);
      let running: RunningApp;
      try {
        running = await startApp(app, {
          root: ctx.appsRoot,
          workers: ctx.workers,
          ...(ctx.serverCpus !== undefined ? { cpus: ctx.serverCpus } : {}),
        });
      } catch (error) {
        ctx.fail(app.name, error instanceof LaunchError ? error.message : String(error));
        continue;
      }
      try {
        await ctx.start(app, running);
      } finally {
        await running.stop();
      }
    }
  }
}
