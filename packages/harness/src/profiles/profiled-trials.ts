// --profile: after the measured rounds, one extra trial per app and scenario with the runtime's
// CPU profiler on, in a fresh process, recorded apart from the trials (a profiler slows the
// server, so these figures never enter the results). The profile covers the process's life:
// start, warm-up and the trial; the trial dominates it.

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppSpec, Scenario } from "@bench/contract";
import { LaunchError, type RunningApp } from "../apps/launch.ts";
import type { AfterRounds } from "../apps/startup-run.ts";
import { REPO_ROOT } from "../common/root.ts";
import type { LoadRun } from "../load/measure.ts";
import type { ProfileRecord } from "../results/schema.ts";
import { ProfileError, readCpuProfile, summarizeProfile } from "./cpuprofile.ts";

/** Runtimes whose profiler start-app.sh knows how to turn on (--cpu-prof, DevTools format). */
export const PROFILERS: Readonly<Record<string, string>> = {
  node: "node --cpu-prof",
  bun: "bun --cpu-prof",
  deno: "deno run --cpu-prof",
};

/** What a profiled trial needs from the run. */
export interface ProfileContext extends AfterRounds {
  readonly outDir: string;
  readonly warmupSec: number;
  readonly durationSec: number;
  readonly scenarios: readonly Scenario[];
  load(
    app: AppSpec,
    serverTree: readonly number[],
    scenario: Scenario,
    seconds: number,
  ): Promise<LoadRun>;
  serverTree(app: AppSpec, running: RunningApp): Promise<readonly number[]>;
  record(profile: ProfileRecord): void;
}

/** Where the profile goes, relative to results.json. */
export const profileFile = (app: string, scenario: string) =>
  join("profiles", `${app}-${scenario}.cpuprofile`);

async function profiledLoad(
  ctx: ProfileContext,
  app: AppSpec,
  scenario: Scenario,
  path: string,
): Promise<{ run: LoadRun } | { unavailable: string }> {
  let running: RunningApp;
  try {
    // On another host, the profile is written there and copied back once the app has stopped.
    running = await ctx.host.start(app, {
      ...ctx.startOptions,
      env: { BENCH_PROFILE: ctx.host.scratchPath(path) },
    });
  } catch (error) {
    return { unavailable: error instanceof LaunchError ? error.message : String(error) };
  }
  try {
    const tree = await ctx.serverTree(app, running);
    if (ctx.warmupSec > 0) await ctx.load(app, tree, scenario, ctx.warmupSec);
    return { run: await ctx.load(app, tree, scenario, ctx.durationSec) };
  } finally {
    // Writing the profile happens at exit and can take a few seconds for a long trial.
    await running.stop(30_000);
  }
}

/** One profiled trial of `app` on `scenario`: the record to keep, with or without a profile. */
export async function profileTrial(
  ctx: ProfileContext,
  app: AppSpec,
  scenario: Scenario,
): Promise<ProfileRecord> {
  const startedAt = new Date().toISOString();
  const base = { app: app.name, scenario: scenario.name, startedAt };
  if (!PROFILERS[app.runtime]) {
    return { ...base, unavailable: `${app.runtime} has no CPU profiler this harness can run` };
  }
  const file = profileFile(app.name, scenario.name);
  const path = join(ctx.outDir, file);
  mkdirSync(join(ctx.outDir, "profiles"), { recursive: true });
  ctx.log(
    `  ${app.name} · ${scenario.name}: profiled trial (${PROFILERS[app.runtime]}), not counted`,
  );
  const loaded = await profiledLoad(ctx, app, scenario, path);
  if ("unavailable" in loaded) return { ...base, unavailable: loaded.unavailable };
  const r = loaded.run.result;
  const figures = r ? { rps: r.rps, p99Ms: r.latencyMs.p99 } : {};
  if (!(await ctx.host.collect(path))) {
    return { ...base, ...figures, unavailable: `${app.runtime} wrote no profile at ${file}` };
  }
  try {
    const summary = summarizeProfile(readCpuProfile(readFileSync(path, "utf8")), 10, REPO_ROOT);
    return { ...base, ...figures, file, summary };
  } catch (error) {
    const why = error instanceof ProfileError ? error.message : String(error);
    return { ...base, ...figures, file, unavailable: `${file} is not a usable profile: ${why}` };
  }
}

/** --profile: one profiled trial per app that did not fail, per scenario. */
export async function profileApps(ctx: ProfileContext): Promise<void> {
  for (const app of ctx.apps) {
    if (ctx.failed(app.name)) continue;
    for (const scenario of ctx.scenarios) {
      if (ctx.interrupted()) return;
      const profile = await profileTrial(ctx, app, scenario);
      if (ctx.interrupted()) return; // cut short: no profile of a partial trial
      ctx.record(profile);
      if (profile.unavailable) {
        ctx.log(`  ${app.name} · ${scenario.name}: no profile: ${profile.unavailable}`);
      }
    }
  }
}
