// --rates in a run: after each closed-loop trial of an app on a scenario, one open-loop trial per
// requested rate, on the same warm server. A share ("50%") is of the closed-loop req/s the app
// reached in that same trial, so every app is loaded relative to its own capacity. --rates
// search: in the last round, the rates search.ts picks, until it has the capacity's interval.

import type { Scenario } from "@bench/contract";
import { budgetVerdict } from "../analysis/rate-levels.ts";
import type { SearchPoint } from "../analysis/search-levels.ts";
import { tagOf } from "../analysis/trial-flags.ts";
import { judgeOpenLoop } from "../load/judge.ts";
import type { LoadRun } from "../load/measure.ts";
import type { ToolInfo } from "../load/tools.ts";
import type { RateTrial, Search, Trial } from "../results/schema.ts";
import { offeredRate, type RateSpec, rateVerdict, scheduleOf } from "./rates.ts";
import { nextRate } from "./search.ts";

export interface RateContext {
  readonly rates: readonly RateSpec[];
  readonly tool: ToolInfo;
  readonly durationSec: number;
  readonly pinned: boolean;
  readonly loadCores: number;
  readonly serverCores: number;
  readonly sloP99Ms: number;
  load(rate: number): Promise<LoadRun & { threads: number; connections: number }>;
  /** The generator's p99 at this rate against a server doing nothing; undefined: not measured. */
  floor(rate: number): Promise<number | undefined>;
  add(trial: RateTrial): void;
  addSearch(search: Search): void;
  log(message: string): void;
  /** The app exited: say so, and no more trials. */
  died(): string | undefined;
  interrupted(): boolean;
}

/** Runs the rate trials after `closedLoop`; returns false when the app died during one. */
export async function runRates(
  ctx: RateContext,
  app: string,
  scenario: Scenario,
  round: number,
  closedLoop: Trial,
): Promise<boolean> {
  const closedRps = closedLoop.checks.valid ? closedLoop.result?.rps : undefined;
  for (const spec of ctx.rates) {
    if (ctx.interrupted()) return true;
    const offered = offeredRate(spec, closedRps);
    if (offered === undefined) {
      ctx.log(`  ${app} · ${scenario.name}: rate ${spec.text} skipped: no valid closed-loop req/s`);
      continue;
    }
    ctx.log(
      `  ${app} · ${scenario.name}: ${spec.text} → ${offered} req/s offered, ${ctx.durationSec} s`,
    );
    const startedAt = new Date().toISOString();
    const run = await ctx.load(offered);
    if (ctx.interrupted()) return true;
    const died = ctx.died();
    const trial = rateTrialOf(
      ctx,
      { app, scenario: scenario.name, round, startedAt },
      spec,
      offered,
      run,
      died,
    );
    ctx.add(trial);
    ctx.log(rateLine(trial));
    if (died) return false;
  }
  return true;
}

function rateTrialOf(
  ctx: RateContext,
  base: Pick<RateTrial, "app" | "scenario" | "round" | "startedAt">,
  spec: RateSpec,
  offeredRps: number,
  run: LoadRun & { threads: number; connections: number },
  died: string | undefined,
): RateTrial {
  const r = run.result;
  const verdict = judgeOpenLoop({
    tool: ctx.tool.name,
    result: r,
    ...(run.problem ? { problem: run.problem } : {}),
    ...(died ? { appDied: died } : {}),
    requestedSec: ctx.durationSec,
    connections: run.connections,
    serverCpuPercent: run.rates.serverCpuPercent,
    loadCpuPercent: run.rates.loadCpuPercent,
    threads: run.threads,
    pinned: ctx.pinned,
    loadCores: ctx.loadCores,
    serverCores: ctx.serverCores,
    stealPercent: run.rates.stealPercent,
    cpuWindowSec: run.rates.windowSec,
  });
  // Responses over the requested time: oha's own clock also runs while it waits for stragglers.
  const achievedRps = r ? r.requests / ctx.durationSec : 0;
  const kept = rateVerdict(offeredRps, achievedRps, verdict.loadGeneratorBound);
  return {
    ...base,
    command: run.command,
    requested: spec.text,
    offeredRps,
    achievedRps,
    connections: run.connections,
    requestedSec: ctx.durationSec,
    result: r,
    server: { cpuPercent: run.rates.serverCpuPercent, peakRssMiB: run.peakRssBytes / 2 ** 20 },
    loadGenerator: {
      cpuPercent: run.rates.loadCpuPercent,
      capacityCores: verdict.capacityCores,
      threads: run.threads,
    },
    overCapacity: kept.overCapacity,
    loadGeneratorBound: verdict.loadGeneratorBound,
    ...(verdict.machineFull ? { machineFull: true } : {}),
    schedule: scheduleOf(offeredRps, ctx.durationSec, r),
    errorRate: verdict.errorRate,
    valid: verdict.valid,
    invalidReasons: verdict.invalidReasons,
    notes: kept.notes,
  };
}

