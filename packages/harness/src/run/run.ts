// ./benchmark.sh's harness: benchmark.sh bootstraps Bun and hands its command line over here
// (flags.ts, command.ts and options.ts read and check it). For each round, for each app (order
// reversed every other round): start it, verify it, then per scenario warm up and measure one
// trial; stop it, leaving nothing behind.
// The concerns live in their own modules: plan.ts (pinning, order), load.ts (one run of
// the load generator with /proc sampling; measure.ts its arithmetic), judge.ts (validity and
// flags), record.ts (results.json and the summary). This file only puts them in sequence.

import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { type AppSpec, ROUTES, type Scenario, verify } from "@bench/contract";
import { analyze } from "../analysis/analysis.ts";
import {
  CALIBRATION_SHARES,
  calibrationBase,
  calibrationRows,
  costPerRequestNs,
  SIDE_CALIBRATION_SHARES,
  type Sizing,
} from "../analysis/calibration.ts";
import { MIN_CI_PROCESSES } from "../analysis/estimate.ts";
import { DatabaseError, databaseRecord, databaseServer } from "../apps/app-db.ts";
import { LaunchError, REPO_ROOT, type RunningApp, type StartOptions } from "../apps/launch.ts";
import type { PostgresServer } from "../apps/postgres-server.ts";
import { type AfterRounds, extraStarts, measureStartup } from "../apps/startup-run.ts";
import { localHost, type ServerHost } from "../hosts/host.ts";
import { connectRemote } from "../hosts/remote.ts";
import { judge, MIN_WINDOW_SHARE } from "../load/judge.ts";
import { runLoad } from "../load/load.ts";
import { type LoadRun, nsPerRequest } from "../load/measure.ts";
import { scenarioAsSent } from "../load/sent.ts";
import { type ToolInfo, toolCommand } from "../load/tools.ts";
import { type ProfileContext, profileApps } from "../profiles/profiled-trials.ts";
import { type Floor, startFloor } from "../rates/floor.ts";
import { type RateContext, runRates, runSearch } from "../rates/open-loop.ts";
import { RATE_TOLERANCE } from "../rates/rates.ts";
import { writeBmf } from "../report/bmf.ts";
import { runCli } from "../report/cli.ts";
import { pinningText } from "../report/summary.ts";
import { type AppRun, type RuntimeBuild, registryName } from "../runtimes/runtime-versions.ts";
import { prepareRuntimes, runtimeCache } from "../runtimes/runtimes.ts";
import { stopAll as stopAllWatched } from "../runtimes/watched.ts";
import type { Results, Trial } from "../schema.ts";
import { runPairRounds } from "../side/pair-run.ts";
import { planPairs, type SidePair, SLOT_ADDRESSES } from "../side/pairing.ts";
import { prepareCheckout, withCheckout } from "../side/worktree.ts";
import { commandOf, type Values } from "./command.ts";
import { EnvironmentError, helpText, UsageError } from "./flags.ts";
import { gitInfo } from "./manifest.ts";
import { type Options, parseOptions, withBuilds } from "./options.ts";
import {
  cpuList,
  type Pinning,
  pinningPlan,
  remotePlan,
  roundOrder,
  serverPinning,
} from "./plan.ts";
import { formatSec } from "./precision.ts";
import { newResults, Recorder } from "./record.ts";
import { runRounds } from "./rounds.ts";

const log = (message: string) => process.stderr.write(`${message}\n`);

type MeasuredRun = LoadRun & { readonly threads: number; readonly connections: number };

interface Target {
  readonly app: AppSpec;
  readonly serverTree: readonly number[];
  /** Processes serving the port (--workers; 1: the server itself). */
  readonly workerCount: number;
  /** workerCount > 1: the worker processes (also in serverTree, after the primary). */
  readonly workers?: readonly number[];
}

class Run {
  options: Options;
  readonly pinning: Pinning;
  readonly recorder: Recorder;
  readonly bodyFiles = new Map<string, string>();
  /** Where the apps run: this machine, or --server-host's. */
  readonly host: ServerHost;
  interrupted: NodeJS.Signals | undefined;
  /** The load generators running now (two in a side-by-side sample): stopped on Ctrl-C. */
  tools: ChildProcess[] = [];
  private slotsDone = 0;

  /** --db postgres: the server every app process gets its own database from. */
  readonly postgres: PostgresServer | undefined;

