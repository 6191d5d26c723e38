// --server-host for real, on one machine: two network namespaces joined by a veth pair, an sshd
// in the server's (support/two-hosts.ts). A --quick run across them must give valid trials
// with the server's CPU and memory measured on its side; a host that cannot be reached, a
// host without the project and a connection dropped mid-run must each end with one clear line,
// the finished results kept and nothing left running on either side. Needs root and sshd:
// skipped with the reason elsewhere, never in CI (CI=true).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Results } from "../src/results/schema.ts";
import { expectExit, planned, taggedProcesses } from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";
import {
  appPortsListening,
  benchmarkIn,
  SERVER_ADDRESS,
  SSH_PORT,
  sshdSessions,
  startTwoHosts,
  type TwoHosts,
  twoHostsProblem,
} from "./support/two-hosts.ts";

const temp = tempDirs();

const problem = twoHostsProblem();
if (problem && process.env.CI === "true") {
  throw new Error(`two-hosts tests must run in CI, but ${problem}`);
}
if (problem) console.log(`two-hosts tests skipped: ${problem}`);

/** Whether a process runs: a pid of the server's side (same kernel, shared /proc). */
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

describe.skipIf(problem !== undefined)("--server-host across two network namespaces", () => {
  let hosts: TwoHosts;
  const target = `root@${SERVER_ADDRESS}:${SSH_PORT}`;
  const out = () => join(temp("bench-two-hosts-out-"), "run");
  /** --server-host at `host`, with the throwaway key, then the run's own flags. */
  const across = (host: string, ...rest: string[]) => [
    "--server-host",
    host,
    "--ssh-config",
    hosts.sshConfig,
    ...rest,
  ];
  beforeAll(async () => {
    hosts = await startTwoHosts();
  }, 60_000); // an sshd and a network namespace: more than bun's 5 s on a busy machine
  afterAll(() => hosts?.close());

  /** Nothing of the run is left: no app port listened on there, no process of ours here. */
  async function nothingLeft(results?: Results): Promise<void> {
    const pids = (results?.trials ?? []).map((t) => t.server.pid);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const left = appPortsListening(hosts).length + pids.filter(running).length;
      if (left === 0 && taggedProcesses().length === 0) break;
      await sleep(100);
    }
    expect(appPortsListening(hosts)).toEqual([]);
    expect(pids.filter(running)).toEqual([]);
    expect(taggedProcesses()).toEqual([]);
  }

  test("a --quick run: valid trials, the server's CPU and memory measured on its host", async () => {
    const dir = out();
    const run = await benchmarkIn(
      hosts,
      across(target, "--quick", "-o", dir, "bun-bare", "node-hono"),
    );
    expectExit(run, 0);
    expect(run.stderr).toContain(`bench: server host root@${SERVER_ADDRESS} (${SERVER_ADDRESS})`);
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as Results;
    const server = results.manifest.serverHost;
    expect(server?.address).toBe(SERVER_ADDRESS);
    expect(server?.rttMs).toBeGreaterThan(0);
    expect(server?.machine.cores).toBeGreaterThan(0);
    expect(planned(results.trials).length).toBe(2 * 3 * 2); // apps × rounds × samples
    for (const trial of results.trials) {
      expect(trial.checks.invalidReasons).toEqual([]);
      // The load went to the server's address, across the link, not to 127.0.0.1.
      expect(trial.command.join(" ")).toContain(`http://${SERVER_ADDRESS}:`);
      expect(trial.server.cpuPercent).toBeGreaterThan(10);
      expect(trial.server.peakRssMiB).toBeGreaterThan(5);
      expect(trial.checks.networkBound).toBeBoolean();
    }
    const startups = results.apps.map((a) => a.startups?.[0]?.readyMs ?? 0);
    expect(startups.every((ms) => ms > 0)).toBe(true);
    expect(readFileSync(join(dir, "summary.txt"), "utf8")).toContain(
      `server root@${SERVER_ADDRESS} (${SERVER_ADDRESS})`,
    );
    await nothingLeft(results);
  }, 240_000);

  test("a host that does not answer: one line, exit 2, nothing measured", async () => {
    const dir = out();
    const closed = `root@${SERVER_ADDRESS}:${SSH_PORT + 1}`;
    const run = await benchmarkIn(hosts, across(closed, "--quick", "-o", dir, "bun-bare"));
    expectExit(run, 2);
    expect(run.stderr).toMatch(/bench: cannot connect to root@10\.77\.0\.2 over SSH: .*refused/);
    expect(existsSync(join(dir, "results.json"))).toBe(false);
    await nothingLeft();
  }, 60_000);

  test("a host without the project: one line saying so, exit 2", async () => {
    const run = await benchmarkIn(
      hosts,
      across(target, "--server-dir", "/nonexistent/bench", "--quick", "-o", out(), "bun-bare"),
    );
    expectExit(run, 2);
    expect(run.stderr).toContain("no folder /nonexistent/bench there");
    await nothingLeft();
  }, 60_000);

  test("the connection dropped mid-run: one line, results kept, nothing left on either side", async () => {
    const dir = out();
    let dropped = false;
    const run = await benchmarkIn(
      hosts,
      across(
        target,
        "-n",
        "3",
        "-d",
        "1",
        "-w",
        "1",
        "-c",
        "20",
        "-o",
        dir,
        "bun-bare",
        "node-bare",
      ),
      (stderr) => {
        // After the first finished trial: every sshd of the connection dies, as a link does.
        if (dropped || !/req\/s, p99/.test(stderr)) return;
        dropped = true;
        for (const pid of sshdSessions(hosts)) process.kill(pid, "SIGKILL");
      },
    );
    expect(dropped).toBe(true);
    expectExit(run, 1);
    const lost = run.stderr.split("\n").filter((l) => l.includes("lost the connection to"));
    expect(lost.some((l) => l.startsWith("bench: lost the connection to root@10.77.0.2"))).toBe(
      true,
    );
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as Results;
    expect(results.trials.filter((t) => t.checks.valid).length).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(dir, "report.md"))).toBe(true);
    await nothingLeft(results);
  }, 120_000);
});
