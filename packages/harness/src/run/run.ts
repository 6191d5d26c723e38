// ./benchmark.sh's harness: benchmark.sh bootstraps Bun and hands its command line over here
// (flags.ts, command.ts and options.ts read and check it). This file puts a run in sequence:
// the options, the runtimes and the other commit prepared, the host connected, the database
// started; then the rounds (rounds.ts decides how many; app-turn.ts is one app's turn,
// pair-run.ts a pair's), the passes after them (start-ups, profiles), the reports and the
// exit status. session.ts holds the run's state, record.ts writes results.json.

import { execFileSync } from "node:child_process";
import { analyze } from "../analysis/analysis.ts";
import {
  CALIBRATION_SHARES,
  calibrationRows,
  SIDE_CALIBRATION_SHARES,
} from "../analysis/calibration.ts";
import { againstFails } from "../analysis/ratios.ts";
import { settingsKey, testbedOf } from "../analysis/settings.ts";
import { DatabaseError, databaseServer } from "../apps/app-db.ts";
import { CertificateError, makeCertificate, type RunCertificate } from "../apps/certificate.ts";
import type { PostgresServer } from "../apps/postgres-server.ts";
import { extraStarts } from "../apps/startup-run.ts";
import { gitInfo } from "../common/manifest.ts";
import { pinningPlan, roundOrder } from "../common/plan.ts";
import { REPO_ROOT } from "../common/root.ts";
import { formatSec } from "../common/time.ts";
import { checkHistoryWritable } from "../history/open.ts";
import { recordSession } from "../history/recording.ts";
import { localHost, type ServerHost } from "../hosts/host.ts";
import { connectRemote } from "../hosts/remote.ts";
import { profileApps } from "../profiles/profiled-trials.ts";
import { writeBmf } from "../report/bmf.ts";
import { runReport } from "../report/cli.ts";
import { runHistoryCli } from "../report/history-cli.ts";
import { pinningText } from "../report/summary.ts";
import type { Results } from "../results/schema.ts";
import type { AppRun, RuntimeBuild } from "../runtimes/runtime-versions.ts";
import { prepareRuntimes, runtimeCache } from "../runtimes/runtimes.ts";
import { stopAll as stopAllWatched } from "../runtimes/watched.ts";
import { SLOT_ADDRESSES } from "../side/pairing.ts";
import { prepareCheckout, withCheckout } from "../side/worktree.ts";
import { runApp } from "./app-turn.ts";
import { sizeCalibration, useApps } from "./calibration-run.ts";
import { campaignOf, type Runner, runCampaign } from "./campaign.ts";
import { commandOf } from "./command.ts";
import { EnvironmentError, UsageError } from "./errors.ts";
import type { Values } from "./flags.ts";
import { helpText } from "./help.ts";
import { type Options, parseOptions, withBuilds } from "./options.ts";
import { runPairRounds } from "./pair-run.ts";
import { newResults } from "./record.ts";
import { runRounds } from "./rounds.ts";
import { log, Run } from "./session.ts";
import { planSide } from "./side-plan.ts";