  constructor(options: Options, host: ServerHost = localHost(), postgres?: PostgresServer) {
    this.options = options;
    this.postgres = postgres;
    this.host = host;
    const { cores, hasTaskset } = host.info;
    this.pinning = host.remote
      ? remotePlan(options.pin, cores, hasTaskset, options.workers, availableParallelism())
      : pinningPlan(options.pin, cores, hasTaskset, options.workers);
    mkdirSync(options.outDir, { recursive: true });
    this.recorder = new Recorder(options.outDir, newResults(options, this.pinning));
    if (host.record) this.recorder.results.manifest.serverHost = host.record;
    if (options.scenarios.some((s) => s.database)) {
      this.recorder.results.manifest.database = databaseRecord(postgres?.record);
    }
    // Bodies go next to the results: what was sent is part of what was measured.
    for (const scenario of options.scenarios) {
      if (scenario.body === undefined) continue;
      const file = join(options.outDir, `body-${scenario.name}.json`);
      writeFileSync(file, scenario.body);
      this.bodyFiles.set(scenario.name, file);
    }
  }

  interrupt(signal: NodeJS.Signals): void {
    if (this.interrupted) return;
    this.interrupted = signal;
    log(`\nbench: ${signal}: stopping the running app and keeping finished results...`);
    for (const tool of this.tools) tool.kill("SIGTERM");
  }

  fail(name: string, failure: string): void {
    this.recorder.update(name, { status: "failed", failure });
    log(`  ${name}: FAILED: ${failure}`);
  }

  timeLeft(): number {
    const { apps, scenarios, trials, warmupSec, durationSec, samples } = this.options;
    const pending = this.recorder.results.apps.filter((a) => a.status !== "failed").length;
    const counts = this.options.connectionCounts.length;
    const turns = apps.length * this.options.workerCounts.length;
    const perProcess = scenarios.length * counts * samples;
    const remaining = turns * trials * perProcess - this.slotsDone;
    // ~1 s per app start (launch, readiness, verify), on top of the load.
    const starts = Math.ceil(remaining / perProcess) * 1;
    const perSlot =
      warmupSec / (counts * samples) +
      durationSec *
        (1 + (this.options.rates.length + searchShare(this.options)) / (counts * samples));
    return pending === 0 ? 0 : remaining * perSlot + starts;
  }

  load(
    target: Target,
    scenario: Scenario,
    seconds: number,
    connections: number,
    open?: { tool: ToolInfo; rate: number; port?: number },
  ): Promise<MeasuredRun> {
    const bodyFile = this.bodyFiles.get(scenario.name);
    const tool = open?.tool ?? this.options.tool;
    const cmd = toolCommand(tool, {
      ...(open ? { rate: open.rate } : {}),
      url: `http://${open?.port ? "127.0.0.1" : this.host.address}:${open?.port ?? target.app.port}${scenario.path}`,
      scenario,
      connections,
      durationSec: seconds,
      ...(bodyFile ? { bodyFile } : {}),
      ...(this.pinning.enabled ? { cpus: this.pinning.loadCpus } : {}),
      cores: this.pinning.loadCores,
      processes: target.workerCount,
    });
    const pinning = serverPinning(this.pinning, target.workerCount);
    const sampled = {
      serverTree: target.serverTree,
      serverCpus: pinning.enabled ? cpuList(pinning.serverCpus) : [],
      machineCores: this.host.info.cores,
      host: this.host,
      ...(target.workers ? { workers: { pids: target.workers, port: target.app.port } } : {}),
      ...(this.postgres && scenario.database ? { database: this.postgres.pid } : {}),
    };
    return runLoad(tool, cmd, seconds, sampled, (child) => {
      this.tools = child ? [child] : [];
    }).then((run) => ({ ...run, threads: cmd.threads, connections: cmd.connections }));
  }

