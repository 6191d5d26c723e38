// One app's turn in a round, one app at a time: start it, record its start-up, verify it, then
// per scenario warm up, measure its samples, its open-loop rates and, in the last round, the
// capacity search; stop it, leaving nothing behind.

import { getApp, notSupported, type Scenario } from "@bench/contract";
import { RATE_TOLERANCE } from "../analysis/rate-levels.ts";
import { LaunchError, type RunningApp } from "../apps/launch.ts";
import { serverPinning } from "../common/plan.ts";
import { formatSec } from "../common/time.ts";
import { judge } from "../load/judge.ts";
import { scenarioAsSent } from "../load/sent.ts";
import { MIN_WINDOW_SHARE } from "../load/thresholds.ts";
import { type Floor, startFloor } from "../rates/floor.ts";
import { runRates, runSearch } from "../rates/open-loop.ts";
import type { Trial } from "../results/schema.ts";
import { type AppRun, registryName } from "../runtimes/runtime-versions.ts";
import { retakeStolen, stealMark } from "./retake.ts";
import { log, type MeasuredRun, type Run, type Target, withNsPerRequest } from "./session.ts";

export async function runApp(run: Run, app: AppRun, round: number, workers: number): Promise<void> {
  const many = run.options.workerCounts.length > 1 ? ` with ${workers} worker(s)` : "";
  log(
    `[round ${round}${run.options.precision ? "" : `/${run.options.rounds}`}] ${app.name}: starting${many}` +
      (run.options.precision ? "" : ` (~${formatSec(run.timeLeft())} left)`),
  );
  let running: RunningApp;
  try {
    running = await run.host.start(app, run.startOptions(workers));
  } catch (error) {
    run.fail(app.name, error instanceof LaunchError ? error.message : String(error));
    return;
  }
  try {
    // Idle memory takes a pause: on each app's first start only, so processes stay cheap.
    await run.recordStartup(app, running, false, workers, round === 1);
    const target = await run.verifyApp(app, running, workers);
    if (target) await measureApp(run, target, round, running);
  } catch (error) {
    // Anything unforeseen costs this app, not the run. An app that died mid-turn surfaces as
    // a refused connection somewhere: say that it exited, and what it said last.
    const why = error instanceof Error ? error.message : String(error);
    run.fail(
      app.name,
      running.hasExited()
        ? `exited (${await running.exited}) during its turn (${why}). Its output:\n${running.output().trim()}`
        : `harness error: ${why}`,
    );
  } finally {
    const stopped = await running.stop();
    if (stopped.survivors.length > 0) {
      run.fail(app.name, `processes left running after KILL: ${stopped.survivors.join(", ")}`);
    }
  }
}

export async function measureApp(
  run: Run,
  target: Target,
  round: number,
  running: RunningApp,
): Promise<void> {
  const { app } = target;
  const { warmupSec, connectionCounts } = run.options;
  for (const listed of run.options.scenarios) {
    if (run.interrupted) return;
    // By the registry's name: a row of --node 22,24 is named node-hono@22.
    const reason = notSupported(getApp(registryName(app.name)), listed);
    if (reason !== undefined) {
      run.notSupported(app.name, listed.name, reason);
      continue;
    }
    const scenario = await scenarioAsSent(listed, app.port);
    if (typeof scenario === "string") {
      run.fail(app.name, `${listed.name}: ${scenario}`);
      return;
    }
    if (warmupSec > 0 && !(await warmUp(run, target, scenario, running))) return;
    // Samples per connection count (usually one count); rates follow the best of them.
    const done: Trial[] = [];
    for (const connections of connectionCounts) {
      const taken: Trial[] = [];
      for (let sample = 1; sample <= run.options.samples; sample++) {
        const trial = await measureTrial(run, target, scenario, round, running, {
          connections,
          sample,
        });
        if (!trial) return;
        taken.push(trial);
      }
      const retake = (sample: number) =>
        measureTrial(run, target, scenario, round, running, { connections, sample, retake: true });
      if (!(await retakeStolen(run.options, `${app.name} · ${scenario.name}`, taken, retake)))
        return;
      done.push(...taken);
    }
    if (run.options.rates.length > 0) {
      const best = bestTrial(done);
      const ctx = run.rateContext(target, scenario, running, best.connections);
      if (!(await runRates(ctx, app.name, scenario, round, best))) {
        run.fail(app.name, ctx.died() ?? "the app exited during a rate trial");
        return;
      }
    }
    if (run.options.search && round === run.options.rounds) {
      if (!(await searchApp(run, target, scenario, round, running, bestTrial(done)))) return;
    }
  }
}

