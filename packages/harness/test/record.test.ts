// The record of a run: results.json on disk after every change, so an interrupted run keeps
// every trial it finished (the final save at the end must not be what saves them).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { findScenario, getApp } from "@bench/contract";
import { pinningPlan } from "../src/common/plan.ts";
import { type Results, schemaErrors, type Trial } from "../src/results/schema.ts";
import type { Options } from "../src/run/options.ts";
import { newResults, Recorder } from "../src/run/record.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

function options(outDir: string): Options {
  return {
    apps: [getApp("bun-bare")],
    scenarios: [findScenario("api") as NonNullable<ReturnType<typeof findScenario>>],
    durationSec: 1,
    warmupSec: 0,
    connections: 8,
    connectionCounts: [8],
    rounds: 1,
    samples: 1,
    maxSteal: 15,
    calibrate: false,
    tool: { name: "wrk", path: "/usr/bin/wrk", version: "4.1.0" },
    outDir,
    pin: true,
    appsRoot: "/",
    profile: false,
    startups: 0,
    workers: 1,
    workerCounts: [1],
    rates: [],
    search: false,
    sloP99Ms: 10,
    db: "sqlite",
    argv: ["-d", "1"],
    runtimeVersions: {},
    builds: [],
  };
}

const onDisk = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Results;

describe("results.json", () => {
  const dir = temp("bench-record-");
  const recorder = new Recorder(dir, newResults(options(dir), pinningPlan(true, 2, true)));

  test("exists, schema-valid and 'running', before anything is measured", () => {
    const first = onDisk(recorder.path);
    expect(first.status).toBe("running");
    expect(first.trials).toEqual([]);
    expect(schemaErrors(first)).toEqual([]);
    expect(first.manifest.pinning).toEqual({ enabled: true, serverCpus: "0", loadCpus: "1" });
  });

  test("holds each trial as soon as it is added, and an app's status as soon as it changes", () => {
    recorder.update("bun-bare", { status: "ok" });
    expect(onDisk(recorder.path).apps[0]?.status).toBe("ok");
    const trial = { app: "bun-bare", scenario: "api", round: 1 } as Trial;
    recorder.addTrial(trial);
    expect(onDisk(recorder.path).trials).toHaveLength(1);
    recorder.addTrial({ ...trial, round: 2 });
    expect(onDisk(recorder.path).trials.map((t) => t.round)).toEqual([1, 2]);
    // written atomically: no temporary file is left beside it
    expect(existsSync(`${recorder.path}.tmp`)).toBe(false);
  });
});
