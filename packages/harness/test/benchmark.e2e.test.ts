// ./benchmark.sh run for real: short windows, real apps on real ports, each load generator.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  APPS,
  findScenario,
  H2_UNSUPPORTED,
  H2C_UNSUPPORTED,
  STANDARD_SCENARIOS,
} from "@bench/contract";
import { pidsListeningOn } from "@bench/contract/check";
import { WS_BROADCAST_IN_FLIGHT, WS_UNSUPPORTED } from "@bench/contract/ws";
import { isRunning } from "../src/apps/launch.ts";
import { findPostgres } from "../src/apps/postgres-server.ts";
import { REPO_ROOT } from "../src/index.ts";
import { AUTOCANNON_MIN_MEAN_MS, LITTLE_TOLERANCE } from "../src/load/thresholds.ts";
import { WRK_SCRIPT } from "../src/load/tools.ts";
import { type Results, schemaErrors } from "../src/results/schema.ts";
import { findWsLoad } from "../src/run/environment.ts";
import { FLAGS } from "../src/run/flags.ts";
import { helpText } from "../src/run/help.ts";
import {
  CONFORMING,
  CRASHES_UNDER_LOAD,
  ERRORS_UNDER_LOAD,
  fakeRoot,
  WRONG_GREETING,
} from "./support/fake-root.ts";
import { SKIP_WITHOUT_OPENSSL } from "./support/openssl.ts";
import {
  BENCHMARK,
  expectExit,
  planned,
  runBenchmark,
  startBenchmark,
  taggedProcesses,
} from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const outDirs: string[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  results?: Results;
  out: string;
}

function freshOut(): string {
  const dir = join(temp("bench-out-"), "run");
  outDirs.push(dir);
  return dir;
}

/** Starts benchmark.sh writing to a fresh directory; the results are read when it ends. */
function start(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string, pid: number) => void,
) {
  const out = freshOut();
  const { child, done } = startBenchmark(["-o", out, ...args], env, onStderr);
  return {
    child,
    done: done.then((finished): Run => {
      const path = join(out, "results.json");
      const results = existsSync(path)
        ? (JSON.parse(readFileSync(path, "utf8")) as Results)
        : undefined;
      return { ...finished, out, ...(results ? { results } : {}) };
    }),
  };
}

const run = (args: string[], env?: Record<string, string>) => start(args, env).done;

/** Nothing these tests started may outlive its run, and no app port may be held. */
function expectCleanProcessTable() {
  expect(taggedProcesses()).toEqual([]);
  for (const app of APPS) expect(pidsListeningOn(app.port)).toEqual([]);
}

const has = (tool: string) =>
  (process.env.PATH ?? "")
    .split(":")
    .concat(join(process.env.HOME ?? "", ".cargo/bin"))
    .some((dir) => existsSync(join(dir, tool)));

afterAll(() => expectCleanProcessTable());

const QUICK = [
  "--duration",
  "1",
  "--warmup",
  "1",
  "--trials",
  "1",
  "--samples",
  "1",
  "--connections",
  "32",
];

describe("measures with each load generator", () => {
  for (const tool of ["oha", "wrk", "autocannon", "h2load"] as const) {
    // CI installs oha, wrk and h2load; elsewhere a missing one is skipped (visibly), not failed.
    const available = tool === "autocannon" || has(tool) || process.env.CI === "true";
    test.skipIf(!available)(
      `${tool}: two apps, every scenario, valid trials, schema-conformant results`,
      async () => {
        const r = await run([
          ...QUICK,
          "--warmup",
          "0",
          "--tool",
          tool,
          "--scenario",
          "all",
          "bun-bare",
          "node-bare",
        ]);
        expect(r.stderr).toContain(`bench: ${tool} `);
        expectExit(r, 0);
        const results = r.results as Results;
        expect(schemaErrors(results)).toEqual([]);
        expect(results.status).toBe("complete");
        expect(results.manifest.tool.name).toBe(tool);
        expect(results.manifest.tool.version).not.toBe("unknown");
        expect(results.manifest.versions.lockfile.hono).toMatch(/^\d+\.\d+\.\d+/);
        expect(results.apps.map((a) => [a.name, a.status, a.reportedRuntime?.name])).toEqual([
          ["bun-bare", "ok", "bun"],
          ["node-bare", "ok", "node"],
        ]);
        expect(results.manifest.settings.scenarios).toEqual(
          STANDARD_SCENARIOS.map((sc) => sc.name),
        );
        expect(planned(results.trials)).toHaveLength(2 * STANDARD_SCENARIOS.length);
        for (const trial of results.trials) {
          expect(trial.checks.invalidReasons).toEqual([]);
          expect(trial.result?.rps).toBeGreaterThan(100);
          expect(trial.result?.non2xx).toBe(0);
          expect(trial.command.join(" ")).toContain(tool === "autocannon" ? "autocannon.js" : tool);
          // measured at all: how much CPU wrk needs depends on how busy the machine is (a busy
          // CI box once gave it 4.99% of a core here)
          expect(trial.server.cpuPercent).toBeGreaterThan(0);
          expect(trial.loadGenerator.cpuPercent).toBeGreaterThan(0);
          expect(trial.server.peakRssMiB).toBeGreaterThan(5);
          // autocannon's whole-millisecond latencies are too coarse for Little's law below 20 ms
          const coarse =
            tool === "autocannon" && (trial.result?.latencyMs.mean ?? 0) < AUTOCANNON_MIN_MEAN_MS;
          expect(trial.checks.littlesLaw.checked).toBe(!coarse);
          // Physically consistent: a closed loop never has more requests in flight than
          // connections, and no measured percentile outlasts the trial.
          if (!coarse) {
            expect(trial.checks.littlesLaw.ratio).toBeGreaterThan(0);
            expect(trial.checks.littlesLaw.ratio).toBeLessThanOrEqual(1 + LITTLE_TOLERANCE);
          }
          expect(trial.result?.latencyMs.p99 ?? Infinity).toBeLessThan(1000);
          expect(trial.connections).toBe(32);
          expect(trial.requestedSec).toBe(1);
          // CPU over the load window only, which is shorter than the tool's life.
          expect(trial.cpuWindowSec).toBeGreaterThan(0.5);
          expect(trial.cpuWindowSec).toBeLessThan(1);
          expect(trial.loadGenerator.threads).toBeGreaterThanOrEqual(1);
        }
        const posts = planned(results.trials).filter((t) =>
          ["echo", "validate"].includes(t.scenario),
        );
        expect(posts).toHaveLength(4);
        for (const post of posts) {
          if (tool === "wrk") expect(post.command).toContain(WRK_SCRIPT);
          else if (tool === "h2load") expect(post.command).toContain("-d");
          else expect(post.command.join(" ")).toContain("POST");
        }
        for (const scenario of STANDARD_SCENARIOS)
          expect(r.stdout).toContain(`== ${scenario.name}`);
        expect(existsSync(join(r.out, "summary.txt"))).toBe(true);
        expectCleanProcessTable();
      },
      60_000,
    );
  }
});

