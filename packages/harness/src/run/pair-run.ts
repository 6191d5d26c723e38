// The rounds of a side-by-side run (--side-by-side): in each, every pair of the plan gets two
// fresh processes, one per slot (side/pairing.ts), both on the server's CPUs; each is verified
// against the contract, then per scenario both are warmed up together (unrecorded) and measured
// in `--samples` samples, their generators started together on the generator's CPUs; then both
// are stopped, leaving nothing behind. Every sample is written as it ends.

import type { ChildProcess } from "node:child_process";
import { type AppSpec, getApp, notSupported, type Scenario } from "@bench/contract";
import { LaunchError, type RunningApp, type StartOptions } from "../apps/launch.ts";
import { cpuList, type Pinning, roundOrder } from "../common/plan.ts";
import { formatSec } from "../common/time.ts";
import type { ServerHost } from "../hosts/host.ts";
import { scenarioAsSent } from "../load/sent.ts";
import { type ToolInfo, toolCommand } from "../load/tools.ts";
import type { PairTrial } from "../results/schema.ts";
import { type AppRun, registryName } from "../runtimes/runtime-versions.ts";
import { judgePair } from "../side/pair-checks.ts";
import { type PairCpus, type PairLoadRun, runPairLoad } from "../side/pair-load.ts";
import { both, bySlot, referenceSlot, type SidePair, SLOT_ADDRESSES } from "../side/pairing.ts";
import type { Options } from "./options.ts";
import type { Recorder } from "./record.ts";
import { retakeStolen, stealMark } from "./retake.ts";
import { runRounds } from "./rounds.ts";

const log = (message: string) => process.stderr.write(`${message}\n`);

/** What the rounds need of the run (session.ts's Run). */
export interface PairRunner {
  readonly options: Options;
  readonly pinning: Pinning;
  readonly host: ServerHost;
  readonly recorder: Recorder;
  readonly bodyFiles: ReadonlyMap<string, string>;
  readonly interrupted: NodeJS.Signals | undefined;
  tools: ChildProcess[];
  /** The run's certificate file, for the generators of a TLS scenario. */
  readonly caFile: string | undefined;
  fail(name: string, failure: string): void;
  notSupported(name: string, scenario: string, reason: string): void;
  /** The scenario's closed-loop generator: ws-load for those it loads, the run's tool else. */
  toolFor(scenario: Scenario): ToolInfo;
  /** Where the scenario's requests to `app` at `address` go (scheme, address and port). */
  origin(app: AppSpec, scenario: Scenario, address: string): string;
  startOptions(workers: number): StartOptions;
  verifyApp(
    app: AppRun,
    running: RunningApp,
    workers: number,
    address: string,
  ): Promise<{ readonly serverTree: readonly number[] } | undefined>;
  recordStartup(
    app: AppRun,
    running: RunningApp,
    fresh: boolean,
    workers: number,
    idle: boolean,
  ): Promise<void>;
}

/** Both apps of a pair, started, verified and ready to load, in slot order. */
interface Slots {
  readonly apps: readonly [AppRun, AppRun];
  readonly running: RunningApp[];
  readonly trees: (readonly number[])[];
}

const failed = (runner: PairRunner, name: string) => runner.recorder.app(name).status === "failed";

/** Starts and verifies the app of `slot`; false when it failed (recorded as its failure). */
async function startSlot(
  runner: PairRunner,
  slots: Slots,
  slot: 0 | 1,
  first: boolean,
): Promise<boolean> {
  const app = slots.apps[slot];
  const address = SLOT_ADDRESSES[slot];
  let running: RunningApp;
  try {
    running = await runner.host.start(app, { ...runner.startOptions(1), listen: address });
  } catch (error) {
    runner.fail(app.name, error instanceof LaunchError ? error.message : String(error));
    return false;
  }
  slots.running[slot] = running;
  await runner.recordStartup(app, running, false, 1, first);
  const target = await runner.verifyApp(app, running, 1, address);
  if (!target) return false;
  slots.trees[slot] = target.serverTree;
  return true;
}

