// Taking the start-up figures: the server's memory right after its first correct answer and
// after an idle pause, and --startup N's extra fresh starts with no load. startup.ts summarises
// the figures.

import { setTimeout as sleep } from "node:timers/promises";
import type { AppSpec } from "@bench/contract";
import { IDLE_PAUSE_MS } from "../analysis/startup.ts";
import { roundOrder } from "../common/plan.ts";
import type { ServerHost } from "../hosts/host.ts";
import type { Startup } from "../results/schema.ts";
import { LaunchError, type RunningApp, type StartOptions } from "./launch.ts";

/** The figures of one start; undefined when the app's first answer was not the right one. */
export async function measureStartup(
  host: Pick<ServerHost, "target" | "sample">,
  app: AppSpec,
  running: RunningApp,
  fresh: boolean,
  workers = 1,
  idle = true,
): Promise<Startup | undefined> {
  if (running.readyMs === undefined) return undefined;
  const server = await host.target(app, running.pid, workers);
  const tree = typeof server === "string" ? [running.pid] : server.tree;
  const rssMiB = async () =>
    (await host.sample({ tree, workers: [], cpus: [] })).rssBytes / 2 ** 20;
  const rssReadyMiB = await rssMiB();
  if (!idle) return { readyMs: running.readyMs, rssReadyMiB, fresh };
  await sleep(IDLE_PAUSE_MS);
  return { readyMs: running.readyMs, rssReadyMiB, rssIdleMiB: await rssMiB(), fresh };
}

/** What a pass over the apps after the measured rounds needs from the run. */
export interface AfterRounds {
  readonly apps: readonly AppSpec[];
  /** Where the apps run, and how they start there (--workers, the server's CPUs, its address). */
  readonly host: Pick<ServerHost, "start" | "target" | "sample" | "scratchPath" | "collect">;
  readonly startOptions: StartOptions;
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
        running = await ctx.host.start(app, ctx.startOptions);
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