/** Unrecorded load at the largest connection count; false when the run must stop. */
export async function warmUp(
  run: Run,
  target: Target,
  scenario: Scenario,
  running: RunningApp,
): Promise<boolean> {
  const { app } = target;
  const { warmupSec, connections } = run.options;
  log(`  ${app.name} · ${scenario.name}: warm-up ${warmupSec} s (not recorded)`);
  const warm = await run.load(target, scenario, warmupSec, connections);
  if (run.interrupted) return false;
  if (running.hasExited()) {
    run.fail(app.name, `exited (${await running.exited}) during warm-up of ${scenario.name}`);
    return false;
  }
  if (warm.problem) log(`  ${app.name} · ${scenario.name}: warm-up problem: ${warm.problem}`);
  return true;
}

/** One recorded trial; undefined when the run must stop (interrupted, or the app died). */
export async function measureTrial(
  run: Run,
  target: Target,
  scenario: Scenario,
  round: number,
  running: RunningApp,
  { connections, sample, retake }: { connections: number; sample: number; retake?: boolean },
): Promise<Trial | undefined> {
  const { app } = target;
  const { durationSec, samples, connectionCounts } = run.options;
  const at = connectionCounts.length > 1 ? `, ${connections} connections` : "";
  const of = retake
    ? `sample ${sample} (a re-take)`
    : samples > 1
      ? `sample ${sample}/${samples}`
      : "sample";
  log(`  ${app.name} · ${scenario.name}: round ${round}, ${of}, ${durationSec} s${at}`);
  const startedAt = new Date().toISOString();
  const measured = await run.load(target, scenario, durationSec, connections);
  if (run.interrupted) return undefined; // a trial cut short is no trial
  // Re-takes are beyond the plan that timeLeft() counts down.
  if (!retake) run.slotsDone++;
  const died = running.hasExited()
    ? `the app exited (${await running.exited}) during the trial`
    : undefined;
  const lost = (measured.workers ?? []).filter((w) => !w.alive).map((w) => w.pid);
  const workerDied =
    lost.length > 0
      ? `worker ${lost.join(", ")} of ${target.workerCount} exited during the trial`
      : undefined;
  const trial = {
    ...trialOf(run, target, scenario, round, startedAt, measured, died ?? workerDied),
    ...(samples > 1 || retake ? { sample } : {}),
    ...(retake ? { retake: true as const } : {}),
  };
  run.recorder.addTrial(trial);
  log(progressLine(trial, run.toolFor(scenario).name) + stealMark(trial, run.options.maxSteal));
  if (died) {
    run.fail(app.name, died);
    return undefined;
  }
  if (workerDied) {
    // Invalid, and this app's round ends here; the next round starts it afresh.
    log(`  ${app.name}: ${workerDied}; its next trials wait for the next round`);
    return undefined;
  }
  return trial;
}

export function trialOf(
  run: Run,
  target: Target,
  scenario: Scenario,
  round: number,
  startedAt: string,
  measured: MeasuredRun,
  died?: string,
): Trial {
  const { options } = run;
  const pinning = serverPinning(run.pinning, target.workerCount);
  const idle = measured.rates.serverCoreIdlePercent;
  const coreIdle = idle === undefined ? {} : { serverCoreIdlePercent: idle };
  const db = measured.rates.databaseCpuPercent;
  const database = db === undefined ? {} : { databaseCpuPercent: db };
  const verdict = judge({
    tool: run.toolFor(scenario).name,
    result: measured.result,
    ...(measured.problem ? { problem: measured.problem } : {}),
    ...(died ? { appDied: died } : {}),
    requestedSec: options.durationSec,
    // Little's law's bound: the answers that can be in flight (a broadcast's exceed its connections).
    connections: measured.inFlight ?? measured.connections,
    serverCpuPercent: measured.rates.serverCpuPercent,
    loadCpuPercent: measured.rates.loadCpuPercent,
    threads: measured.threads,
    pinned: pinning.enabled || pinning.separate === true,
    loadCores: pinning.loadCores,
    serverCores: pinning.serverCores,
    workers: target.workerCount,
    stealPercent: measured.rates.stealPercent,
    ...coreIdle,
    cpuWindowSec: measured.rates.windowSec,
    ...(run.network ? { network: run.network } : {}),
    ...database,
  });
  return {
    app: target.app.name,
    scenario: scenario.name,
    ...(target.workerCount > 1 ? { workers: target.workerCount } : {}),
    round,
    startedAt,
    command: measured.command,
    connections: measured.connections,
    requestedSec: options.durationSec,
    cpuWindowSec: measured.rates.windowSec,
    result: measured.result,
    server: {
      pid: target.serverTree[0] ?? 0,
      cpuPercent: measured.rates.serverCpuPercent,
      ...withNsPerRequest(measured.rates, measured.result?.rps),
      peakRssMiB: measured.peakRssBytes / 2 ** 20,
      ...(measured.primaryRssBytes !== undefined
        ? { primaryRssMiB: measured.primaryRssBytes / 2 ** 20 }
        : {}),
      ...(measured.workers ? { workers: measured.workers } : {}),
    },
    loadGenerator: {
      cpuPercent: measured.rates.loadCpuPercent,
      capacityCores: verdict.capacityCores,
      threads: measured.threads,
    },
    stealPercent: measured.rates.stealPercent,
    ...(measured.rates.serverStealPercent === undefined
      ? {}
      : { serverStealPercent: measured.rates.serverStealPercent }),
    ...coreIdle,
    ...database,
    checks: verdict.checks,
  };
}

