// --side-by-side for real: ./benchmark.sh in a private network namespace (its own loopback,
// so 127.0.0.1 and 127.0.0.2 are its alone), two apps started on the server's CPU at once,
// each loaded by its own wrk. What must hold whatever the machine's noise: every sample
// valid and physically consistent (the two servers' CPU time within the one core they share,
// in-flight within the connections), the slots alternating round by round, one app able to
// run twice on its port (A/A), the reports and the BMF export written, nothing left running.
// Needs root (unshare --net): skipped with the reason elsewhere, never in CI (CI=true).

import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { H2_UNSUPPORTED } from "@bench/contract";
import { type Results, schemaErrors } from "../src/results/schema.ts";
import { findWsLoad } from "../src/run/environment.ts";
import {
  expectExit,
  hasOha,
  planned,
  startBenchmark,
  taggedProcesses,
} from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

function netnsProblem(): string | undefined {
  if (process.getuid?.() !== 0) return "a private network namespace (unshare --net) needs root";
  try {
    execFileSync("unshare", ["--net", "true"], { stdio: "ignore" });
  } catch {
    return "unshare --net is not available here";
  }
  return undefined;
}

const problem = netnsProblem();
if (problem && process.env.CI === "true") {
  throw new Error(`side-by-side tests must run in CI, but ${problem}`);
}
if (problem) console.log(`side-by-side tests skipped: ${problem}`);

/** benchmark.sh inside a network namespace of its own, its loopback up. */
const NETNS = ["unshare", "--net", "bash", "-c", 'ip link set lo up && exec "$@"', "netns"];

async function sideRun(args: string[]) {
  const out = join(temp("bench-side-"), "run");
  const { done } = startBenchmark(["-o", out, ...args], {}, undefined, NETNS);
  const finished = await done;
  const path = join(out, "results.json");
  const results = existsSync(path)
    ? (JSON.parse(readFileSync(path, "utf8")) as Results)
    : undefined;
  return { ...finished, out, results };
}

const SHORT = ["--side-by-side", "--quick", "--rounds", "2", "--samples", "2", "--tool", "wrk"];