  trialOf(
    target: Target,
    scenario: Scenario,
    round: number,
    startedAt: string,
    run: MeasuredRun,
    died?: string,
  ): Trial {
    const { options } = this;
    const pinning = serverPinning(this.pinning, target.workerCount);
    const idle = run.rates.serverCoreIdlePercent;
    const coreIdle = idle === undefined ? {} : { serverCoreIdlePercent: idle };
    const db = run.rates.databaseCpuPercent;
    const database = db === undefined ? {} : { databaseCpuPercent: db };
    const verdict = judge({
      tool: options.tool.name,
      result: run.result,
      ...(run.problem ? { problem: run.problem } : {}),
      ...(died ? { appDied: died } : {}),
      requestedSec: options.durationSec,
      connections: run.connections,
      serverCpuPercent: run.rates.serverCpuPercent,
      loadCpuPercent: run.rates.loadCpuPercent,
      threads: run.threads,
      pinned: pinning.enabled || pinning.separate === true,
      loadCores: pinning.loadCores,
      serverCores: pinning.serverCores,
      workers: target.workerCount,
      stealPercent: run.rates.stealPercent,
      ...coreIdle,
      cpuWindowSec: run.rates.windowSec,
      ...(this.network ? { network: this.network } : {}),
      ...database,
    });
    return {
      app: target.app.name,
      scenario: scenario.name,
      ...(target.workerCount > 1 ? { workers: target.workerCount } : {}),
      round,
      startedAt,
      command: run.command,
      connections: run.connections,
      requestedSec: options.durationSec,
      cpuWindowSec: run.rates.windowSec,
      result: run.result,
      server: {
        pid: target.serverTree[0] ?? 0,
        cpuPercent: run.rates.serverCpuPercent,
        ...withNsPerRequest(run.rates, run.result?.rps),
        peakRssMiB: run.peakRssBytes / 2 ** 20,
        ...(run.primaryRssBytes !== undefined
          ? { primaryRssMiB: run.primaryRssBytes / 2 ** 20 }
          : {}),
        ...(run.workers ? { workers: run.workers } : {}),
      },
      loadGenerator: {
        cpuPercent: run.rates.loadCpuPercent,
        capacityCores: verdict.capacityCores,
        threads: run.threads,
      },
      stealPercent: run.rates.stealPercent,
      ...coreIdle,
      ...database,
      checks: verdict.checks,
    };
  }