describe("the streamed and TLS scenarios, on request", () => {
  const oha = has("oha") || process.env.CI === "true";
  test.skipIf(!oha || SKIP_WITHOUT_OPENSSL)(
    "oha: -s h2 loads an app over HTTP/2 and shows one that cannot serve it as not supported",
    async () => {
      const r = await run([
        ...QUICK,
        "--warmup",
        "0",
        "--scenario",
        "h2",
        "node-fastify",
        "bun-hono",
      ]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      // No --tool: oha, the one generator that speaks HTTP/2, for every scenario of the run.
      expect(results.manifest.tool.name).toBe("oha");
      expect(results.unsupported).toEqual([
        { app: "bun-hono", scenario: "h2", reason: H2_UNSUPPORTED["bun-hono"] as string },
      ]);
      expect(
        planned(results.trials)
          .map((t) => [t.app, t.scenario])
          .sort(),
      ).toEqual([
        ["bun-hono", "api"],
        ["node-fastify", "api"],
        ["node-fastify", "h2"],
      ]);
      for (const trial of results.trials) {
        expect(trial.checks.invalidReasons).toEqual([]);
        expect(trial.result?.non2xx).toBe(0);
        expect(trial.result?.socketErrors).toBe(0);
        expect(trial.result?.rps).toBeGreaterThan(10);
      }
      // 32 requests in flight: 4 connections of 8 streams, over TLS to the TLS port.
      const h2 = results.trials.find((t) => t.scenario === "h2");
      expect(h2?.command.join(" ")).toMatch(
        / --http2 -c 4 -p 8 .* --insecure https:\/\/127\.0\.0\.1:4010\/api\/test$/,
      );
      expect(r.stdout).toContain(`bun-hono: not supported: ${H2_UNSUPPORTED["bun-hono"]}`);
      expect(readFileSync(join(r.out, "report.md"), "utf8")).toContain("## Not supported");
      expectCleanProcessTable();
    },
    60_000,
  );

  test.skipIf(!oha)(
    "oha: -s h2c loads cleartext HTTP/2 on port + 2000 or the plain port, and shows node-elysia's reason",
    async () => {
      const apps = ["node-hono", "deno-bare", "node-elysia"];
      const r = await run([...QUICK, "--warmup", "0", "--scenario", "h2c", ...apps]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      expect(results.manifest.tool.name).toBe("oha");
      expect(results.unsupported).toEqual([
        { app: "node-elysia", scenario: "h2c", reason: H2C_UNSUPPORTED["node-elysia"] as string },
      ]);
      const measured = planned(results.trials).map((t) => `${t.app} ${t.scenario}`);
      expect(measured.sort()).toEqual(
        [
          "deno-bare api",
          "deno-bare h2c",
          "node-elysia api",
          "node-hono api",
          "node-hono h2c",
        ].sort(),
      );
      for (const trial of results.trials) {
        expect(trial.checks.invalidReasons).toEqual([]);
        expect(trial.result?.non2xx).toBe(0);
        expect(trial.result?.socketErrors).toBe(0);
      }
      // Prior knowledge on an http:// URL: node-hono's own h2c port, deno-bare's plain one.
      const command = (app: string) =>
        results.trials.find((t) => t.app === app && t.scenario === "h2c")?.command.join(" ");
      expect(command("node-hono")).toMatch(
        / --http2 -c 4 -p 8 .* http:\/\/127\.0\.0\.1:5002\/api\/test$/,
      );
      expect(command("deno-bare")).toMatch(
        / --http2 -c 4 -p 8 .* http:\/\/127\.0\.0\.1:3008\/api\/test$/,
      );
      expect(r.stdout).toContain(`node-elysia: not supported: ${H2C_UNSUPPORTED["node-elysia"]}`);
      expectCleanProcessTable();
    },
    90_000,
  );

  const h2load = has("h2load") || process.env.CI === "true";
  test.skipIf(!h2load || SKIP_WITHOUT_OPENSSL)(
    "h2load: -s tls,h2,h2c over HTTP/1.1, h2 and h2c, each sample the protocol it asked for",
    async () => {
      const apps = ["node-hono", "deno-bare", "bun-bare"];
      const scenarios = "tls,h2,h2c";
      const r = await run([...QUICK, "--warmup", "0", "-t", "h2load", "-s", scenarios, ...apps]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      expect(results.manifest.tool.name).toBe("h2load");
      expect(results.manifest.tool.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(results.unsupported?.map((u) => `${u.app} ${u.scenario}`).sort()).toEqual([
        "bun-bare h2",
        "bun-bare h2c",
      ]);
      const measured = planned(results.trials).map((t) => `${t.app} ${t.scenario}`);
      expect(measured).toHaveLength(10);
      for (const trial of results.trials) {
        expect(trial.checks.invalidReasons).toEqual([]);
        expect(trial.result?.non2xx).toBe(0);
        expect(trial.result?.socketErrors).toBe(0);
        expect(trial.result?.rps).toBeGreaterThan(10);
        expect(trial.checks.littlesLaw.ratio).toBeLessThanOrEqual(1 + LITTLE_TOLERANCE);
      }
      const command = (app: string, scenario: string) =>
        results.trials.find((t) => t.app === app && t.scenario === scenario)?.command.join(" ") ??
        "";
      // HTTP/1.1 over TLS; h2 by ALPN on the TLS port; h2c with prior knowledge.
      expect(command("bun-bare", "tls")).toMatch(
        / --h1 -c 32 -m 1 .* https:\/\/127\.0\.0\.1:4004\/api\/test$/,
      );
      expect(command("node-hono", "h2")).toMatch(
        / -c 4 -m 8 .* https:\/\/127\.0\.0\.1:4002\/api\/test$/,
      );
      expect(command("node-hono", "h2")).not.toContain("--h1");
      expect(command("node-hono", "h2c")).toMatch(/ http:\/\/127\.0\.0\.1:5002\/api\/test$/);
      expect(command("deno-bare", "h2c")).toMatch(/ http:\/\/127\.0\.0\.1:3008\/api\/test$/);
      // Each sample's log was read and removed.
      const logs = results.trials.map((t) => /--log-file=(\S+)/.exec(t.command.join(" "))?.[1]);
      expect(logs.every((log) => log !== undefined && !existsSync(log))).toBe(true);
      expectCleanProcessTable();
    },
    90_000,
  );

  // CI builds ws-load (.ci/run); elsewhere a checkout without it skips, visibly.
  const wsLoad = findWsLoad() !== undefined || process.env.CI === "true";
  if (!wsLoad) console.log("benchmark.e2e: the WebSocket run is skipped: ws-load is not built");
  test.skipIf(!wsLoad)(
    "ws-load: -s ws-echo,ws-broadcast measures messages, and an app without WebSocket is shown so",
    async () => {
      const r = await run([
        ...QUICK,
        "--warmup",
        "0",
        "--tool",
        "autocannon",
        "--scenario",
        "ws-echo,ws-broadcast",
        "bun-bare",
        "node-elysia",
      ]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      expect(results.manifest.wsTool?.name).toBe("ws-load");
      expect(results.manifest.tool.name).toBe("autocannon");
      expect(results.unsupported).toEqual(
        ["ws-echo", "ws-broadcast"].map((scenario) => ({
          app: "node-elysia",
          scenario,
          reason: WS_UNSUPPORTED["node-elysia"] as string,
        })),
      );
      expect(planned(results.trials).map((t) => t.scenario)).toEqual(["ws-echo", "ws-broadcast"]);
      for (const trial of results.trials) {
        expect(trial.app).toBe("bun-bare");
        expect(trial.command.join(" ")).toContain(
          ` --url ws://127.0.0.1:3004/ws/${trial.scenario.slice(3)} -c 32 -d 1 --size 32 `,
        );
        expect(trial.checks.invalidReasons).toEqual([]);
        expect(trial.result?.non2xx).toBe(0);
        expect(trial.result?.socketErrors).toBe(0);
        expect(trial.result?.timeouts).toBe(0);
        // A closed loop of one message per connection; a broadcast's messages in flight each
        // go to every subscriber.
        const bound = trial.scenario === "ws-broadcast" ? 32 * WS_BROADCAST_IN_FLIGHT : 32;
        expect(trial.checks.littlesLaw.inFlight).toBeLessThanOrEqual(
          bound * (1 + LITTLE_TOLERANCE),
        );
        expect(trial.result?.rps).toBeGreaterThan(100);
      }
      expect(r.stdout).toContain("== ws-echo");
      expect(r.stdout).toContain(`node-elysia: not supported: ${WS_UNSUPPORTED["node-elysia"]}`);
      expectCleanProcessTable();
    },
    60_000,
  );

  test.skipIf(!wsLoad || SKIP_WITHOUT_OPENSSL)(
    "ws-load: -s tls-handshake opens a TLS connection per request, the run's certificate pinned",
    async () => {
      const r = await run([
        ...QUICK,
        "--warmup",
        "0",
        "--tool",
        "autocannon",
        "--scenario",
        "tls-handshake",
        "bun-bare",
        "node-bare",
      ]);
      expectExit(r, 0);
      const results = r.results as Results;
      expect(schemaErrors(results)).toEqual([]);
      expect(results.manifest.settings.scenarios).toEqual(["api", "tls-handshake"]);
      expect(results.manifest.wsTool?.name).toBe("ws-load");
      const handshakes = planned(results.trials).filter((t) => t.scenario === "tls-handshake");
      expect(handshakes.map((t) => t.app).sort()).toEqual(["bun-bare", "node-bare"]);
      for (const trial of handshakes) {
        expect(trial.command.join(" ")).toMatch(
          / handshake --url https:\/\/127\.0\.0\.1:400[45]\/api\/test --ca \S*bench-tls-\S*\/cert\.pem -c 32 -d 1 /,
        );
      }
      for (const trial of results.trials) {
        expect(trial.checks.invalidReasons).toEqual([]);
        expect(trial.result?.non2xx).toBe(0);
        expect(trial.result?.socketErrors).toBe(0);
        expect(trial.result?.timeouts).toBe(0);
        expect(trial.result?.rps).toBeGreaterThan(10);
      }
      expect(r.stdout).toContain("(tls-handshake: ws-load ");
      expect(r.stdout).toContain("== tls-handshake");
      expect(readdirSync(tmpdir()).filter((n) => n.startsWith("bench-tls-"))).toEqual([]);
      expectCleanProcessTable();
    },
    60_000,
  );

  for (const tool of ["oha", "wrk", "autocannon", "h2load"] as const) {
    const available = tool === "autocannon" || has(tool) || process.env.CI === "true";
    test.skipIf(!available || SKIP_WITHOUT_OPENSSL)(
      `${tool}: -s sse,stream,tls on a generator-fed and a Node-stream app, every sample judged`,
      async () => {
        const r = await run([
          ...QUICK,
          // h2load counts the answers carried into its window with their whole latency
          // (parse-h2load.ts), which Little's law then sets against the window alone: at 1 s,
          // node-fastify's streamed answers read 33.9 in flight on 32 connections once in CI
          // (×1.06, over the 5% allowed). 2 s halves that edge; the last --duration counts.
          ...(tool === "h2load" ? ["--duration", "2"] : []),
          "--warmup",
          "0",
          "--tool",
          tool,
          "--scenario",
          "sse,stream,tls",
          "bun-elysia",
          "node-fastify",
        ]);
        expectExit(r, 0);
        const results = r.results as Results;
        expect(schemaErrors(results)).toEqual([]);
        // tls brings api along: TLS's cost is each app's tls against its own api.
        expect(results.manifest.settings.scenarios).toEqual(["api", "sse", "stream", "tls"]);
        expect(
          planned(results.trials)
            .map((t) => [t.app, t.scenario])
            .sort(),
        ).toEqual([
          ["bun-elysia", "api"],
          ["bun-elysia", "sse"],
          ["bun-elysia", "stream"],
          ["bun-elysia", "tls"],
          ["node-fastify", "api"],
          ["node-fastify", "sse"],
          ["node-fastify", "stream"],
          ["node-fastify", "tls"],
        ]);
        // The tls scenario's load went to the TLS port over HTTPS.
        for (const trial of results.trials.filter((t) => t.scenario === "tls")) {
          expect(trial.command.join(" ")).toMatch(/https:\/\/127\.0\.0\.1:40(01|10)\/api\/test/);
        }
        for (const trial of results.trials) {
          expect(trial.checks.invalidReasons).toEqual([]);
          expect(trial.result?.non2xx).toBe(0);
          expect(trial.result?.socketErrors).toBe(0);
          expect(trial.result?.timeouts).toBe(0);
          expect(trial.result?.rps).toBeGreaterThan(10);
        }
        // A 1 MiB answer per request: the bytes read per request are about that (each tool
        // counts headers and framing its own way, and over its own window).
        for (const trial of results.trials.filter((t) => t.scenario === "stream")) {
          const perRequest = (trial.result?.bytesPerSec ?? 0) / (trial.result?.rps ?? 1) / 2 ** 20;
          expect(perRequest).toBeGreaterThan(0.95);
          expect(perRequest).toBeLessThan(1.05);
        }
        expect(r.stdout).toContain("== sse");
        expect(r.stdout).toContain("== stream");
        expect(r.stdout).toContain("== tls");
        const report = readFileSync(join(r.out, "report.md"), "utf8");
        expect(report).toContain("## Production tax");
        // oha alone reports when each answer's body began: before its end, for the streams.
        const firsts = results.trials.map((t) => t.result?.firstByteMs);
        if (tool === "oha") {
          for (const trial of results.trials.filter((t) => t.scenario === "stream")) {
            const first = trial.result?.firstByteMs;
            expect(first?.p50).toBeGreaterThan(0);
            expect(first?.p50).toBeLessThan(trial.result?.latencyMs.p50 ?? 0);
          }
          expect(firsts.every((f) => f !== undefined)).toBe(true);
          expect(r.stdout).toContain(
            "== stream: time to the first byte of the answer's body (oha)",
          );
          expect(report).toContain("## Time to first byte");
        } else {
          expect(firsts.every((f) => f === undefined)).toBe(true);
          expect(report).not.toContain("## Time to first byte");
        }
        // The run's certificate went with the run.
        expect(readdirSync(tmpdir()).filter((n) => n.startsWith("bench-tls-"))).toEqual([]);
        expectCleanProcessTable();
      },
      60_000,
    );
  }
});

describe("apps that cannot be measured are reported, and the run goes on", () => {
  test("a taken port: that app fails naming the holder, the other is measured", async () => {
    const squatter = Bun.serve({
      port: 3000,
      hostname: "127.0.0.1",
      fetch: () => new Response("mine"),
    });
    try {
      const r = await run([...QUICK, "--tool", "autocannon", "bun-hono", "bun-bare"]);
      expectExit(r, 1);
      const apps = r.results?.apps ?? [];
      expect(apps.find((a) => a.name === "bun-hono")?.failure).toContain(
        `port 3000 is already in use by pid ${process.pid}`,
      );
      expect(apps.find((a) => a.name === "bun-bare")?.status).toBe("ok");
      expect(planned(r.results?.trials ?? []).map((t) => t.app)).toEqual(["bun-bare"]);
      expect(r.stdout).toContain("FAILED: bun-hono: port 3000 is already in use");
    } finally {
      squatter.stop(true);
    }
  }, 60_000);

  test("an app that fails verify is not measured; the next one is", async () => {
    const root = fakeRoot({ "bun-hono": WRONG_GREETING, "bun-bare": CONFORMING }, temp);
    const r = await run([
      ...QUICK,
      "--tool",
      "autocannon",
      "--apps-root",
      root,
      "bun-hono",
      "bun-bare",
    ]);
    expectExit(r, 1);
    const hono = r.results?.apps.find((a) => a.name === "bun-hono");
    expect(hono?.status).toBe("failed");
    expect(hono?.failure).toContain("violates the contract");
    expect(hono?.violations?.[0]?.detail).toContain('body "Goodbye"');
    expect(planned(r.results?.trials ?? []).map((t) => [t.app, t.checks.valid])).toEqual([
      ["bun-bare", true],
    ]);
    expectCleanProcessTable();
  }, 60_000);

  test("an app that dies mid-run is marked failed, its trial invalid, and the run continues", async () => {
    const root = fakeRoot({ "bun-bare": CRASHES_UNDER_LOAD, "bun-hono": CONFORMING }, temp);
    const r = await run([
      ...QUICK,
      "--warmup",
      "0",
      "--trials",
      "2",
      "--tool",
      "autocannon",
      "--apps-root",
      root,
      "bun-bare",
      "bun-hono",
    ]);
    expectExit(r, 1);
    expect(schemaErrors(r.results)).toEqual([]);
    const bare = r.results?.apps.find((a) => a.name === "bun-bare");
    expect(bare?.status).toBe("failed");
    expect(bare?.failure).toContain("the app exited (7) during the trial");
    const trials = planned(r.results?.trials ?? []);
    // bun-bare: one invalid trial, then skipped in round 2; bun-hono: both rounds measured.
    expect(trials.filter((t) => t.app === "bun-bare").map((t) => t.checks.valid)).toEqual([false]);
    expect(trials.filter((t) => t.app === "bun-hono").map((t) => t.checks.valid)).toEqual([
      true,
      true,
    ]);
    expectCleanProcessTable();
  }, 60_000);
});

describe("a run whose apps all work", () => {
  test("an invalid trial alone exits 1; --no-pin; rounds alternate; bodies are kept", async () => {
    const root = fakeRoot({ "bun-hono": ERRORS_UNDER_LOAD, "bun-bare": CONFORMING }, temp);
    const r = await run([
      ...QUICK,
      ...["--warmup", "0", "--trials", "2", "--no-pin", "--scenario", "api,echo"],
      ...["--apps-root", root, "bun-hono", "bun-bare"],
    ]);
    expectExit(r, 1);
    const results = r.results as Results;
    expect(schemaErrors(results)).toEqual([]);
    expect(results.apps.map((a) => [a.name, a.status])).toEqual([
      ["bun-hono", "ok"],
      ["bun-bare", "ok"],
    ]);
    const measured = planned(results.trials);
    const failing = measured.filter((t) => t.app === "bun-hono" && t.scenario === "api");
    expect(failing.map((t) => t.checks.valid)).toEqual([false, false]);
    expect(failing[0]?.checks.invalidReasons[0]).toMatch(/^\d+ failed requests \(\d+ non-2xx/);
    const others = measured.filter((t) => t !== failing[0] && t !== failing[1]);
    expect(others.map((t) => t.checks.valid)).toEqual([true, true, true, true, true, true]);
    // A B, then B A
    const order = results.trials.map((t) => `${t.round}:${t.app}`);
    expect([...new Set(order)]).toEqual(["1:bun-hono", "1:bun-bare", "2:bun-bare", "2:bun-hono"]);
    expect(results.manifest.pinning).toEqual({ enabled: false, note: "--no-pin" });
    for (const trial of results.trials) expect(trial.command[0]).not.toBe("taskset");
    // what was sent is kept next to what was measured
    expect(readFileSync(join(r.out, "body-echo.json"), "utf8")).toBe(
      findScenario("echo")?.body as string,
    );
    expect(existsSync(join(r.out, "body-api.json"))).toBe(false);
    expectCleanProcessTable();
  }, 60_000);

  test("--quick writes results/<UTC timestamp>/, and --update-readme links it", async () => {
    const resultsRoot = join(REPO_ROOT, "results");
    const before = new Set(existsSync(resultsRoot) ? readdirSync(resultsRoot) : []);
    // --quick sets 2 samples of 1 s on 50 connections; -n and -w still override it
    const r = await runBenchmark(["--quick", "-n", "1", "-w", "0", "bun-bare"]);
    const made = readdirSync(resultsRoot).filter((name) => !before.has(name));
    try {
      expectExit(r, 0);
      expect(made).toHaveLength(1);
      expect(made[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
      const dir = join(resultsRoot, made[0] as string);
      const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as Results;
      expect(results.manifest.settings).toMatchObject({
        durationSec: 1,
        samples: 2,
        warmupSec: 0,
        connections: 50,
        trials: 1,
      });
      const readmePath = join(REPO_ROOT, "README.md");
      const original = readFileSync(readmePath, "utf8");
      try {
        const u = await runBenchmark(["--update-readme", join(dir, "results.json")]);
        expectExit(u, 0);
        const updated = readFileSync(readmePath, "utf8");
        expect(updated).not.toBe(original);
        expect(updated).toContain(`[report.md](results/${made[0]}/report.md)`);
        expect(updated).toMatch(/\| bun-bare \| [\d.]+k/);
      } finally {
        writeFileSync(readmePath, original);
      }
    } finally {
      for (const name of made) rmSync(join(resultsRoot, name), { recursive: true, force: true });
    }
  }, 60_000);
});

describe("Ctrl-C", () => {
  test("SIGINT mid-run stops the app, keeps finished trials, exits 130, leaves nothing", async () => {
    let signalled = false;
    const { done } = start(
      [
        "--duration",
        "2",
        "--warmup",
        "0",
        "--trials",
        "3",
        "--samples",
        "1",
        "--tool",
        "autocannon",
        "bun-bare",
        "node-bare",
      ],
      {},
      (stderr, pid) => {
        // Interrupt during the second trial, with the first one written.
        if (!signalled && (stderr.match(/: round \d+, sample/g) ?? []).length >= 2) {
          signalled = true;
          process.kill(pid, "SIGINT");
        }
      },
    );
    const r = await done;
    expect(signalled).toBe(true);
    expectExit(r, 130);
    expect(r.results?.status).toBe("interrupted");
    expect(schemaErrors(r.results)).toEqual([]);
    expect(r.results?.trials.length).toBeGreaterThanOrEqual(1);
    expect(r.results?.trials.length).toBeLessThan(6);
    expect(r.stdout).toContain("INTERRUPTED");
    expectCleanProcessTable();
  }, 60_000);

  // SIGKILL lets the harness clean up nothing: its lifeline (runtimes/lifeline.ts) must. A 30 s
  // sample keeps the load generator running long after the kill, so what stops it is the
  // lifeline, not the end of its window.
  test("SIGKILL of the harness mid-sample: app, load generator and folders gone, port free", async () => {
    const tmp = temp("bench-kill-");
    const port = APPS.find((a) => a.name === "bun-bare")?.port as number;
    let killedAt = 0;
    let before = { serving: false, folders: [] as string[] };
    try {
      const { done } = start(
        ["-d", "30", "-w", "0", "-n", "3", "--samples", "1", "-s", "db", "bun-bare"],
        { TMPDIR: tmp },
        (stderr, pid) => {
          if (killedAt === 0 && /: round 1, sample/.test(stderr)) {
            killedAt = -1;
            // the load generator is spawned just after the line: give it a moment
            setTimeout(() => {
              before = { serving: pidsListeningOn(port).length > 0, folders: readdirSync(tmp) };
              killedAt = Date.now();
              process.kill(pid, "SIGKILL");
            }, 1500);
          }
        },
      );
      const r = await done;
      expect(r.code).toBeNull(); // killed
      expect(killedAt).toBeGreaterThan(0);
      expect(before.serving).toBe(true);
      expect(before.folders.filter((n) => n.startsWith("bench-db-"))).toHaveLength(1);
      const clean = () =>
        taggedProcesses().length === 0 &&
        pidsListeningOn(port).length === 0 &&
        readdirSync(tmp).length === 0;
      while (!clean() && Date.now() - killedAt < 10_000) await Bun.sleep(100);
      expect(taggedProcesses()).toEqual([]);
      expect(pidsListeningOn(port)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  test("SIGINT during a database scenario leaves no database folder behind", async () => {
    // A private temporary folder (TMPDIR): what is left in it is this run's alone.
    const tmp = temp("bench-int-db-");
    let signalled = false;
    let seen: string[] = [];
    try {
      const { done } = start(
        ["--warmup", "0", "--trials", "3", "--samples", "1", "-s", "db,updates", "bun-bare"],
        { TMPDIR: tmp },
        (stderr, pid) => {
          if (!signalled && (stderr.match(/: round \d+, sample/g) ?? []).length >= 2) {
            signalled = true;
            seen = readdirSync(tmp).filter((name) => name.startsWith("bench-db-"));
            process.kill(pid, "SIGINT");
          }
        },
      );
      const r = await done;
      expect(signalled).toBe(true);
      expectExit(r, 130);
      expect(seen).toHaveLength(1);
      expect(readdirSync(tmp).filter((name) => name.startsWith("bench-db-"))).toEqual([]);
      expectCleanProcessTable();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  test.skipIf(findPostgres() === undefined && process.env.CI !== "true")(
    "--db postgres: valid trials from a server of its own, gone however the run ends (SIGINT too)",
    async () => {
      const tmp = temp("bench-pg-run-");
      // Run by root, PostgreSQL runs as the postgres user, who must reach the folder.
      chmodSync(tmp, 0o711);
      const args = ["--warmup", "0", "--samples", "1", "--db", "postgres", "bun-bare"];
      const folders = () => readdirSync(tmp).filter((name) => name.startsWith("bench-pg-"));
      let postmaster = 0;
      try {
        const complete = await run([...args, "--trials", "1", "-s", "db,fortunes"], {
          TMPDIR: tmp,
        });
        expectExit(complete, 0);
        expect(complete.results?.manifest.database).toMatchObject({
          engine: "postgresql",
          clients: { bun: "Bun.sql", node: "postgres.js", deno: "postgres.js" },
          settings: { synchronous_commit: "off", pool: "8" },
        });
        expect(
          planned(complete.results?.trials ?? []).map((t) => [t.scenario, t.checks.valid]),
        ).toEqual([
          ["db", true],
          ["fortunes", true],
        ]);
        // The database's CPU is read with the server's, on the server's CPUs.
        for (const t of complete.results?.trials ?? []) {
          expect(t.databaseCpuPercent).toBeGreaterThan(1);
          expect(t.databaseCpuPercent).toBeLessThan(100);
        }
        const pinning = complete.results?.manifest.pinning;
        if (pinning?.enabled) {
          expect(complete.results?.manifest.database?.cpus).toBe(pinning.serverCpus);
        }
        expect(folders()).toEqual([]);
        const { done } = start(
          [...args, "--trials", "3", "-s", "updates"],
          { TMPDIR: tmp },
          (stderr, pid) => {
            if (postmaster === 0 && /: round 2, sample/.test(stderr)) {
              const [dir] = folders();
              postmaster = Number(
                readFileSync(join(tmp, `${dir}/data/postmaster.pid`), "utf8").split("\n")[0],
              );
              process.kill(pid, "SIGINT");
            }
          },
        );
        const interrupted = await done;
        expectExit(interrupted, 130);
        expect(postmaster).toBeGreaterThan(0);
        expect(isRunning(postmaster)).toBe(false);
        expect(folders()).toEqual([]);
        expectCleanProcessTable();
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

describe("command line", () => {
  test("an unknown flag: the cause and a pointer to --help, two lines, exit 2, nothing started", async () => {
    const r = await run(["--frobnicate"]);
    expectExit(r, 2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "benchmark.sh: unknown option '--frobnicate'",
      "Run './benchmark.sh --help' for the flags.",
    ]);
    expect(r.results).toBeUndefined();
  });

  test.each([
    [["bun-bare", "bun-bare"], "app 'bun-bare' is given twice"],
    [["-a", "bun-bare", "bun-bare"], "app 'bun-bare' is given twice"],
    [["-s", "api,api", "bun-bare"], "scenario 'api' is given twice"],
  ])("%j is refused: it would be measured twice", async (args, message) => {
    const r = await run(args);
    expectExit(r, 2);
    expect(r.stderr).toContain(message);
    expect(r.results).toBeUndefined();
  });

  test("an unusable --output: one line naming it, exit 2, no stack trace", async () => {
    const file = join(temp("bench-out-"), "a-file");
    writeFileSync(file, "mine\n");
    for (const [out, message] of [
      ["/proc/x", "cannot create the --output folder /proc/x"],
      [file, `--output ${file} is a file, not a folder`],
    ]) {
      const r = await runBenchmark(["-o", out as string, "--quick", "bun-bare"]);
      expect({ out, code: r.code, stderr: r.stderr.trim().split("\n") }).toEqual({
        out,
        code: 2,
        stderr: [`benchmark.sh: ${message}; choose another --output`],
      });
    }
    expect(readFileSync(file, "utf8")).toBe("mine\n");
  }, 60_000);

  test("--workers beyond 4 per CPU is refused before anything starts", async () => {
    const r = await run(["--workers", "999", "bun-bare"]);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/--workers 999 is more than 4 per CPU \(\d+ on this machine's \d+\)/);
  });

  test("-c past the open-file limit names the limit and the fix, exit 2", () => {
    // `ulimit -n 600` lowers the hard limit too, so benchmark.sh cannot raise it.
    const r = spawnSync(
      "bash",
      ["-c", `ulimit -n 600 && exec bash "$0" -c 1000 bun-bare`, BENCHMARK],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, BENCH_BUN: process.execPath },
        encoding: "utf8",
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      "benchmark.sh: -c 1000 needs about 1256 open files per process, but the limit is 600 " +
        "(hard limit 600): raise it (ulimit -n 1256, as root or in /etc/security/limits.conf) " +
        "or use fewer connections",
    );
  });

  test("bad values and unknown names: exit 2", async () => {
    for (const args of [
      ["--duration", "0"],
      ["--connections", "many"],
      ["--tool", "ab"],
      ["deno-oak"],
      ["--scenario", "nope"],
      ["--trials"],
    ]) {
      const r = await run(args);
      expectExit(r, 2);
      expect(r.results).toBeUndefined();
    }
  }, 60_000);

  test("--side-by-side and its companions: what they do not go with, one line, exit 2", async () => {
    const cases: [string[], string][] = [
      [
        ["--side-by-side", "--workers", "2"],
        "--side-by-side does not go with --workers other than 1",
      ],
      [["--side-by-side", "--rates", "50%"], "--side-by-side does not go with --rates"],
      [["--side-by-side", "--profile"], "--side-by-side does not go with --profile"],
      [
        ["--side-by-side", "-c", "10,50"],
        "--side-by-side does not go with a list of --connections",
      ],
      [
        ["--side-by-side", "--server-host", "example"],
        "--side-by-side does not go with --server-host",
      ],
      [
        ["--reference", "node-bare", "bun-bare"],
        "--reference node-bare is not one of the apps to run (bun-bare)",
      ],
      [["--against", "--quick"], "--against takes a git commit, branch or tag, got '--quick'"],
      [["--threshold", "3", "bun-bare"], "--threshold goes with --compare or --against"],
      [
        ["--export", "csv", "x"],
        "--export knows one format, bmf (Bencher Metric Format), got 'csv'",
      ],
      [["--export", "bmf"], "--export needs a format and a file: bmf FILE"],
      [
        ["--export", "bmf", "/nonexistent-dir/x.json", "bun-bare"],
        "--export bmf /nonexistent-dir/x.json: cannot write in /nonexistent-dir",
      ],
      [
        ["--export", "bmf", "/tmp/x.json", "--compare", "a.json", "b.json"],
        "--export goes with a run or --report, not --compare",
      ],
      [["--side-by-side", "--no-pin"], "--side-by-side does not go with --no-pin"],
      [
        ["--against", "HEAD", "--apps-root", "/tmp"],
        "--against checks out this repository's apps at the commit: not with --apps-root",
      ],
      [
        ["--calibrate", "--against", "HEAD"],
        "--calibrate measures bun-bare against itself: no --against or --reference",
      ],
    ];
    for (const [args, line] of cases) {
      const r = await run(args);
      expect({ args, code: r.code, first: r.stderr.split("\n")[0] }).toEqual({
        args,
        code: 2,
        first: `benchmark.sh: ${line}`,
      });
      expect(r.results).toBeUndefined();
    }
  }, 60_000);

  test("--help fits a screen; --help all documents every flag the table defines", async () => {
    const screen = await run(["--help"]);
    expectExit(screen, 0);
    expect(screen.stdout.trim()).toBe(helpText().trim());
    expect(screen.stdout.trim().split("\n").length).toBeLessThanOrEqual(60);
    const r = await run(["--help", "all"]);
    expectExit(r, 0);
    const names = FLAGS.flatMap((f) => [...f.names, ...(f.aliases ?? [])]);
    expect(names).toContain("-s");
    expect(names).toContain("--scenarios");
    expect(names).toContain("--apps-root");
    for (const flag of names) {
      // whole flags only: "--apps" inside "--apps-root" does not count
      const documented = new RegExp(`(^|[\\s,])${flag}(?=[\\s,=]|$)`, "m");
      expect({ flag, documented: documented.test(r.stdout) }).toEqual({ flag, documented: true });
    }
    for (const app of APPS) expect(r.stdout).toContain(app.name);
    // The help is the table's own text: nothing printed by benchmark.sh, nothing retyped.
    expect(r.stdout.trim()).toBe(helpText(true).trim());
  });

  test("an explicitly chosen tool that is missing: how to install it, exit 2", async () => {
    const path = (process.env.PATH ?? "")
      .split(":")
      .filter((d) => !existsSync(join(d, "oha")))
      .join(":");
    const r = await run(["--tool", "oha", "bun-bare"], {
      PATH: path,
      HOME: temp("home-"),
    });
    expectExit(r, 2);
    expect(r.stderr).toContain("oha is not installed; install it with: cargo install --locked oha");
  });

  test("an existing results.json is never overwritten", async () => {
    const r = await run([...QUICK, "--tool", "autocannon", "bun-bare"]);
    expectExit(r, 0);
    const before = readFileSync(join(r.out, "results.json"), "utf8");
    const again = await runBenchmark(["-o", r.out, "bun-bare"]);
    expectExit(again, 2);
    expect(again.stderr).toContain("already holds a results.json");
    expect(readFileSync(join(r.out, "results.json"), "utf8")).toBe(before);
  }, 60_000);
});

describe("the throughput curve", () => {
  test("-c 1,8: a trial per count, summarized apart, with the curve", async () => {
    const r = await run([
      ...["-c", "1,8", "-s", "hello", "-d", "1", "-w", "0", "-n", "1", "--samples", "1"],
      "bun-bare",
    ]);
    expectExit(r, 0);
    const results = r.results as Results;
    expect(schemaErrors(results)).toEqual([]);
    expect(results.manifest.settings).toMatchObject({ connections: 8, connectionCounts: [1, 8] });
    expect(planned(results.trials).map((t) => t.connections)).toEqual([1, 8]);
    expect(r.stdout).toContain("== hello (c=1)");
    expect(r.stdout).toContain("== hello (c=8)");
    const md = readFileSync(join(r.out, "report.md"), "utf8");
    expect(md).toMatch(/\| bun-bare \| [\d,]+ \([\d.]+\) \| [\d,]+ \([\d.]+\) \| c=(1|8) \|/);
  }, 60_000);
});
