// One run's state and what every measurement needs of it: its options, pinning, host and
// recorder; starting, verifying and loading an app; failing one; what the rates, the profiles
// and the passes after the rounds get of it. app-turn.ts measures an app's turn with it.

import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import {
  type AppName,
  type AppSpec,
  H2C_ENV,
  H2C_UNSUPPORTED,
  h2cPort,
  isH2c,
  loadedByWsLoad,
  ROUTES,
  type Scenario,
  TLS_ENV,
  tlsPort,
} from "@bench/contract";
import { verify } from "@bench/contract/check";
import { databaseRecord } from "../apps/app-db.ts";
import type { RunCertificate } from "../apps/certificate.ts";
import type { RunningApp, StartOptions } from "../apps/launch.ts";
import { portOpen } from "../apps/port-open.ts";
import type { PostgresServer } from "../apps/postgres-server.ts";
import { type AfterRounds, measureStartup } from "../apps/startup-run.ts";
import { cpuList, type Pinning, pinningPlan, remotePlan, serverPinning } from "../common/plan.ts";
import { localHost, type ServerHost } from "../hosts/host.ts";
import { runLoad } from "../load/load.ts";
import { type LoadRun, nsPerRequest } from "../load/measure.ts";
import { type ToolInfo, toolCommand } from "../load/tools.ts";
import type { ProfileContext } from "../profiles/profiled-trials.ts";
import type { RateContext } from "../rates/open-loop.ts";
import { type AppRun, registryName } from "../runtimes/runtime-versions.ts";
import { PROCESS_COST_SEC } from "./flags.ts";
import type { Options } from "./options.ts";
import { newResults, Recorder } from "./record.ts";

export const log = (message: string) => process.stderr.write(`${message}\n`);

/** How long an app may take to open its TLS or h2c port after its plain one. */
const OTHER_PORT_WAIT_MS = 10_000;

export type MeasuredRun = LoadRun & {
  readonly threads: number;
  readonly connections: number;
  /** The most answers in flight, when more than the connections (ToolCommand.inFlight). */
  readonly inFlight?: number;
};

export interface Target {
  readonly app: AppSpec;
  readonly serverTree: readonly number[];
  /** Processes serving the port (--workers; 1: the server itself). */
  readonly workerCount: number;
  /** workerCount > 1: the worker processes (also in serverTree, after the primary). */
  readonly workers?: readonly number[];
}

export class Run {
  options: Options;
  readonly pinning: Pinning;
  readonly recorder: Recorder;
  readonly bodyFiles = new Map<string, string>();
  /** Where the apps run: this machine, or --server-host's. */
  readonly host: ServerHost;
  interrupted: NodeJS.Signals | undefined;
  /** The load generators running now (two in a side-by-side sample): stopped on Ctrl-C. */
  tools: ChildProcess[] = [];
  /** Samples measured so far: what timeLeft() counts from. */
  slotsDone = 0;

  /** --db postgres: the server every app process gets its own database from. */
  readonly postgres: PostgresServer | undefined;

  /** Apps whose WebSocket probe ran: once per app and run (its bad clients cost seconds). */
  readonly wsProbed = new Set<string>();

  /** A run with the tls scenario: the certificate every app process serves HTTPS with. */
  readonly certificate: RunCertificate | undefined;

