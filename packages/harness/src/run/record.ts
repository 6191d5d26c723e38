// The record of a run: results.json, rewritten atomically after every trial so an interrupted
// run keeps what it finished, and the summary and reports written at the end.

import { join } from "node:path";
import { analyze } from "../analysis/analysis.ts";
import { writeJson } from "../common/json-file.ts";
import { gitInfo, lockfileVersions, machineInfo } from "../common/manifest.ts";
import type { Pinning } from "../common/plan.ts";
import { REPO_ROOT } from "../common/root.ts";
import type { ToolName } from "../load/parse.ts";
import { ERROR_THRESHOLD } from "../load/thresholds.ts";
import type { ToolInfo } from "../load/tools.ts";
import { writeReports, writeSummary } from "../report/files.ts";
import {
  type AppRecord,
  type PairTrial,
  type ProfileRecord,
  type RateTrial,
  type Results,
  SCHEMA_VERSION,
  type Search,
  type Startup,
  type Trial,
} from "../results/schema.ts";
import type { RuntimeBuild } from "../runtimes/runtime-versions.ts";
import type { Options } from "./options.ts";

function versionsAsked(builds: readonly RuntimeBuild[]) {
  const out: Record<string, { asked: string; version: string }[]> = {};
  for (const { runtime, asked, version } of builds) {
    out[runtime] = [...(out[runtime] ?? []), { asked, version }];
  }
  return out;
}

export function newResults(options: Options, pinning: Pinning): Results {
  const { tool, apps, scenarios } = options;
  return {
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
        ...(options.connectionCounts.length > 1
          ? { connectionCounts: options.connectionCounts }
          : {}),
        trials: options.rounds,
        ...(options.samples > 1 ? { samples: options.samples } : {}),
        ...(options.precision ? { precision: options.precision } : {}),
        keepAlive: true,
        errorThreshold: ERROR_THRESHOLD,
        maxSteal: options.maxSteal,
        ...(options.reference ? { reference: options.reference } : {}),
        argv: options.argv,
        ...(options.rates.length > 0 || options.search
          ? {
              rates: options.search ? ["search"] : options.rates.map((r) => r.text),
              sloP99Ms: options.sloP99Ms,
            }
          : {}),
        ...(options.workers > 1 ? { workers: options.workers } : {}),
        ...(options.workerCounts.length > 1 ? { workerCounts: options.workerCounts } : {}),
        ...(options.builds.length > 0 ? { runtimeVersions: versionsAsked(options.builds) } : {}),
      },
      ...(options.rateTool ? { rateTool: toolRecord(options.rateTool) } : {}),
      ...(options.wsTool ? { wsTool: toolRecord(options.wsTool) } : {}),
      pinning: {
        enabled: pinning.enabled,
        ...(pinning.serverCpus ? { serverCpus: pinning.serverCpus } : {}),
        ...(pinning.loadCpus ? { loadCpus: pinning.loadCpus } : {}),
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
      ...(a.build ? { runtimeBuild: { asked: a.build.asked, version: a.build.version } } : {}),
      ...(a.extraWork ? { extraWork: { ...a.extraWork } } : {}),
      ...(a.checkout ? { checkout: { ref: a.checkout.ref, commit: a.checkout.commit } } : {}),
      status: "pending" as const,
    })),
    trials: [],
  };
}

export class Recorder {
  readonly path: string;
  readonly results: Results;

  constructor(outDir: string, results: Results) {
    this.path = join(outDir, "results.json");
    this.results = results;
    this.save();
  }

  save(): void {
    writeJson(this.path, this.results);
  }

  app(name: string): AppRecord {
    return this.results.apps.find((a) => a.name === name) as AppRecord;
  }

  update(name: string, fields: Partial<AppRecord>): void {
    Object.assign(this.app(name), fields);
    this.save();
  }

  addTrial(trial: Trial): void {
    this.results.trials.push(trial);
    this.save();
  }

  addStartup(name: string, startup: Startup): void {
    const app = this.app(name);
    app.startups ??= [];
    app.startups.push(startup);
    this.save();
  }

  addRateTrial(trial: RateTrial): void {
    this.results.rateTrials ??= [];
    this.results.rateTrials.push(trial);
    this.save();
  }

  addSearch(search: Search): void {
    this.results.searches ??= [];
    this.results.searches.push(search);
    this.save();
  }

  addPairTrial(trial: PairTrial): void {
    this.results.pairTrials ??= [];
    this.results.pairTrials.push(trial);
    this.save();
  }

  addProfile(profile: ProfileRecord): void {
    this.results.profiles ??= [];
    this.results.profiles.push(profile);
    this.save();
  }

  /** The run's final status, saved: what the history records and the reports show. */
  close(status: "complete" | "interrupted"): void {
    this.results.status = status;
    this.results.finishedAt = new Date().toISOString();
    this.save();
  }

  /** summary.txt and the reports of the closed run; returns the summary and report paths. */
  report(outDir: string): { summary: string; reports: string[] } {
    // One analysis, rendered by the summary and both reports.
    const analysis = analyze(this.results);
    const summary = writeSummary(join(outDir, "results.json"), analysis);
    return { summary, reports: writeReports(this.path, this.results, analysis) };
  }
}

/** A generator as the manifest records it. */
function toolRecord(tool: ToolInfo): { name: ToolName; version: string; path: string } {
  return { name: tool.name, version: tool.version, path: tool.path };
}