function announce(run: Run): void {
  const { tool, apps, scenarios, rounds, durationSec, warmupSec, connectionCounts } = run.options;
  log(
    `bench: ${tool.name} ${tool.version} · ${apps.length} app(s) × ${scenarios.length} scenario(s) · ` +
      (run.options.precision
        ? `rounds until ±${run.options.precision.target * 100}% or ${formatSec(run.options.precision.maxTimeSec)} (at least ${rounds})`
        : `${rounds} round(s)`) +
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
    await runApp(run, app, round, workers);
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
      console.log(helpText(command.all));
      return 0;
    }
    if (command.kind === "report") return runReport(command.request);
    const campaign = command.kind === "run" ? campaignOf(command.values) : undefined;
    if (command.kind === "run" && campaign) {
      return await runCampaign(
        command.values,
        argv,
        campaign,
        CAMPAIGN_RUNNER,
        command.values.output,
      );
    }
    if (command.kind === "history") {
      return await runHistoryCli(command.argv, undefined, process.env.BENCH_CWD ?? process.cwd());
    }
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

/** What a campaign (campaign.ts) needs of this file. */
const CAMPAIGN_RUNNER: Runner = {
  session: (values, argv) => measureRun(values, argv),
  options: (values, argv) => parseOptions(values, argv, log),
  identity(options) {
    const { cores, hasTaskset } = localHost().info;
    const plan = pinningPlan(options.pin, cores, hasTaskset, options.workers);
    const { manifest } = newResults(options, plan);
    return { testbed: testbedOf(manifest), settingsKey: settingsKey(manifest) };
  },
};

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
    if (parsed.history) await checkHistoryWritable(parsed.history);
    if (parsed.apiAdded) {
      log("bench: api added: each middleware stage's (or TLS's) cost is measured against it");
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
  let certificate: RunCertificate | undefined;
  try {
    postgres = await databaseServer(options, plan);
    // Side by side, the second slot's app serves HTTPS at its own address too.
    const tls = options.scenarios.some((s) => s.tls);
    certificate = tls ? makeCertificate(options.side ? [SLOT_ADDRESSES[1]] : []) : undefined;
    return await measure(new Run(options, host, postgres, certificate));
  } catch (error) {
    if (!(error instanceof DatabaseError) && !(error instanceof CertificateError)) throw error;
    log(`bench: ${error.message}`);
    return error instanceof CertificateError ? 2 : 1;
  } finally {
    certificate?.remove();
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
      const sizing = await sizeCalibration(run);
      if (!(sizing.costPerRequestNs > 0 && sizing.nsPerIteration > 0)) {
        throw new Error(`the sizing measured nothing usable (${JSON.stringify(sizing)})`);
      }
      const shares = options.side ? SIDE_CALIBRATION_SHARES : CALIBRATION_SHARES;
      const rows = calibrationRows(options.apps[0] as AppRun, sizing, shares);
      useApps(run, rows, sizing);
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
  const interrupt = (signal: NodeJS.Signals) => run.interrupt(signal);
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  try {
    await rounds(run);
    return await finish(run);
  } finally {
    // A campaign runs session after session in this process: each its own handlers.
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

/** The rounds and the passes after them (start-ups, profiles). */
async function rounds(run: Run): Promise<void> {
  const { options } = run;
  announce(run);
  if (options.side) await runPairRounds(run, planSide(run));
  else await oneAtATime(run);
  if (!run.interrupted && options.startups > 0) {
    await extraStarts({
      ...run.afterRounds(),
      count: options.startups,
      start: (app, running) => run.recordStartup(app, running, true, options.workers),
    });
  }
  if (options.profile && !run.interrupted) await profileApps(run.profileContext());
}

/** The run closed, recorded in its history, reported; its exit status. */
async function finish(run: Run): Promise<number> {
  const { options } = run;
  run.recorder.close(run.interrupted ? "interrupted" : "complete");
  if (!run.interrupted && options.history) await recordHistory(run, options.history);
  const { summary, reports } = run.recorder.report(options.outDir);
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
  const gateFails = againstFails(analyze(results).side, options.side?.failInconclusive);
  return failed || invalid || gateFails ? 1 : 0;
}

/**
 * A finished run into its history, checked against the earlier sessions of its testbed and
 * settings (the outcome goes into results.json for the summary). The store was checked before
 * the run; if it fails now the run's results stand, and say how to add them later.
 */
async function recordHistory(run: Run, target: string): Promise<void> {
  const results = run.recorder.results;
  try {
    results.history = await recordSession(target, results, analyze(results), run.options.outDir);
    run.recorder.save();
    const h = results.history;
    log(
      `bench: history: ${h.recorded ? "recorded" : "already held"} as session ${h.run} in ${h.store}` +
        ` (${h.earlier} earlier session(s) of this testbed and settings)`,
    );
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    log(
      `bench: history: this run could not be recorded (${why}); its results stand: ` +
        `./benchmark.sh history import ${run.options.outDir} adds it later`,
    );
  }
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

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
