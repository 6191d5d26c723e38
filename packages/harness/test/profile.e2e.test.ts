// ./benchmark.sh --profile for real: every app, a profiled trial each, the profiles on disk in
// the DevTools format, the reports' tables computed from those files, nothing left running.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APPS } from "@bench/contract";
import { type Results, schemaErrors } from "../src/results/schema.ts";
import { expectExit, planned, runBenchmark, taggedProcesses } from "./support/run-benchmark.ts";

const root = mkdtempSync(join(tmpdir(), "bench-profile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** Self samples of the function named `name`, counted straight from the file. */
function selfSamples(path: string, name: string): number {
  const profile = JSON.parse(readFileSync(path, "utf8")) as {
    nodes: { id: number; callFrame: Frame }[];
    samples: number[];
    timeDeltas: number[];
  };
  expect(profile.nodes.length).toBeGreaterThan(0);
  expect(profile.samples.length).toBe(profile.timeDeltas.length);
  const ids = new Set(
    profile.nodes
      .filter((n) => (n.callFrame.functionName || "(anonymous)") === name)
      .map((n) => n.id),
  );
  return profile.samples.filter((id) => ids.has(id)).length;
}

test("--profile profiles every app apart from its trials, and the report reads the files", async () => {
  const out = join(root, "run");
  const r = await runBenchmark([
    "-o",
    out,
    "-s",
    "api",
    "-d",
    "1",
    "-w",
    "0",
    "-n",
    "1",
    "--samples",
    "1",
    "--profile",
  ]);
  expectExit(r, 0);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  expect(schemaErrors(results)).toEqual([]);
  // Profiled trials are kept apart: one measured trial per app, as without --profile.
  expect(
    planned(results.trials)
      .map((t) => t.app)
      .sort(),
  ).toEqual(APPS.map((a) => a.name).sort());
  const profiles = results.profiles ?? [];
  expect(profiles.map((p) => p.app).sort()).toEqual(APPS.map((a) => a.name).sort());
  const md = readFileSync(join(out, "report.md"), "utf8");
  for (const p of profiles) {
    expect(p.unavailable).toBeUndefined();
    expect(p.file).toBe(`profiles/${p.app}-api.cpuprofile`);
    const path = join(out, p.file as string);
    expect(existsSync(path)).toBe(true);
    expect(p.rps).toBeGreaterThan(0);
    const hottest = p.summary?.top[0];
    expect(hottest).toBeDefined();
    if (!hottest) continue;
    // Names aside, the top function's samples are recounted from the file itself (a name can
    // sit at several places, so the file's count for the name is at least the row's).
    expect(selfSamples(path, hottest.function)).toBeGreaterThanOrEqual(hottest.samples);
    expect(hottest.samples).toBeGreaterThan(0);
    expect(md).toContain(`[${p.file}](${p.file})`);
    expect(md).toContain(`| 1 | ${hottest.function.replaceAll("|", "\\|")} |`);
  }
  expect(taggedProcesses()).toEqual([]);
}, 180_000);
