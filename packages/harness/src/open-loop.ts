// --rates in a run: after each closed-loop trial of an app on a scenario, one open-loop trial per
// requested rate, on the same warm server. A share ("50%") is of the closed-loop req/s the app
// reached in that same trial, so every app is loaded relative to its own capacity.

import type { Scenario } from "@bench/contract";
import { judgeOpenLoop } from "./judge.ts";
import type { LoadRun } from "./measure.ts";
import { offeredRate, type RateSpec, rateVerdict } from "./rates.ts";
import type { RateTrial, Trial } from "./schema.ts";
import type { ToolInfo } from "./tools.ts";

export interface RateContext {
  readonly rates: readonly RateSpec[];
  readonly tool: ToolInfo;
  readonly durationSec: number;
  readonly pinned: boolean;
  readonly loadCores: number;
  readonly serverCores: number;
  load(rate: number): Promise<LoadRun & { threads: number; connections: number }>;
  add(trial: RateTrial): void;
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
    errorRate: verdict.errorRate,
    valid: verdict.valid,
    invalidReasons: verdict.invalidReasons,
    notes: kept.notes,
  };
}

function rateLine(t: RateTrial): string {
  const p = t.result?.latencyMs;
  return (
    `  ${t.app} · ${t.scenario} @ ${t.requested}: ${Math.round(t.achievedRps)} of ${t.offeredRps} req/s` +
    (p ? `, p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms` : ", no result") +
    (t.valid ? "" : ` · INVALID: ${t.invalidReasons.join("; ")}`) +
    (t.overCapacity ? " · OVER CAPACITY" : "") +
    (t.loadGeneratorBound ? " · LOAD-GENERATOR BOUND" : "")
  );
}