  constructor(
    options: Options,
    host: ServerHost = localHost(),
    postgres?: PostgresServer,
    certificate?: RunCertificate,
  ) {
    this.options = options;
    this.postgres = postgres;
    this.certificate = certificate;
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

  /** An app that cannot serve a scenario (the contract's reason): shown so, once per run. */
  notSupported(name: string, scenario: string, reason: string): void {
    const cells = this.recorder.results.unsupported ?? [];
    if (cells.some((c) => c.app === name && c.scenario === scenario)) return;
    this.recorder.results.unsupported = [...cells, { app: name, scenario, reason }];
    this.recorder.save();
    log(`  ${name} · ${scenario}: not supported: ${reason}`);
  }

  fail(name: string, failure: string): void {
    this.recorder.update(name, { status: "failed", failure });
    log(`  ${name}: FAILED: ${failure}`);
  }

  timeLeft(): number {
    const { apps, scenarios, rounds, warmupSec, durationSec, samples } = this.options;
    const pending = this.recorder.results.apps.filter((a) => a.status !== "failed").length;
    const counts = this.options.connectionCounts.length;
    const turns = apps.length * this.options.workerCounts.length;
    const perProcess = scenarios.length * counts * samples;
    const remaining = turns * rounds * perProcess - this.slotsDone;
    // Each process's start, verification and stop, on top of the load.
    const starts = Math.ceil(remaining / perProcess) * PROCESS_COST_SEC;
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
    const tool = open?.tool ?? this.toolFor(scenario);
    const cmd = toolCommand(tool, {
      ...(open ? { rate: open.rate } : {}),
      url: open?.port
        ? `http://127.0.0.1:${open.port}${scenario.path}`
        : `${this.origin(target.app, scenario)}${scenario.path}`,
      scenario,
      connections,
      durationSec: seconds,
      ...(bodyFile ? { bodyFile } : {}),
      ...(this.pinning.enabled ? { cpus: this.pinning.loadCpus } : {}),
      cores: this.pinning.loadCores,
      processes: target.workerCount,
      ...(this.caFile ? { caFile: this.caFile } : {}),
    });
    const pinning = serverPinning(this.pinning, target.workerCount);
    const sampled = {
      serverTree: target.serverTree,
      serverCpus: pinning.enabled ? cpuList(pinning.serverCpus) : [],
      machineCores: this.host.info.cores,
      host: this.host,
      ...(target.workers
        ? { workers: { pids: target.workers, port: this.portOf(target.app, scenario) } }
        : {}),
      ...(this.postgres && scenario.database ? { database: this.postgres.pid } : {}),
    };
    return runLoad(tool, cmd, seconds, sampled, (child) => {
      this.tools = child ? [child] : [];
    }).then((run) => ({
      ...run,
      threads: cmd.threads,
      connections: cmd.connections,
      ...(cmd.inFlight ? { inFlight: cmd.inFlight } : {}),
    }));
  }

  /**
   * The closed-loop generator of a scenario: ws-load for WebSocket and new TLS connections
   * (loadedByWsLoad), the run's tool for the rest.
   */
  toolFor(scenario: Scenario): ToolInfo {
    if (!loadedByWsLoad(scenario)) return this.options.tool;
    const tool = this.options.wsTool;
    if (!tool) throw new Error(`no ws-load for the ${scenario.name} scenario (options.wsTool)`);
    return tool;
  }

  /**
   * The port a scenario's requests go to: the app's, its TLS port for a TLS scenario, or its h2c
   * port (the plain one where its server shares it, else port + 2000).
   */
  portOf(app: AppSpec, scenario: Scenario): number {
    if (scenario.tls) return tlsPort(app.port);
    return isH2c(scenario) ? h2cPort({ name: registryName(app.name), port: app.port }) : app.port;
  }

  /** A run of the h2c scenario: the apps open their h2c port (BENCH_H2C), and verify() uses it. */
  get h2c(): boolean {
    return this.options.scenarios.some(isH2c);
  }

  /**
   * Where a scenario's requests go: http://ADDRESS:PORT, https:// to the TLS port, or ws://;
   * at the server host's address, or at `address` (a side-by-side slot's).
   */
  origin(app: AppSpec, scenario: Scenario, address = this.host.address): string {
    const scheme = scenario.tls ? "https" : scenario.websocket ? "ws" : "http";
    return `${scheme}://${address}:${this.portOf(app, scenario)}`;
  }

  /**
   * The run's certificate file, given to a TLS scenario's generator (LoadPlan.caFile): ws-load
   * pins it; oha is given --insecure instead.
   */
  get caFile(): string | undefined {
    return this.certificate?.env[TLS_ENV.cert];
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
      ...(this.certificate || this.h2c
        ? { env: { ...this.certificate?.env, ...(this.h2c ? { [H2C_ENV]: "1" } : {}) } }
        : {}),
    };
  }

  /** A run with a WebSocket scenario probes each app's WebSocket at its first start. */
  probeWebSocket(name: string): boolean {
    if (!this.options.scenarios.some((s) => s.websocket) || this.wsProbed.has(name)) return false;
    this.wsProbed.add(name);
    return true;
  }

  /**
   * The ports an app opens beside its plain one in this run, each after its own: the TLS port
   * given the certificate (on Node once node:http2 is loaded), the h2c port where it is one of
   * its own and the app serves h2c.
   */
  otherPorts(app: AppRun): [string, number][] {
    const ports: [string, number][] = [];
    if (this.certificate) ports.push(["TLS", tlsPort(app.port)]);
    const name = registryName(app.name);
    const h2c = h2cPort({ name, port: app.port });
    if (this.h2c && h2c !== app.port && H2C_UNSUPPORTED[name as AppName] === undefined) {
      ports.push(["h2c", h2c]);
    }
    return ports;
  }

  /** The contract, then the runtime as the app reports it; undefined when it fails. */
  async verifyApp(
    app: AppRun,
    running: RunningApp,
    workerCount: number,
    address = this.host.address,
  ): Promise<Target | undefined> {
    const url = `http://${address}:${app.port}`;
    for (const [what, port] of this.otherPorts(app)) {
      if (await portOpen(address, port, OTHER_PORT_WAIT_MS)) continue;
      this.fail(app.name, `its ${what} port ${port} did not open within 10 s`);
      return undefined;
    }
    const violations = await verify(url, registryName(app.name), {
      processes: workerCount,
      ...(running.database ? { database: running.database } : {}),
      ...(this.certificate ? { tlsCa: this.certificate.pem } : {}),
      ...(this.options.scenarios.some((s) => s.http2 && s.tls) ? { http2: true } : {}),
      ...(this.h2c ? { h2c: true } : {}),
      ...(this.probeWebSocket(app.name) ? { websocket: true } : {}),
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
export function withNsPerRequest(rates: LoadRun["rates"], rps: number | undefined) {
  const ns = nsPerRequest(rates, rps);
  return ns === undefined ? {} : { cpuNsPerRequest: ns };
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

/** A search's trials, its floors included (about 15), spread over the slots of every round. */
function searchShare(options: Options): number {
  return options.search ? 15 / options.rounds : 0;
}