/**
 * Stops both (the second slot first), and fails an app that left processes behind; a slot
 * whose stop throws still lets the other be stopped.
 */
async function stopSlots(runner: PairRunner, slots: Slots): Promise<void> {
  for (const slot of [1, 0] as const) {
    const running = slots.running[slot];
    if (!running) continue;
    const name = slots.apps[slot].name;
    try {
      const stopped = await running.stop();
      if (stopped.survivors.length > 0) {
        runner.fail(name, `processes left running after KILL: ${stopped.survivors.join(", ")}`);
      }
    } catch (error) {
      runner.fail(name, `could not be stopped: ${error instanceof Error ? error.message : error}`);
    }
  }
}

function cpusOf(pinning: Pinning, cores: number): PairCpus {
  return {
    server: pinning.enabled ? cpuList(pinning.serverCpus) : [],
    load: pinning.enabled ? cpuList(pinning.loadCpus) : [],
    machineCores: cores,
  };
}

/** Both generators at once for `seconds`, each against its slot's app. */
function loadBoth(
  runner: PairRunner,
  slots: Slots,
  scenarios: readonly [Scenario, Scenario],
  seconds: number,
) {
  const { options, pinning, host } = runner;
  const tool = runner.toolFor(scenarios[0]);
  const loads = both((i) => {
    const scenario = scenarios[i];
    const bodyFile = runner.bodyFiles.get(scenario.name);
    const cmd = toolCommand(tool, {
      url: `${runner.origin(slots.apps[i], scenario, SLOT_ADDRESSES[i])}${scenario.path}`,
      scenario,
      connections: options.connections,
      durationSec: seconds,
      ...(bodyFile ? { bodyFile } : {}),
      ...(pinning.enabled ? { cpus: pinning.loadCpus } : {}),
      cores: pinning.loadCores,
      processes: 1,
      ...(runner.caFile ? { caFile: runner.caFile } : {}),
    });
    return { cmd, tree: slots.trees[i] as readonly number[] };
  });
  return runPairLoad(tool, loads, seconds, cpusOf(pinning, host.info.cores), (children) => {
    runner.tools = children;
  });
}

/** Why an app of the pair is gone, if one is. */
async function deaths(slots: Slots): Promise<(string | undefined)[]> {
  return Promise.all(
    slots.running.map(async (r) =>
      r?.hasExited() ? `the app exited (${await r.exited}) during the sample` : undefined,
    ),
  );
}

/** The record of one sample. */
function pairTrial(
  runner: PairRunner,
  pair: SidePair,
  slots: Slots,
  at: {
    scenario: Scenario;
    round: number;
    sample: number;
    startedAt: string;
    retake?: boolean;
  },
  run: PairLoadRun,
  died: readonly (string | undefined)[],
): PairTrial {
  const { options, pinning } = runner;
  const checks = judgePair({
    tool: runner.toolFor(at.scenario).name,
    requestedSec: options.durationSec,
    sides: both((i) => {
      const s = run.sides[i];
      const why = died[i];
      return {
        app: slots.apps[i].name,
        result: s.result,
        ...(s.problem ? { problem: s.problem } : {}),
        ...(why ? { appDied: why } : {}),
        // Little's law's bound: the answers that can be in flight (a broadcast's exceed its connections).
        connections: s.inFlight ?? s.connections,
        cpuNs: s.cpuNs,
        threadsExited: s.threadsExited,
      };
    }),
    ...(run.rates ? { rates: run.rates } : {}),
    serverCores: pinning.serverCores,
    loadCores: pinning.loadCores,
  });
  const r = run.rates;
  const sides = both((i) => {
    const s = run.sides[i];
    return {
      app: slots.apps[i].name,
      slot: i,
      address: SLOT_ADDRESSES[i],
      pid: slots.trees[i]?.[0] ?? 0,
      command: s.command,
      connections: s.connections,
      result: s.result,
      cpuNs: s.cpuNs,
      ...(s.result && s.result.requests > 0 ? { nsPerRequest: s.cpuNs / s.result.requests } : {}),
      serverCpuPercent: r?.serverCpuPercent[i] ?? 0,
      peakRssMiB: s.peakRssBytes / 2 ** 20,
      loadGenerator: { cpuPercent: r?.loadCpuPercent[i] ?? 0, threads: s.threads },
    };
  });
  return {
    reference: pair.reference.name,
    app: pair.app.name,
    scenario: at.scenario.name,
    round: at.round,
    ...(options.samples > 1 || at.retake ? { sample: at.sample } : {}),
    ...(at.retake ? { retake: true as const } : {}),
    startedAt: at.startedAt,
    requestedSec: options.durationSec,
    cpuWindowSec: r?.windowSec ?? 0,
    sides,
    ...(r?.serverCoreIdlePercent !== undefined
      ? { serverCoreIdlePercent: r.serverCoreIdlePercent }
      : {}),
    ...(r?.loadCoreIdlePercent !== undefined ? { loadCoreIdlePercent: r.loadCoreIdlePercent } : {}),
    stealPercent: r?.stealPercent ?? 0,
    ...(r?.serverStealPercent === undefined ? {} : { serverStealPercent: r.serverStealPercent }),
    checks,
  };
}

