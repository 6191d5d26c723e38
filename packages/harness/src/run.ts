// The measuring half of ./benchmark.sh, which checks the flags and the environment and then
// hands over here. For each round, for each app (order reversed every other round): start it,
// verify it, then per scenario warm up and measure one trial; stop it, leaving nothing behind.
// results.json is rewritten after every trial, so an interrupted run keeps what it finished.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  type AppSpec,
  descendantsOf,
  executableOf,
  findApp,
  findScenario,
  pidsListeningOn,
  ROUTES,
  type Scenario,
  verify,
} from "@bench/contract";
import { LaunchError, REPO_ROOT, type RunningApp, startApp } from "./launch.ts";
import { gitInfo, lockfileVersions, machineInfo } from "./manifest.ts";
import { type LoadResult, PARSERS, ParseError, type ToolName } from "./parse.ts";
import { percentOfOneCore, RssSampler, reapedChildrenTicks, treeCpuTicks } from "./procstats.ts";
import { writeReports } from "./report/files.ts";
import { type AppRecord, type Results, SCHEMA_VERSION, type Trial } from "./schema.ts";
import { formatSummary } from "./summary.ts";
import { type ToolInfo, toolCommand, toolVersion } from "./tools.ts";

/** A trial is invalid when more than this share of its requests failed (0.01 %). */
export const ERROR_THRESHOLD = 0.0001;
/** The load generator is saturated at this share of the cores it can use... */
const LOAD_BUSY = 0.9;
/** ...and a (single event loop) server at this share of one core. */
const SERVER_BUSY = 0.85;
/** Little's law: in-flight requests / connections outside this range is a gross violation. */
const LITTLE_RANGE = [0.5, 1.5] as const;

interface Options {
  apps: AppSpec[];
  scenarios: Scenario[];
  durationSec: number;
  warmupSec: number;
  connections: number;
  trials: number;
  tool: ToolInfo;
  outDir: string;
  pin: boolean;
  appsRoot: string;
  argv: string[];
}

class UsageError extends Error {}

function positiveInt(value: string | undefined, flag: string, min = 1): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function parseOptions(argv: string[]): Options {
  // Everything after "--" is the user's own command line, recorded as given.
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      apps: { type: "string" },
      scenarios: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      trials: { type: "string" },
      tool: { type: "string" },
      "tool-path": { type: "string" },
      out: { type: "string" },
      "no-pin": { type: "boolean", default: false },
      "apps-root": { type: "string" },
    },
  });
  const apps = (values.apps ?? "")
    .split(",")
    .filter(Boolean)
    .map((name) => {
      const app = findApp(name);
      if (!app) throw new UsageError(`unknown app "${name}"`);
      return app;
    });
  const scenarios = (values.scenarios ?? "")
    .split(",")
    .filter(Boolean)
    .map((name) => {
      const scenario = findScenario(name);
      if (!scenario) throw new UsageError(`unknown scenario "${name}"`);
      return scenario;
    });
  if (apps.length === 0) throw new UsageError("--apps names no app");
  if (scenarios.length === 0) throw new UsageError("--scenarios names no scenario");
  const toolName = values.tool as ToolName;
  if (!["oha", "wrk", "autocannon"].includes(toolName))
    throw new UsageError(`unknown tool ${toolName}`);
  const toolPath = values["tool-path"];
  if (!toolPath || !existsSync(toolPath))
    throw new UsageError(`--tool-path ${toolPath} does not exist`);
  if (!values.out) throw new UsageError("--out is required");
  return {
    apps,
    scenarios,
    durationSec: positiveInt(values.duration, "--duration"),
    warmupSec: positiveInt(values.warmup, "--warmup", 0),
    connections: positiveInt(values.connections, "--connections"),
    trials: positiveInt(values.trials, "--trials"),
    tool: { name: toolName, path: toolPath, version: toolVersion(toolName, toolPath) },
    outDir: resolve(values.out),
    pin: !values["no-pin"],
    appsRoot: resolve(values["apps-root"] ?? REPO_ROOT),
    argv: positionals,
  };
}

function hasTaskset(): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => existsSync(join(dir, "taskset")));
}

function pinningPlan(pin: boolean) {
  const cores = availableParallelism();
  if (!pin) return { enabled: false, note: "--no-pin", serverCores: cores, loadCores: cores };
  if (cores < 2) return { enabled: false, note: "1 core", serverCores: 1, loadCores: 1 };
  if (!hasTaskset()) {
    return {
      enabled: false,
      note: "taskset not installed (util-linux)",
      serverCores: cores,
      loadCores: cores,
    };
  }
  const loadCpus = cores === 2 ? "1" : `1-${cores - 1}`;
  return { enabled: true, serverCpus: "0", loadCpus, serverCores: 1, loadCores: cores - 1 };
}