/**
 * --rates search in the last round, from the app's best valid closed-loop req/s over all
 * rounds; false when the app died. The generator-floor server lives as long as the search.
 */
export async function searchApp(
  run: Run,
  target: Target,
  scenario: Scenario,
  round: number,
  running: RunningApp,
  last: Trial,
): Promise<boolean> {
  const { app } = target;
  const closed = run.recorder.results.trials
    .filter((t) => t.app === app.name && t.scenario === scenario.name && t.checks.valid)
    .filter((t) => (t.workers ?? 1) === target.workerCount)
    .map((t) => t.result?.rps ?? 0);
  const best = Math.max(0, ...closed);
  if (!(best > 0)) {
    log(`  ${app.name} · ${scenario.name}: search skipped: no valid closed-loop req/s`);
    return true;
  }
  const ctx = run.rateContext(target, scenario, running, last.connections);
  const cpus = serverPinning(run.pinning, target.workerCount);
  let floor: Floor | undefined;
  let noFloor = false; // a floor server that failed to start is not tried again
  const floorP99 = async (rate: number): Promise<number | undefined> => {
    if (noFloor) return undefined;
    try {
      floor ??= await startFloor(
        `http://127.0.0.1:${app.port}`,
        scenario,
        run.bodyFiles.get(scenario.name),
        cpus.enabled ? cpus.serverCpus : undefined,
      );
    } catch (error) {
      noFloor = true;
      log(`  ${app.name} · ${scenario.name}: no generator floor: ${String(error)}`);
      return undefined;
    }
    const open = { tool: ctx.tool, rate, port: floor.port };
    // The floor server answers 200 with the app's body, whatever the app's status was.
    const floorScenario = { ...scenario, status: 200 };
    const measured = await run.load(
      target,
      floorScenario,
      run.options.durationSec,
      last.connections,
      open,
    );
    return floorOf(measured, rate, run.options.durationSec);
  };
  try {
    if (await runSearch({ ...ctx, floor: floorP99 }, app.name, scenario, round, best)) return true;
    run.fail(app.name, ctx.died() ?? "the app exited during a search trial");
    return false;
  } finally {
    await (floor as Floor | undefined)?.stop();
  }
}

/**
 * The generator's own p99 from a floor run, only when that run is a clean measurement: every
 * request answered 2xx, nothing failed, the rate kept up over the whole window.
 */
function floorOf(run: MeasuredRun, rate: number, seconds: number): number | undefined {
  const r = run.result;
  if (!r || run.problem || r.requests === 0) return undefined;
  const failed = r.non2xx + r.socketErrors + r.timeouts;
  const short = r.requests / seconds < rate * (1 - RATE_TOLERANCE);
  return failed > 0 || short || r.durationSec < seconds * MIN_WINDOW_SHARE
    ? undefined
    : r.latencyMs.p99;
}

/** The closed-loop trial rates are offered against: the highest valid req/s. */
function bestTrial(trials: readonly Trial[]): Trial {
  const rps = (t: Trial) => (t.checks.valid ? (t.result?.rps ?? -1) : -1);
  return trials.reduce((best, t) => (rps(t) > rps(best) ? t : best));
}

function progressLine(trial: Trial, tool: string): string {
  const r = trial.result;
  const c = trial.checks;
  return (
    `  ${trial.app} · ${trial.scenario}: ` +
    (r
      ? `${Math.round(r.rps).toLocaleString("en-US")} req/s, p99 ${r.latencyMs.p99.toFixed(2)} ms`
      : "no result") +
    `, server ${trial.server.cpuPercent.toFixed(0)}% CPU, ${tool} ${trial.loadGenerator.cpuPercent.toFixed(0)}% CPU` +
    (c.valid ? "" : ` · INVALID: ${c.invalidReasons.join("; ")}`) +
    (c.loadGeneratorBound ? " · LOAD-GENERATOR BOUND" : "") +
    (c.unsaturated ? " · UNSATURATED" : "") +
    (c.contended ? " · CONTENDED" : "") +
    (c.generatorCeiling ? " · GENERATOR CEILING" : "") +
    (c.littlesLaw.ok ? "" : " · IDLE CONNECTIONS")
  );
}