function rateLine(t: RateTrial): string {
  const p = t.result?.latencyMs;
  const unsent = t.schedule?.unsent ?? 0;
  return (
    `  ${t.app} · ${t.scenario} @ ${t.requested}: ${Math.round(t.achievedRps)} of ${t.offeredRps} req/s` +
    (p ? `, p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms` : ", no result") +
    (unsent > 0 ? `, ${unsent} unsent` : "") +
    (t.floorP99Ms === undefined ? "" : `, generator alone p99 ${t.floorP99Ms.toFixed(2)} ms`) +
    (t.valid ? "" : ` · INVALID: ${t.invalidReasons.join("; ")}`) +
    (t.overCapacity ? " · OVER CAPACITY" : "") +
    (t.loadGeneratorBound ? ` · ${tagOf("boundTrials")}` : "") +
    (t.machineFull ? ` · ${tagOf("machineFullTrials")}` : "")
  );
}

/** A miss on latency alone, the one a generator's own delay could explain. */
function latencyMiss(t: RateTrial, budgetMs: number): boolean {
  return (
    t.valid &&
    !t.overCapacity &&
    !t.loadGeneratorBound &&
    !t.machineFull &&
    (t.result?.latencyMs.p99 ?? 0) > budgetMs
  );
}

/**
 * --rates search on the warm server: trials at the rates search.ts asks for, starting from
 * the app's best closed-loop req/s; a latency miss is checked against the generator's own p99
 * at that rate. Returns false when the app died during a trial.
 */
export async function runSearch(
  ctx: RateContext,
  app: string,
  scenario: Scenario,
  round: number,
  closedLoopRps: number,
): Promise<boolean> {
  const began = performance.now();
  const points: SearchPoint[] = [];
  const floors = new Map<number, number | undefined>();
  const spec = (rate: number): RateSpec => ({ text: "search", absolute: rate });
  for (let rate = nextRate(closedLoopRps, points); rate !== undefined; ) {
    if (ctx.interrupted()) return true;
    ctx.log(`  ${app} · ${scenario.name}: search, ${rate} req/s offered, ${ctx.durationSec} s`);
    const startedAt = new Date().toISOString();
    const run = await ctx.load(rate);
    if (ctx.interrupted()) return true;
    const died = ctx.died();
    let trial = rateTrialOf(
      ctx,
      { app, scenario: scenario.name, round, startedAt },
      spec(rate),
      rate,
      run,
      died,
    );
    if (!died && latencyMiss(trial, ctx.sloP99Ms)) {
      if (!floors.has(rate)) floors.set(rate, await ctx.floor(rate));
      if (ctx.interrupted()) return true; // a floor cut short measured nothing
      const floor = floors.get(rate);
      if (floor !== undefined) trial = { ...trial, floorP99Ms: floor };
    }
    ctx.add(trial);
    ctx.log(rateLine(trial));
    if (died) return false;
    points.push({ rate, verdict: budgetVerdict(trial, ctx.sloP99Ms).verdict });
    rate = nextRate(closedLoopRps, points);
  }
  ctx.addSearch({
    app,
    scenario: scenario.name,
    closedLoopRps,
    trials: points.length,
    elapsedSec: (performance.now() - began) / 1000,
  });
  return true;
}
