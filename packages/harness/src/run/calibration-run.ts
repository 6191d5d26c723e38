// --calibrate before its rounds: the base app's CPU cost per request and the extra-work loop's
// speed, sized on the server's CPU; then the calibration's rows in place of the run's one app.

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Scenario } from "@bench/contract";
import { calibrationBase, costPerRequestNs, type Sizing } from "../analysis/calibration.ts";
import { MIN_CI_PROCESSES } from "../analysis/estimate.ts";
import { isStolen } from "../analysis/steal.ts";
import { type Pinning, serverPinning } from "../common/plan.ts";
import { REPO_ROOT } from "../common/root.ts";
import type { AppRun } from "../runtimes/runtime-versions.ts";
import { newResults } from "./record.ts";
import { log, type Run } from "./session.ts";

/**
 * --calibrate, before the rounds: the base app's CPU cost per request (median of a few
 * unrecorded samples after its warm-up) and the extra-work loop's speed on the server's CPU.
 */
export async function sizeCalibration(run: Run): Promise<Sizing> {
  const app = calibrationBase(run.options.apps[0] as AppRun);
  const cpus = serverPinning(run.pinning, 1);
  const running = await run.host.start(app, run.startOptions(1));
  try {
    const server = await run.host.target(app, running.pid, 1);
    if (typeof server === "string") throw new Error(server);
    const target = { app, workerCount: 1, serverTree: server.tree };
    const scenario = run.options.scenarios[0] as Scenario;
    const { connections, durationSec, warmupSec } = run.options;
    log(`bench: calibration: sizing ${app.name}'s cost per request (not recorded)`);
    await run.load(target, scenario, Math.max(1, warmupSec), connections);
    const samples: { cpuPercent: number; rps: number; stolen: boolean }[] = [];
    for (let i = 0; i < SIZING_SAMPLES && !run.interrupted; i++) {
      const measured = await run.load(target, scenario, durationSec, connections);
      if (!measured.result) continue;
      const { serverCpuPercent: cpuPercent } = measured.rates;
      const stolen = isStolen(measured.rates, run.options.maxSteal);
      samples.push({ cpuPercent, rps: measured.result.rps, stolen });
    }
    // The steal rule as the rounds apply it, unless every sizing sample was stolen.
    const clean = samples.filter((s) => !s.stolen);
    const sized = costPerRequestNs(clean.length > 0 ? clean : samples);
    return { costPerRequestNs: sized, nsPerIteration: spinSpeed(cpus) };
  } finally {
    await running.stop();
  }
}

/** The calibration rows replace the run's one app, in the options and in results.json. */
export function useApps(run: Run, apps: AppRun[], sizing: Sizing): void {
  run.options = { ...run.options, apps };
  const results = newResults(run.options, run.pinning);
  const r = run.recorder.results;
  r.apps = results.apps;
  r.manifest.settings.apps = results.manifest.settings.apps;
  r.manifest.calibration = {
    app: (apps[0] as AppRun).name,
    ...sizing,
    // The rates are for a run of the default length: half of a calibration's rounds (and
    // never fewer than give an interval).
    subsampleRounds: Math.max(MIN_CI_PROCESSES, Math.floor(run.options.rounds / 2)),
  };
  run.recorder.save();
}

/** Unrecorded samples the calibration's sizing takes the median of (one VM hiccup is not it). */
const SIZING_SAMPLES = 7;

/** ns per iteration of the extra-work loop, timed by the harness's Bun on the server's CPU. */
function spinSpeed(cpus: Pinning): number {
  const script = join(REPO_ROOT, "packages", "fetch-bare", "src", "extra-work.ts");
  const argv = [process.execPath, script];
  const cmd = cpus.enabled ? ["taskset", "-c", cpus.serverCpus as string, ...argv] : argv;
  const out = execFileSync(cmd[0] as string, cmd.slice(1), { encoding: "utf8", timeout: 60_000 });
  return Number(out.trim());
}