function progressLine(t: PairTrial): string {
  const [ref, app] = [t.reference, t.app].map((name) => t.sides.find((s) => s.app === name));
  const ns = (n: number | undefined) =>
    n === undefined ? "—" : `${Math.round(n).toLocaleString("en-US")} ns`;
  const ratio =
    ref?.nsPerRequest && app?.nsPerRequest
      ? ` (×${(app.nsPerRequest / ref.nsPerRequest).toFixed(3)})`
      : "";
  const c = t.checks;
  return (
    `  ${t.app} vs ${t.reference} · ${t.scenario}: ${ns(app?.nsPerRequest)} vs ${ns(ref?.nsPerRequest)} per request${ratio}, ` +
    `servers ${t.sides.map((s) => s.serverCpuPercent.toFixed(0)).join("+")}% CPU` +
    (c.valid ? "" : ` · INVALID: ${c.invalidReasons.join("; ")}`) +
    (c.generatorCeiling ? " · GENERATOR CEILING" : c.unsaturated ? " · UNSATURATED" : "") +
    (c.contended ? " · CONTENDED" : "")
  );
}

/** Warm-up and samples of one scenario; false when the pair must stop (an app died, Ctrl-C). */
async function measureScenario(
  runner: PairRunner,
  pair: SidePair,
  slots: Slots,
  listed: Scenario,
  round: number,
): Promise<boolean> {
  const { options } = runner;
  const reasons = both((i) => notSupported(getApp(registryName(slots.apps[i].name)), listed));
  if (reasons.some((why) => why !== undefined)) {
    // Neither side is measured: a pair's figure needs both servers.
    for (const i of [0, 1] as const) {
      const why = reasons[i];
      if (why !== undefined) runner.notSupported(slots.apps[i].name, listed.name, why);
    }
    return true;
  }
  const sent = await Promise.all(
    both((i) => scenarioAsSent(listed, slots.apps[i].port, SLOT_ADDRESSES[i])),
  );
  for (const i of [0, 1] as const) {
    const why = sent[i];
    if (typeof why === "string") {
      runner.fail(slots.apps[i].name, `${listed.name}: ${why}`);
      return false;
    }
  }
  const scenarios = sent as [Scenario, Scenario];
  if (runner.interrupted) return false;
  if (options.warmupSec > 0) {
    log(
      `  ${pair.app.name} vs ${pair.reference.name} · ${listed.name}: warm-up ${options.warmupSec} s (not recorded)`,
    );
    await loadBoth(runner, slots, scenarios, options.warmupSec);
    if (runner.interrupted) return false;
  }
  const taken: PairTrial[] = [];
  const at = { pair, slots, scenarios, listed, round };
  for (let sample = 1; sample <= options.samples; sample++) {
    const trial = await takeSample(runner, at, sample, false);
    if (!trial) return false;
    taken.push(trial);
  }
  const label = `${pair.app.name} vs ${pair.reference.name} · ${listed.name}`;
  return retakeStolen(options, label, taken, (sample) => takeSample(runner, at, sample, true));
}