describe.skipIf(problem !== undefined)("--side-by-side on real processes", () => {
  test("bun-bare against node-bare: valid, consistent samples, slots alternating, reports", async () => {
    const r = await sideRun([...SHORT, "bun-bare", "node-bare"]);
    expectExit(r, 0);
    const results = r.results as Results;
    expect(schemaErrors(results)).toEqual([]);
    expect(results.trials).toEqual([]);
    expect(results.manifest.settings.sideBySide).toEqual({
      pairs: [["bun-bare", "node-bare"]],
      addresses: ["127.0.0.1", "127.0.0.2"],
    });
    expect(results.apps.map((a) => [a.name, a.status, a.reportedRuntime?.name])).toEqual([
      ["bun-bare", "ok", "bun"],
      ["node-bare", "ok", "node"],
    ]);
    const trials = planned(results.pairTrials ?? []);
    expect(trials.map((t) => [t.round, t.sample])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
      [2, 2],
    ]);
    for (const t of trials) {
      expect({ round: t.round, valid: t.checks.valid, why: t.checks.invalidReasons }).toEqual({
        round: t.round,
        valid: true,
        why: [],
      });
      expect(t.sides.map((s) => [s.slot, s.address])).toEqual([
        [0, "127.0.0.1"],
        [1, "127.0.0.2"],
      ]);
      // The reference (bun-bare) first in round 1, second in round 2.
      expect(t.sides[t.round === 1 ? 0 : 1]?.app).toBe("bun-bare");
      expect(new Set(t.sides.map((s) => s.pid)).size).toBe(2);
      for (const s of t.sides) {
        const requests = s.result?.requests ?? 0;
        expect(requests).toBeGreaterThan(100);
        expect(s.nsPerRequest).toBeCloseTo(s.cpuNs / requests, 6);
        // In flight at most the connections (closed loop).
        const inFlight =
          (requests * (s.result?.latencyMs.mean ?? 0)) / 1000 / (s.result?.durationSec ?? 1);
        expect(inFlight).toBeLessThanOrEqual(s.connections * 1.05);
      }
      // Both servers on one core: their CPU time within the time the generators ran (+ start-up).
      const cpu = t.sides.reduce((sum, s) => sum + s.cpuNs, 0) / 1e9;
      expect(cpu).toBeLessThan((t.requestedSec + 0.5) * 1.05);
      expect(cpu).toBeGreaterThan(0.3 * t.requestedSec);
      const percent = t.sides.reduce((sum, s) => sum + s.serverCpuPercent, 0);
      expect(percent).toBeLessThanOrEqual(105);
    }
    expect(r.stdout).toContain("== api: CPU time per request, side by side");
    expect(r.stdout).toMatch(/node-bare .* ≈?×\d\.\d{3} \(/);
    expect(readFileSync(join(r.out, "report.md"), "utf8")).toContain("# Side by side");
    expect(readFileSync(join(r.out, "report.html"), "utf8")).toContain('<canvas id="side-api">');
    expect(taggedProcesses()).toEqual([]);
  }, 120_000);

  test("one app against itself: twice on its port at two addresses, A/A, exported as BMF", async () => {
    const bmf = join(temp("bench-bmf-"), "bmf.json");
    const r = await sideRun([...SHORT, "--samples", "1", "--export", "bmf", bmf, "bun-bare"]);
    expectExit(r, 0);
    const results = r.results as Results;
    expect(results.apps.map((a) => [a.name, a.status, a.port])).toEqual([
      ["bun-bare", "ok", 3004],
      ["bun-bare#2", "ok", 3004],
    ]);
    const trials = planned(results.pairTrials ?? []);
    expect(trials).toHaveLength(2);
    for (const t of trials) expect(t.checks.valid).toBe(true);
    const exported = JSON.parse(readFileSync(bmf, "utf8"));
    expect(Object.keys(exported).sort()).toEqual(["bun-bare api", "bun-bare#2 api"]);
    const ratio = exported["bun-bare#2 api"]["cost-ratio"].value;
    // Two 1 s samples of one app against itself: far from any real difference.
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.25);
    expect(exported["bun-bare api"]["cpu-per-request"].value).toBeGreaterThan(0);
    expect(taggedProcesses()).toEqual([]);
  }, 120_000);

  // CI builds ws-load (.ci/run); elsewhere a checkout without it skips, visibly.
  const wsLoad = findWsLoad() !== undefined || process.env.CI === "true";
  if (!wsLoad)
    console.log("side-by-side.e2e: the TLS and WebSocket run is skipped: ws-load is not built");
  test.skipIf(!wsLoad)(
    "TLS, new TLS clients and WebSockets at each slot's address; h2 unserved: its reason, no table",
    async () => {
      // h2 needs oha (the one generator here that speaks HTTP/2); without it the rest still runs.
      const h2 = hasOha ? ["--tool", "oha", "-s", "tls,tls-handshake,h2,ws-echo,ws-broadcast"] : [];
      const scenarios = h2.length > 0 ? h2 : ["-s", "tls,tls-handshake,ws-echo,ws-broadcast"];
      const r = await sideRun([...SHORT, "--samples", "1", ...scenarios, "bun-bare", "node-bare"]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      const trials = planned(results.pairTrials ?? []);
      const measured = ["api", "tls", "tls-handshake", "ws-echo", "ws-broadcast"];
      expect(trials.map((t) => t.scenario)).toEqual([...measured, ...measured]);
      for (const t of trials)
        expect([t.scenario, t.checks.invalidReasons]).toEqual([t.scenario, []]);
      // Each generator aims at its own slot's address, over the scenario's protocol.
      const commands = (scenario: string) =>
        trials
          .filter((t) => t.scenario === scenario)
          .flatMap((t) => t.sides.map((s) => s.command.join(" ")));
      for (const [scenario, pattern] of [
        ["tls", /https:\/\/127\.0\.0\.[12]:400[45]\/api\/test/],
        [
          "tls-handshake",
          /handshake --url https:\/\/127\.0\.0\.[12]:400[45]\/api\/test --ca \S*cert\.pem/,
        ],
        ["ws-echo", /echo --url ws:\/\/127\.0\.0\.[12]:300[45]\/ws\/echo/],
      ] as const) {
        const seen = commands(scenario);
        expect(seen).toHaveLength(4);
        for (const command of seen) expect(command).toMatch(pattern);
        expect(new Set(seen.map((c) => c.match(/127\.0\.0\.\d/)?.[0]))).toEqual(
          new Set(["127.0.0.1", "127.0.0.2"]),
        );
      }
      // A new client's whole handshake costs a server more than a request on a kept connection.
      const cost = (scenario: string, app: string) =>
        trials
          .filter((t) => t.scenario === scenario)
          .map((t) => t.sides.find((s) => s.app === app)?.nsPerRequest ?? 0);
      for (const app of ["bun-bare", "node-bare"]) {
        expect(Math.min(...cost("tls-handshake", app))).toBeGreaterThan(
          Math.max(...cost("api", app)),
        );
      }
      if (h2.length > 0) {
        expect(results.unsupported).toEqual([
          { app: "bun-bare", scenario: "h2", reason: H2_UNSUPPORTED["bun-bare"] as string },
        ]);
        expect(r.stdout).not.toContain("== h2:");
        expect(r.stdout).toContain("== not supported");
      }
      expect(r.stdout).toContain("== ws-broadcast: CPU time per request, side by side");
      expect(taggedProcesses()).toEqual([]);
    },
    180_000,
  );

  test.skipIf(!hasOha)(
    "h2c at each slot's address: node-bare on its port + 2000, deno-bare on its plain port",
    async () => {
      const apps = ["node-bare", "deno-bare"];
      const r = await sideRun([...SHORT, "--samples", "1", "--tool", "oha", "-s", "h2c", ...apps]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      const trials = planned(results.pairTrials ?? []);
      expect(trials.map((t) => t.scenario)).toEqual(["api", "h2c", "api", "h2c"]);
      for (const t of trials) expect(t.checks.invalidReasons).toEqual([]);
      const seen = trials
        .filter((t) => t.scenario === "h2c")
        .flatMap((t) => t.sides.map((s) => `${s.app} ${s.command.join(" ")}`));
      expect(seen).toHaveLength(4);
      for (const line of seen) {
        expect(line).toMatch(
          /^(node-bare .* --http2 .* http:\/\/127\.0\.0\.[12]:5005|deno-bare .* --http2 .* http:\/\/127\.0\.0\.[12]:3008)\/api\/test$/,
        );
      }
      expect(r.stdout).toContain("== h2c: CPU time per request, side by side");
      expect(taggedProcesses()).toEqual([]);
    },
    120_000,
  );
});