const log = (message: string) => process.stderr.write(`${message}\n`);

function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** Write-then-rename, so a reader (or a crash) never sees half a file. */
function writeJson(path: string, value: unknown): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

interface LoadRun {
  command: string[];
  result: LoadResult | null;
  problem?: string;
  wallSec: number;
  serverTicks: number;
  loadTicks: number;
  peakRss: number;
  capacityCores: number;
}

export async function main(argv: string[]): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    log(`bench: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const { apps, scenarios, tool, outDir } = options;
  mkdirSync(outDir, { recursive: true });
  const resultsPath = join(outDir, "results.json");
  const pinning = pinningPlan(options.pin);
  if (pinning.enabled && pinning.loadCpus) {
    // The harness samples /proc while a trial runs: keep it off the server's CPU too.
    execFileSync("taskset", ["-a", "-p", "-c", pinning.loadCpus, String(process.pid)], {
      stdio: "ignore",
    });
  }

  // Bodies go next to the results: what was sent is part of what was measured.
  const bodyFiles = new Map<string, string>();
  for (const scenario of scenarios) {
    if (scenario.body === undefined) continue;
    const file = join(outDir, `body-${scenario.name}.json`);
    writeFileSync(file, scenario.body);
    bodyFiles.set(scenario.name, file);
  }

  const results: Results = {
    schemaVersion: SCHEMA_VERSION,
    status: "running",
    startedAt: new Date().toISOString(),
    manifest: {
      tool: { name: tool.name, version: tool.version, path: tool.path },
      settings: {
        apps: apps.map((a) => a.name),
        scenarios: scenarios.map((s) => s.name),
        durationSec: options.durationSec,
        warmupSec: options.warmupSec,
        connections: options.connections,
        trials: options.trials,
        keepAlive: true,
        errorThreshold: ERROR_THRESHOLD,
        argv: options.argv,
      },
      pinning: {
        enabled: pinning.enabled,
        ...(pinning.serverCpus
          ? { serverCpus: pinning.serverCpus, loadCpus: pinning.loadCpus }
          : {}),
        ...(pinning.note ? { note: pinning.note } : {}),
      },
      machine: machineInfo(),
      versions: { lockfile: lockfileVersions(REPO_ROOT), harnessBun: Bun.version },
      git: gitInfo(REPO_ROOT),
    },
    apps: apps.map((a) => ({
      name: a.name,
      runtime: a.runtime,
      framework: a.framework,
      port: a.port,
      status: "pending" as const,
    })),
    trials: [],
  };
  const save = () => writeJson(resultsPath, results);
  save();

  let interrupted: NodeJS.Signals | undefined;
  let currentTool: ReturnType<typeof spawn> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = signal;
    log(`\nbench: ${signal}: stopping the running app and keeping finished results...`);
    currentTool?.kill("SIGTERM");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const record = (name: string) => results.apps.find((a) => a.name === name) as AppRecord;
  const fail = (name: string, failure: string) => {
    Object.assign(record(name), { status: "failed", failure });
    log(`  ${name}: FAILED: ${failure}`);
    save();
  };

  const slot = options.warmupSec + options.durationSec;
  const totalSlots = apps.length * scenarios.length * options.trials;
  let slotsDone = 0;
  const timeLeft = () => {
    const pending = results.apps.filter((a) => a.status !== "failed").length;
    const remaining = totalSlots - slotsDone;
    // ~3 s per app start (launch, readiness, verify) on top of the load itself.
    const starts = Math.ceil(remaining / Math.max(1, scenarios.length)) * 3;
    return pending === 0 ? 0 : remaining * slot + starts;
  };

  log(
    `bench: ${tool.name} ${tool.version} · ${apps.length} app(s) × ${scenarios.length} scenario(s) × ` +
      `${options.trials} trial(s) · ${options.durationSec} s each after ${options.warmupSec} s warm-up · ` +
      `${options.connections} connections · ` +
      (pinning.enabled
        ? `server on CPU ${pinning.serverCpus}, load on CPU ${pinning.loadCpus}`
        : `not pinned (${pinning.note})`),
  );
  log(`bench: results → ${resultsPath}`);

  async function runLoad(
    app: AppSpec,
    scenario: Scenario,
    durationSec: number,
    serverTree: () => number[],
  ): Promise<LoadRun> {
    const bodyFile = bodyFiles.get(scenario.name);
    const cmd = toolCommand(tool, {
      url: `http://127.0.0.1:${app.port}${scenario.path}`,
      scenario,
      connections: options.connections,
      durationSec,
      ...(bodyFile ? { bodyFile } : {}),
      ...(pinning.enabled ? { cpus: pinning.loadCpus } : {}),
      cores: pinning.loadCores,
    });
    const [file, ...args] = cmd.argv as [string, ...string[]];
    // Servers do not fork under load: find the tree once, so sampling reads a few files only.
    const tree = serverTree();
    const serverTicks0 = treeCpuTicks(tree);
    const loadTicks0 = reapedChildrenTicks();
    const sampler = new RssSampler(() => tree);
    const started = performance.now();
    const child = spawn(file, args, {
      env: { ...process.env, ...cmd.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    currentTool = child;
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-65536);
    });
    // The tool stops itself at the deadline; this bound only catches a hung tool.
    const hardLimitMs = (durationSec + 30) * 1000;
    let hung = false;
    const killer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, hardLimitMs);
    const exit = await new Promise<string>((done) => {
      child.once("exit", (code, signal) => done(signal ?? String(code)));
      child.once("error", (error) => done(`spawn error: ${error.message}`));
    });
    clearTimeout(killer);
    currentTool = undefined;
    const wallSec = (performance.now() - started) / 1000;
    const peakRss = sampler.stop();
    // A server that died mid-trial takes its ticks with it: count none rather than negative.
    const serverTicks = Math.max(0, treeCpuTicks(tree) - serverTicks0);
    const loadTicks = reapedChildrenTicks() - loadTicks0;
    let result: LoadResult | null = null;
    let problem: string | undefined;
    if (hung) problem = `${tool.name} did not finish within ${hardLimitMs / 1000} s and was killed`;
    else {
      try {
        result = PARSERS[tool.name](cmd.resultOn === "stdout" ? stdout : stderr);
      } catch (error) {
        const detail = error instanceof ParseError ? error.message : String(error);
        problem = `${tool.name} exited ${exit}; its output could not be read: ${detail} ${stderr.slice(-300)}`;
      }
    }
    return {
      command: cmd.argv.map(String),
      result,
      ...(problem ? { problem } : {}),
      wallSec,
      serverTicks,
      loadTicks,
      peakRss,
      capacityCores: cmd.capacityCores,
    };
  }

  function judge(run: LoadRun, appDied: string | undefined): Trial["checks"] {
    const reasons: string[] = [];
    const r = run.result;
    if (run.problem) reasons.push(run.problem);
    if (appDied) reasons.push(appDied);
    const failures = r ? r.non2xx + r.socketErrors + r.timeouts : 0;
    const errorRate = r && r.requests > 0 ? failures / r.requests : r ? 1 : 0;
    if (r && r.requests === 0) reasons.push("no responses");
    if (r && errorRate > ERROR_THRESHOLD) {
      reasons.push(
        `${failures} failed requests (${r.non2xx} non-2xx, ${r.socketErrors} socket errors, ` +
          `${r.timeouts} timeouts) = ${(errorRate * 100).toFixed(3)}% > ${ERROR_THRESHOLD * 100}%`,
      );
    }
    const serverCpu = percentOfOneCore(run.serverTicks, run.wallSec);
    const loadCpu = percentOfOneCore(run.loadTicks, run.wallSec);
    const loadBusy = loadCpu >= LOAD_BUSY * 100 * run.capacityCores;
    const serverBusy = serverCpu >= SERVER_BUSY * 100;
    const inFlight = r ? r.rps * (r.latencyMs.mean / 1000) : 0;
    const ratio = inFlight / options.connections;
    // autocannon keeps latencies in whole milliseconds: below ~10 ms its mean is too coarse
    // for the check to mean anything (sub-millisecond latencies come out as 0).
    const checked = r !== null && !(tool.name === "autocannon" && r.latencyMs.mean < 10);
    return {
      errorRate,
      valid: reasons.length === 0,
      invalidReasons: reasons,
      loadGeneratorBound: loadBusy && !serverBusy,
      littlesLaw: {
        inFlight,
        ratio,
        checked,
        ok: !checked || (ratio >= LITTLE_RANGE[0] && ratio <= LITTLE_RANGE[1]),
      },
    };
  }

  async function runApp(app: AppSpec, round: number): Promise<void> {
    log(
      `[round ${round}/${options.trials}] ${app.name}: starting (~${formatDuration(timeLeft())} left)`,
    );
    let running: RunningApp;
    try {
      running = await startApp(app, {
        root: options.appsRoot,
        ...(pinning.enabled ? { cpus: pinning.serverCpus } : {}),
      });
    } catch (error) {
      fail(app.name, error instanceof LaunchError ? error.message : String(error));
      return;
    }
    try {
      await measureApp(app, round, running);
    } catch (error) {
      // Anything unforeseen costs this app, not the run.
      fail(app.name, `harness error: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      const stopped = await running.stop();
      if (stopped.survivors.length > 0) {
        fail(app.name, `processes left running after KILL: ${stopped.survivors.join(", ")}`);
      }
    }
  }

  async function measureApp(app: AppSpec, round: number, running: RunningApp): Promise<void> {
    const url = `http://127.0.0.1:${app.port}`;
    const violations = await verify(url, app.name);
    if (violations.length > 0) {
      Object.assign(record(app.name), { violations });
      fail(
        app.name,
        `violates the contract (${violations.length}): ${violations[0]?.check}: ${violations[0]?.detail}`,
      );
      return;
    }
    const identity = (await (
      await fetch(`${url}${ROUTES.api}`, { signal: AbortSignal.timeout(10_000) })
    ).json()) as {
      runtime: string;
      version: string;
    };
    const serverPid = pidsListeningOn(app.port)[0] ?? running.pid;
    const serverTree = () => [serverPid, ...descendantsOf(serverPid)];
    const exe = executableOf(serverPid);
    Object.assign(record(app.name), {
      status: "ok",
      reportedRuntime: { name: identity.runtime, version: identity.version },
      ...(exe ? { executable: exe } : {}),
    });
    save();

    for (const scenario of scenarios) {
      if (interrupted) return;
      if (options.warmupSec > 0) {
        log(`  ${app.name} · ${scenario.name}: warm-up ${options.warmupSec} s (not recorded)`);
        const warm = await runLoad(app, scenario, options.warmupSec, serverTree);
        if (interrupted) return;
        if (running.hasExited()) {
          fail(app.name, `exited (${await running.exited}) during warm-up of ${scenario.name}`);
          return;
        }
        if (warm.problem) log(`  ${app.name} · ${scenario.name}: warm-up problem: ${warm.problem}`);
      }
      log(
        `  ${app.name} · ${scenario.name}: trial ${round}/${options.trials}, ${options.durationSec} s`,
      );
      const startedAt = new Date().toISOString();
      const run = await runLoad(app, scenario, options.durationSec, serverTree);
      if (interrupted) return; // a trial cut short is no trial
      slotsDone++;
      const died = running.hasExited()
        ? `the app exited (${await running.exited}) during the trial`
        : undefined;
      const checks = judge(run, died);
      const trial: Trial = {
        app: app.name,
        scenario: scenario.name,
        round,
        startedAt,
        command: run.command,
        result: run.result,
        server: {
          pid: serverPid,
          cpuPercent: percentOfOneCore(run.serverTicks, run.wallSec),
          peakRssMiB: run.peakRss / 2 ** 20,
        },
        loadGenerator: {
          cpuPercent: percentOfOneCore(run.loadTicks, run.wallSec),
          capacityCores: run.capacityCores,
        },
        checks,
      };
      results.trials.push(trial);
      save();
      const r = run.result;
      log(
        `  ${app.name} · ${scenario.name}: ` +
          (r
            ? `${Math.round(r.rps).toLocaleString("en-US")} req/s, p99 ${r.latencyMs.p99.toFixed(2)} ms`
            : "no result") +
          `, server ${trial.server.cpuPercent.toFixed(0)}% CPU, ${tool.name} ${trial.loadGenerator.cpuPercent.toFixed(0)}% CPU` +
          (checks.valid ? "" : ` · INVALID: ${checks.invalidReasons.join("; ")}`) +
          (checks.loadGeneratorBound ? " · LOAD-GENERATOR BOUND" : ""),
      );
      if (died) {
        fail(app.name, died);
        return;
      }
    }
  }

  for (let round = 1; round <= options.trials && !interrupted; round++) {
    // Interleave: A B C D, then D C B A, ... so drift of a shared machine hits every app alike.
    const order = round % 2 === 1 ? apps : [...apps].reverse();
    for (const app of order) {
      if (interrupted) break;
      if (record(app.name).status === "failed") {
        slotsDone += scenarios.length;
        continue;
      }
      await runApp(app, round);
    }
  }

  results.status = interrupted ? "interrupted" : "complete";
  results.finishedAt = new Date().toISOString();
  save();
  const summary = formatSummary(results);
  writeFileSync(join(outDir, "summary.txt"), `${summary}\n`);
  process.stdout.write(`\n${summary}\n`);
  const reports = writeReports(resultsPath, results);
  log(`\nbench: results in ${resultsPath}; reports: ${reports.join(", ")}`);

  if (interrupted) return interrupted === "SIGINT" ? 130 : 143;
  const failed = results.apps.some((a) => a.status === "failed");
  const invalid = results.trials.some((t) => !t.checks.valid);
  return failed || invalid ? 1 : 0;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