  async runApp(app: AppRun, round: number, workers: number): Promise<void> {
    const many = this.options.workerCounts.length > 1 ? ` with ${workers} worker(s)` : "";
    log(
      `[round ${round}${this.options.precision ? "" : `/${this.options.trials}`}] ${app.name}: starting${many}` +
        (this.options.precision ? "" : ` (~${formatSec(this.timeLeft())} left)`),
    );
    let running: RunningApp;
    try {
      running = await this.host.start(app, this.startOptions(workers));
    } catch (error) {
      this.fail(app.name, error instanceof LaunchError ? error.message : String(error));
      return;
    }
    try {
      // Idle memory takes a pause: on each app's first start only, so processes stay cheap.
      await this.recordStartup(app, running, false, workers, round === 1);
      const target = await this.verifyApp(app, running, workers);
      if (target) await this.measureApp(target, round, running);
    } catch (error) {
      // Anything unforeseen costs this app, not the run.
      this.fail(
        app.name,
        `harness error: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      const stopped = await running.stop();
      if (stopped.survivors.length > 0) {
        this.fail(app.name, `processes left running after KILL: ${stopped.survivors.join(", ")}`);
      }
    }
  }

  /** Across two hosts: what judge() needs to know of the network between them. */
  get network(): { rttMs: number; linkMbps?: number } | undefined {
    const r = this.host.record;
    if (!r) return undefined;
    const links = [r.linkMbps.load, r.linkMbps.server].filter((l) => l !== undefined);
    return { rttMs: r.rttMs, ...(links.length > 0 ? { linkMbps: Math.min(...links) } : {}) };
  }

  /** How the apps start: with `workers`, on the server's CPUs, listening where the host says. */
  startOptions(workers: number): StartOptions {
    const pinning = serverPinning(this.pinning, workers);
    const postgres = this.postgres;
    return {
      root: this.options.appsRoot,
      workers,
      ...(pinning.enabled ? { cpus: pinning.serverCpus } : {}),
      ...(this.host.remote ? { listen: this.host.address } : {}),
      ...(this.options.scenarios.some((s) => s.database)
        ? { database: postgres ? () => postgres.appDatabase() : true }
        : {}),
    };
  }

  /** The contract, then the runtime as the app reports it; undefined when it fails. */
  async verifyApp(
    app: AppRun,
    running: RunningApp,
    workerCount: number,
    address = this.host.address,
  ): Promise<Target | undefined> {
    const url = `http://${address}:${app.port}`;
    const violations = await verify(url, registryName(app.name), {
      processes: workerCount,
      ...(running.database ? { database: running.database } : {}),
    });
    // Once the contract holds, GET /api/test is known to answer JSON with runtime and version.
    let identity: { runtime: string; version: string } | undefined;
    if (violations.length === 0) {
      const response = await fetch(`${url}${ROUTES.api}`, { signal: AbortSignal.timeout(10_000) });
      identity = (await response.json()) as { runtime: string; version: string };
      const mismatch = versionMismatch(app, identity.version);
      if (mismatch) violations.push(mismatch);
    }
    const reportedRuntime = identity && { name: identity.runtime, version: identity.version };
    if (violations.length > 0 || !reportedRuntime) {
      this.recorder.update(app.name, {
        violations,
        ...(reportedRuntime ? { reportedRuntime } : {}),
      });
      const first = violations[0];
      this.fail(
        app.name,
        `violates the contract (${violations.length}): ${first?.check}: ${first?.detail}`,
      );
      return undefined;
    }
    const server = await this.host.target(app, running.pid, workerCount);
    if (typeof server === "string") {
      this.fail(app.name, server);
      return undefined;
    }
    this.recorder.update(app.name, {
      status: "ok",
      reportedRuntime,
      ...(server.executable ? { executable: server.executable } : {}),
    });
    // Servers do not fork under load: find the tree once, so sampling reads a few files only.
    return {
      app,
      workerCount,
      serverTree: server.tree,
      ...(server.workers.length > 0 ? { workers: server.workers } : {}),
    };
  }

  async measureApp(target: Target, round: number, running: RunningApp): Promise<void> {
    const { app } = target;
    const { warmupSec, connectionCounts } = this.options;
    for (const listed of this.options.scenarios) {
      if (this.interrupted) return;
      const scenario = await scenarioAsSent(listed, app.port);
      if (typeof scenario === "string") {
        this.fail(app.name, `${listed.name}: ${scenario}`);
        return;
      }
      if (warmupSec > 0 && !(await this.warmUp(target, scenario, running))) return;
      // Samples per connection count (usually one count); rates follow the best of them.
      const done: Trial[] = [];
      for (const connections of connectionCounts) {
        for (let sample = 1; sample <= this.options.samples; sample++) {
          const trial = await this.measureTrial(target, scenario, round, running, {
            connections,
            sample,
          });
          if (!trial) return;
          done.push(trial);
        }
      }
      if (this.options.rates.length > 0) {
        const best = bestTrial(done);
        const ctx = this.rateContext(target, scenario, running, best.connections);
        if (!(await runRates(ctx, app.name, scenario, round, best))) {
          this.fail(app.name, ctx.died() ?? "the app exited during a rate trial");
          return;
        }
      }
      if (this.options.search && round === this.options.trials) {
        if (!(await this.searchApp(target, scenario, round, running, bestTrial(done)))) return;
      }
    }
  }

  /** Unrecorded load at the largest connection count; false when the run must stop. */
  async warmUp(target: Target, scenario: Scenario, running: RunningApp): Promise<boolean> {
    const { app } = target;
    const { warmupSec, connections } = this.options;
    log(`  ${app.name} · ${scenario.name}: warm-up ${warmupSec} s (not recorded)`);
    const warm = await this.load(target, scenario, warmupSec, connections);
    if (this.interrupted) return false;
    if (running.hasExited()) {
      this.fail(app.name, `exited (${await running.exited}) during warm-up of ${scenario.name}`);
      return false;
    }
    if (warm.problem) log(`  ${app.name} · ${scenario.name}: warm-up problem: ${warm.problem}`);
    return true;
  }

  /** One recorded trial; undefined when the run must stop (interrupted, or the app died). */
  async measureTrial(
    target: Target,
    scenario: Scenario,
    round: number,
    running: RunningApp,
    { connections, sample }: { connections: number; sample: number },
  ): Promise<Trial | undefined> {
    const { app } = target;
    const { durationSec, samples, connectionCounts } = this.options;
    const at = connectionCounts.length > 1 ? `, ${connections} connections` : "";
    const of = samples > 1 ? `sample ${sample}/${samples}` : "sample";
    log(`  ${app.name} · ${scenario.name}: round ${round}, ${of}, ${durationSec} s${at}`);
    const startedAt = new Date().toISOString();
    const run = await this.load(target, scenario, durationSec, connections);
    if (this.interrupted) return undefined; // a trial cut short is no trial
    this.slotsDone++;
    const died = running.hasExited()
      ? `the app exited (${await running.exited}) during the trial`
      : undefined;
    const lost = (run.workers ?? []).filter((w) => !w.alive).map((w) => w.pid);
    const workerDied =
      lost.length > 0
        ? `worker ${lost.join(", ")} of ${target.workerCount} exited during the trial`
        : undefined;
    const trial = {
      ...this.trialOf(target, scenario, round, startedAt, run, died ?? workerDied),
      ...(samples > 1 ? { sample } : {}),
    };
    this.recorder.addTrial(trial);
    log(progressLine(trial, this.options.tool.name));
    if (died) {
      this.fail(app.name, died);
      return undefined;
    }
    if (workerDied) {
      // Invalid, and this app's round ends here; the next round starts it afresh.
      log(`  ${app.name}: ${workerDied}; its next trials wait for the next round`);
      return undefined;
    }
    return trial;
  }

  profileContext(): ProfileContext {
    const { outDir, warmupSec, durationSec, scenarios } = this.options;
    return {
      ...this.afterRounds(),
      outDir,
      warmupSec,
      durationSec,
      scenarios,
      record: (profile) => this.recorder.addProfile(profile),
      load: (app, serverTree, scenario, seconds) =>
        this.load({ app, workerCount: 1, serverTree }, scenario, seconds, this.options.connections),
      serverTree: async (app, running) => {
        const server = await this.host.target(app, running.pid, 1);
        return typeof server === "string" ? [running.pid] : server.tree;
      },
    };
  }

  rateContext(
    target: Target,
    scenario: Scenario,
    running: RunningApp,
    connections: number,
  ): RateContext {
    const { options, pinning } = this;
    const tool = options.rateTool as ToolInfo;
    return {
      rates: options.rates,
      tool,
      durationSec: options.durationSec,
      pinned: pinning.enabled,
      loadCores: pinning.loadCores,
      serverCores: pinning.serverCores,
      sloP99Ms: options.sloP99Ms,
      load: (rate) => this.load(target, scenario, options.durationSec, connections, { tool, rate }),
      floor: async () => undefined,
      add: (trial) => this.recorder.addRateTrial(trial),
      addSearch: (search) => this.recorder.addSearch(search),
      log,
      died: () => (running.hasExited() ? "the app exited during a rate trial" : undefined),
      interrupted: () => this.interrupted !== undefined,
    };
  }

  /**
   * --rates search in the last round, from the app's best valid closed-loop req/s over all
   * rounds; false when the app died. The generator-floor server lives as long as the search.
   */
  async searchApp(
    target: Target,
    scenario: Scenario,
    round: number,
    running: RunningApp,
    last: Trial,
  ): Promise<boolean> {
    const { app } = target;
    const closed = this.recorder.results.trials
      .filter((t) => t.app === app.name && t.scenario === scenario.name && t.checks.valid)
      .filter((t) => (t.workers ?? 1) === target.workerCount)
      .map((t) => t.result?.rps ?? 0);
    const best = Math.max(0, ...closed);
    if (!(best > 0)) {
      log(`  ${app.name} · ${scenario.name}: search skipped: no valid closed-loop req/s`);
      return true;
    }
    const ctx = this.rateContext(target, scenario, running, last.connections);
    const cpus = serverPinning(this.pinning, target.workerCount);
    let floor: Floor | undefined;
    let noFloor = false; // a floor server that failed to start is not tried again
    const floorP99 = async (rate: number): Promise<number | undefined> => {
      if (noFloor) return undefined;
      try {
        floor ??= await startFloor(
          `http://127.0.0.1:${app.port}`,
          scenario,
          this.bodyFiles.get(scenario.name),
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
      const run = await this.load(
        target,
        floorScenario,
        this.options.durationSec,
        last.connections,
        open,
      );
      return floorOf(run, rate, this.options.durationSec);
    };
    try {
      if (await runSearch({ ...ctx, floor: floorP99 }, app.name, scenario, round, best))
        return true;
      this.fail(app.name, ctx.died() ?? "the app exited during a search trial");
      return false;
    } finally {
      await (floor as Floor | undefined)?.stop();
    }
  }

  async recordStartup(
    app: AppSpec,
    running: RunningApp,
    fresh: boolean,
    workers: number,
    idle = true,
  ): Promise<void> {
    const startup = await measureStartup(this.host, app, running, fresh, workers, idle);
    if (startup) this.recorder.addStartup(app.name, startup);
    else log(`  ${app.name}: its first answer to GET / was not the greeting: no start-up figures`);
  }

  /**
   * --calibrate, before the rounds: the base app's CPU cost per request (median of a few
   * unrecorded samples after its warm-up) and the extra-work loop's speed on the server's CPU.
   */
  async sizeCalibration(): Promise<Sizing> {
    const app = calibrationBase(this.options.apps[0] as AppRun);
    const cpus = serverPinning(this.pinning, 1);
    const running = await this.host.start(app, this.startOptions(1));
    try {
      const server = await this.host.target(app, running.pid, 1);
      if (typeof server === "string") throw new Error(server);
      const target = { app, workerCount: 1, serverTree: server.tree };
      const scenario = this.options.scenarios[0] as Scenario;
      const { connections, durationSec, warmupSec } = this.options;
      log(`bench: calibration: sizing ${app.name}'s cost per request (not recorded)`);
      await this.load(target, scenario, Math.max(1, warmupSec), connections);
      const samples: { cpuPercent: number; rps: number }[] = [];
      for (let i = 0; i < SIZING_SAMPLES && !this.interrupted; i++) {
        const run = await this.load(target, scenario, durationSec, connections);
        if (run.result)
          samples.push({ cpuPercent: run.rates.serverCpuPercent, rps: run.result.rps });
      }
      return { costPerRequestNs: costPerRequestNs(samples), nsPerIteration: spinSpeed(cpus) };
    } finally {
      await running.stop();
    }
  }

  /** The calibration rows replace the run's one app, in the options and in results.json. */
  useApps(apps: AppRun[], sizing: Sizing): void {
    this.options = { ...this.options, apps };
    const results = newResults(this.options, this.pinning);
    const r = this.recorder.results;
    r.apps = results.apps;
    r.manifest.settings.apps = results.manifest.settings.apps;
    r.manifest.calibration = {
      app: (apps[0] as AppRun).name,
      ...sizing,
      // The rates are for a run of the default length: half of a calibration's rounds (and
      // never fewer than give an interval).
      subsampleRounds: Math.max(MIN_CI_PROCESSES, Math.floor(this.options.trials / 2)),
    };
    this.recorder.save();
  }

  /**
   * --side-by-side: the pairs of the run (side/pairing.ts) from its rows, which become the
   * rows of results.json (an A/A's second row joins them) with the pairs in the manifest.
   */
  planSide(): SidePair[] {
    const { side, builds, calibrate } = this.options;
    const perApp = builds.length > 0 || calibrate || side?.against !== undefined;
    const plan = planPairs(this.options.apps, perApp, side?.reference);
    const known = new Map(this.recorder.results.apps.map((a) => [a.name, a]));
    this.options = { ...this.options, apps: plan.rows };
    const fresh = newResults(this.options, this.pinning);
    const r = this.recorder.results;
    r.apps = fresh.apps.map((a) => known.get(a.name) ?? a);
    r.manifest.settings.apps = fresh.manifest.settings.apps;
    const against = plan.rows.find((a) => a.checkout)?.checkout;
    r.manifest.settings.sideBySide = {
      pairs: plan.pairs.map((p) => [p.reference.name, p.app.name]),
      addresses: [...SLOT_ADDRESSES],
      ...(against ? { against: { ref: against.ref, commit: against.commit } } : {}),
      ...(side?.threshold !== undefined ? { threshold: side.threshold } : {}),
    };
    this.recorder.save();
    return plan.pairs;
  }

  /** What the passes after the rounds (--startup, --profile) need from the run. */
  afterRounds(): AfterRounds {
    return {
      apps: this.options.apps,
      host: this.host,
      startOptions: this.startOptions(this.options.workers),
      failed: (name) => this.recorder.app(name).status === "failed",
      fail: (name, why) => this.fail(name, why),
      interrupted: () => this.interrupted !== undefined,
      log,
    };
  }
}

/** The trial's CPU time per request, where the host read schedstat. */
function withNsPerRequest(rates: LoadRun["rates"], rps: number | undefined) {
  const ns = nsPerRequest(rates, rps);
  return ns === undefined ? {} : { cpuNsPerRequest: ns };
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

/** A row of a version matrix must run the version it was asked for: a contract failure if not. */
export function versionMismatch(
  app: AppRun,
  reported: unknown,
): { check: string; detail: string } | undefined {
  const asked = app.build?.version;
  if (asked === undefined || reported === asked) return undefined;
  return {
    check: "runtime version",
    detail: `${app.name} must run on ${app.runtime} ${asked}, but the process reports ${JSON.stringify(reported)}`,
  };
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

/** A search's trials, its floors included (about 15), spread over the slots of every round. */
function searchShare(options: Options): number {
  return options.search ? 15 / options.trials : 0;
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

function announce(run: Run): void {
  const { tool, apps, scenarios, trials, durationSec, warmupSec, connectionCounts } = run.options;
  log(
    `bench: ${tool.name} ${tool.version} · ${apps.length} app(s) × ${scenarios.length} scenario(s) · ` +
      (run.options.precision
        ? `rounds until ±${run.options.precision.target * 100}% or ${formatSec(run.options.precision.maxTimeSec)} (at least ${trials})`
        : `${trials} round(s)`) +
      ` · per process ${warmupSec} s warm-up, then ${run.options.samples} × ${durationSec} s samples · ${connectionCounts.join(", ")} connections` +
      (run.options.side
        ? " per app, two apps at once: side by side on the server's CPUs, each with its own load generator · "
        : " · ") +
      pinningText(run.recorder.results),
  );
  log(`bench: results → ${run.recorder.path}`);
}

/** One round: every app at every worker count takes its turn in the interleaved order. */
async function runRound(run: Run, round: number): Promise<void> {
  const { options } = run;
  const turns = options.apps.flatMap((app) =>
    options.workerCounts.map((workers) => ({ app, workers, name: app.name })),
  );
  for (const { app, workers } of roundOrder(turns, round)) {
    if (run.interrupted || run.host.lost()) break;
    if (run.recorder.app(app.name).status === "failed") continue;
    await run.runApp(app, round, workers);
  }
}

/** The rounds of a run one app at a time (rounds.ts decides how many). */
function oneAtATime(run: Run): Promise<void> {
  const left = () => run.options.apps.some((a) => run.recorder.app(a.name).status !== "failed");
  return runRounds({
    options: run.options,
    recorder: run.recorder,
    done: () => run.interrupted !== undefined || run.host.lost() !== undefined || !left(),
    interrupted: () => run.interrupted !== undefined,
    round: (n) => runRound(run, n),
    log,
  });
}

/** --against: each app as the commit has it beside this checkout's (a CheckoutError if it cannot be). */
async function withAgainst(options: Options): Promise<Options> {
  const ref = options.side?.against;
  if (ref === undefined) return options;
  const checkout = await prepareCheckout(REPO_ROOT, ref, log);
  return { ...options, apps: withCheckout(options.apps, checkout) };
}

/** --node/--bun/--deno: every version resolved and installed, or a RuntimeError saying why not. */
async function installBuilds(options: Options): Promise<RuntimeBuild[]> {
  if (Object.keys(options.runtimeVersions).length === 0) return [];
  const builds = await prepareRuntimes(options.runtimeVersions, runtimeCache(REPO_ROOT), log);
  for (const b of builds) {
    log(`bench: --${b.runtime} ${b.asked}: ${b.runtime} ${b.version} (${b.binary})`);
  }
  return builds;
}

/**
 * ./benchmark.sh's command line (benchmark.sh only bootstraps Bun and hands it over): the help
 * text, a report from earlier results, or a run. BENCH_CWD: where the user is (benchmark.sh
 * runs this from the checkout), so that paths on the command line are theirs.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    const command = commandOf(argv, process.env, process.env.BENCH_CWD ?? process.cwd());
    if (command.kind === "help") {
      console.log(helpText());
      return 0;
    }
    if (command.kind === "report") return runCli([...command.argv]);
    return await measureRun(command.values, argv);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof EnvironmentError)) throw error;
    // One line with the cause; for a usage error one more pointing at the flags (the full
    // usage would scroll the cause away).
    log(`benchmark.sh: ${error.message}`);
    if (error instanceof UsageError) log("Run './benchmark.sh --help' for the flags.");
    return 2;
  }
}

/** A run: its options checked, runtimes and a commit prepared, then measured. */
async function measureRun(values: Values, argv: string[]): Promise<number> {
  let options: Options;
  // Ctrl-C or TERM while runtimes install: stop npm's whole tree; the install cleans up.
  let stoppedBy: NodeJS.Signals | undefined;
  const stopInstalls = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    stopAllWatched();
  };
  process.on("SIGINT", stopInstalls);
  process.on("SIGTERM", stopInstalls);
  try {
    const parsed = parseOptions(values, argv, log);
    if (parsed.apiAdded) {
      log("bench: api added: each middleware stage's cost is measured against it");
    }
    options = await withAgainst(withBuilds(parsed, await installBuilds(parsed)));
  } catch (error) {
    if (error instanceof UsageError || error instanceof EnvironmentError) throw error;
    log(`bench: ${error instanceof Error ? error.message : String(error)}`);
    if (stoppedBy) return stoppedBy === "SIGINT" ? 130 : 143;
    return 2;
  } finally {
    process.off("SIGINT", stopInstalls);
    process.off("SIGTERM", stopInstalls);
  }
  if (stoppedBy) return stoppedBy === "SIGINT" ? 130 : 143;
  const host = await serverHost(options);
  if (typeof host === "string") {
    log(`bench: ${host}`);
    return 2;
  }
  const plan = pinningPlan(options.pin, host.info.cores, host.info.hasTaskset, options.workers);
  if (options.side && !plan.enabled) {
    // Unpinned, nothing says whether the servers' core was saturated: no sample could be judged.
    log(
      `bench: --side-by-side needs the servers' core pinned, apart from the generators': ${plan.note}`,
    );
    await host.close();
    return 2;
  }
  let postgres: PostgresServer | undefined;
  try {
    postgres = await databaseServer(options, plan);
    return await measure(new Run(options, host, postgres));
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    log(`bench: ${error.message}`);
    return 1;
  } finally {
    await postgres?.stop();
    await host.close();
  }
}

/** This machine, or --server-host's over SSH; a string: why it cannot be used (one line). */
async function serverHost(options: Options): Promise<ServerHost | string> {
  if (!options.server) return localHost();
  log(`bench: connecting to ${options.server.destination} over SSH (the apps run there)`);
  try {
    const host = await connectRemote(options.server, gitInfo(REPO_ROOT).commit, log);
    const r = host.record;
    log(
      `bench: server host ${r.name} (${r.address}): ${r.machine.cores} cores, ${r.machine.kernel}; ` +
        `round trip ${r.rttMs.toFixed(3)} ms` +
        (r.linkMbps.load ? `, link ${r.linkMbps.load} Mbit/s` : ""),
    );
    return host;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The run proper, once the options are known and the server's host is reached. */
async function measure(run: Run): Promise<number> {
  const { options } = run;
  if (options.calibrate) {
    try {
      const sizing = await run.sizeCalibration();
      if (!(sizing.costPerRequestNs > 0 && sizing.nsPerIteration > 0)) {
        throw new Error(`the sizing measured nothing usable (${JSON.stringify(sizing)})`);
      }
      const shares = options.side ? SIDE_CALIBRATION_SHARES : CALIBRATION_SHARES;
      const rows = calibrationRows(options.apps[0] as AppRun, sizing, shares);
      run.useApps(rows, sizing);
      const works = rows.flatMap((a) =>
        a.extraWork ? [`${a.name}: ${a.extraWork.iterations}`] : [],
      );
      log(
        `bench: calibration: ${Math.round(sizing.costPerRequestNs)} ns of server CPU per request, ` +
          `${sizing.nsPerIteration.toFixed(2)} ns per loop iteration; extra iterations ${works.join(", ")}`,
      );
    } catch (error) {
      log(`bench: calibration: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  if (run.pinning.enabled && run.pinning.loadCpus) {
    // The harness samples /proc while a trial runs: keep it off the server's CPU too.
    execFileSync("taskset", ["-a", "-p", "-c", run.pinning.loadCpus, String(process.pid)], {
      stdio: "ignore",
    });
  }
  process.on("SIGINT", (signal) => run.interrupt(signal));
  process.on("SIGTERM", (signal) => run.interrupt(signal));
  announce(run);
  if (options.side) await runPairRounds(run, run.planSide());
  else await oneAtATime(run);
  if (!run.interrupted && options.startups > 0) {
    await extraStarts({
      ...run.afterRounds(),
      count: options.startups,
      start: (app, running) => run.recordStartup(app, running, true, options.workers),
    });
  }
  if (options.profile && !run.interrupted) await profileApps(run.profileContext());
  const { summary, reports } = run.recorder.finish(
    run.interrupted ? "interrupted" : "complete",
    options.outDir,
  );
  process.stdout.write(`\n${summary}\n`);
  log(`\nbench: results in ${run.recorder.path}; reports: ${reports.join(", ")}`);
  if (run.interrupted) return run.interrupted === "SIGINT" ? 130 : 143;
  const lost = run.host.lost();
  if (lost) log(`bench: ${lost}: the run stopped there; the finished trials are kept`);
  const results = run.recorder.results;
  const exported = options.exportBmf ? exportBmf(options.exportBmf, results) : true;
  const failed = !exported || lost !== undefined || results.apps.some((a) => a.status === "failed");
  const invalid =
    results.trials.some((t) => !t.checks.valid) ||
    (results.rateTrials ?? []).some((t) => !t.valid) ||
    (results.pairTrials ?? []).some((t) => !t.checks.valid);
  return failed || invalid || slowerThanAgainst(analyze(results)) ? 1 : 0;
}

/**
 * --export bmf FILE after a finished run: false, and why, when it cannot be written (the run's
 * own results and reports are already saved; the exit status says the export failed).
 */
function exportBmf(file: string, results: Results): boolean {
  try {
    writeBmf(file, analyze(results));
    log(`bench: Bencher Metric Format → ${file}`);
    return true;
  } catch (error) {
    log(`bench: --export bmf ${file} failed: ${error instanceof Error ? error.message : error}`);
    return false;
  }
}

/** --against: some app is slower than at the commit it was compared with (the gate's verdict). */
function slowerThanAgainst(analysis: ReturnType<typeof analyze>): boolean {
  return [...(analysis.side?.groups.values() ?? [])].some((g) =>
    g.rows.some((r) => r.gate?.verdict === "regression"),
  );
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