/** One sample of a pair on a scenario, recorded; undefined when the pair must stop. */
async function takeSample(
  runner: PairRunner,
  at: {
    readonly pair: SidePair;
    readonly slots: Slots;
    readonly scenarios: readonly [Scenario, Scenario];
    readonly listed: Scenario;
    readonly round: number;
  },
  sample: number,
  retake: boolean,
): Promise<PairTrial | undefined> {
  const { pair, slots, listed, round } = at;
  if (runner.interrupted) return undefined;
  const startedAt = new Date().toISOString();
  const run = await loadBoth(runner, slots, at.scenarios, runner.options.durationSec);
  if (runner.interrupted) return undefined;
  const died = await deaths(slots);
  const trial = pairTrial(
    runner,
    pair,
    slots,
    { scenario: listed, round, sample, startedAt, retake },
    run,
    died,
  );
  runner.recorder.addPairTrial(trial);
  log(progressLine(trial) + stealMark(trial, runner.options.maxSteal));
  const gone = died.flatMap((why, i) => (why ? [[slots.apps[i]?.name as string, why]] : []));
  for (const [name, why] of gone) runner.fail(name as string, why as string);
  return gone.length > 0 ? undefined : trial;
}

/** One pair in one round: both apps started afresh, verified, measured on every scenario, stopped. */
async function runPair(
  runner: PairRunner,
  pair: SidePair,
  index: number,
  round: number,
  started: Set<string>,
) {
  const apps = bySlot(pair, round, index);
  const slot = referenceSlot(round, index);
  log(
    `[round ${round}] ${pair.app.name} vs ${pair.reference.name}: starting ` +
      `(${apps[0].name} at ${SLOT_ADDRESSES[0]}, ${apps[1].name} at ${SLOT_ADDRESSES[1]}; reference in slot ${slot + 1})`,
  );
  const slots: Slots = { apps, running: [], trees: [] };
  try {
    for (const i of [0, 1] as const) {
      const first = !started.has(apps[i].name);
      started.add(apps[i].name);
      if (!(await startSlot(runner, slots, i, first))) return;
    }
    for (const listed of runner.options.scenarios) {
      if (runner.interrupted || !(await measureScenario(runner, pair, slots, listed, round)))
        return;
    }
  } catch (error) {
    const why = `harness error: ${error instanceof Error ? error.message : String(error)}`;
    runner.fail(pair.app.name, why);
  } finally {
    await stopSlots(runner, slots);
  }
}

/** One round: every pair whose rows have not failed, in an order reversed every other round. */
async function runRound(
  runner: PairRunner,
  pairs: readonly SidePair[],
  round: number,
  started: Set<string>,
) {
  const turns = pairs.map((pair, index) => ({ name: pair.app.name, pair, index }));
  for (const { pair, index } of roundOrder(turns, round)) {
    if (runner.interrupted || runner.host.lost()) break;
    if (failed(runner, pair.reference.name) || failed(runner, pair.app.name)) continue;
    await runPair(runner, pair, index, round, started);
  }
}

/** The rounds of a side-by-side run (rounds.ts decides how many): every pair, every round. */
export function runPairRounds(runner: PairRunner, pairs: readonly SidePair[]): Promise<void> {
  const { options } = runner;
  const started = new Set<string>();
  const t0 = performance.now();
  const live = () =>
    pairs.some((p) => !failed(runner, p.reference.name) && !failed(runner, p.app.name));
  return runRounds({
    options,
    recorder: runner.recorder,
    done: () => runner.interrupted !== undefined || runner.host.lost() !== undefined || !live(),
    interrupted: () => runner.interrupted !== undefined,
    round: async (n) => {
      await runRound(runner, pairs, n, started);
      const seconds = formatSec((performance.now() - t0) / 1000);
      if (!options.precision) log(`bench: round ${n} of ${options.rounds} done · ${seconds}`);
    },
    log,
  });
}
