// The fast-path check: how close each app comes to the fastest idiomatic code of its framework
// on the same runtime, measured in one interleaved run. Reference servers (src/hono.ts,
// src/elysia.ts) meet no contract; they exist only to put a number on what the contract's checks
// cost and on the framework pitfalls packages/fast-path/README.md describes.
//
//   bun packages/fast-path/src/run.ts [--duration S] [--warmup S] [--rounds N] [--connections C]
//                                     [--only TEXT,...]   (variants whose label contains one)
//
// Servers run on CPU 0 and wrk on the others (unpinned on a 1-core machine); every variant is
// measured once per round, in an order reversed every other round, with the harness's own wrk
// script (uncorrected latencies). Prints a Markdown table; exit 1 if any trial had errors.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { findApp, findScenario, getApp, ROUTES, userPath } from "@bench/contract";
import { pidsListeningOn } from "@bench/contract/check";
import {
  isRunning,
  localHost,
  REPO_ROOT,
  runLoad,
  startApp,
  toolCommand,
  toolVersion,
} from "@bench/harness";

const HERE = join(import.meta.dir, "..");
const NODE = join(HERE, "node_modules", ".bin", "node");

interface Server {
  readonly name: string;
  readonly port: number;
  pid: number;
  stop(): Promise<void>;
}

interface Variant {
  readonly label: string;
  readonly server: string;
  readonly path: string;
  readonly scenario: "echo" | "validate" | "api";
  /** The variant this one is shown as a percentage of. */
  readonly baseline?: string;
}

const NODE_PITFALLS: readonly Variant[] = [
  {
    label: "Hono: c.json(await c.req.json())",
    server: "hono-ref",
    path: "/echo",
    scenario: "echo",
  },
  {
    label: "Hono: hono/body-limit, then c.req.json()",
    server: "hono-limit",
    path: "/echo-body-limit",
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "Hono: the media-type check alone",
    server: "hono-ref",
    path: "/echo-content-type",
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "Hono: the document check alone",
    server: "hono-ref",
    path: "/echo-document",
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "Hono: the app's checks in one handler",
    server: "hono-ref",
    path: "/echo-checked",
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "Hono: node-hono's app mounted in this process",
    server: "hono-ref",
    path: `/app${ROUTES.echo}`,
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "node-hono echo (the app)",
    server: "node-hono",
    path: ROUTES.echo,
    scenario: "echo",
    baseline: "Hono: c.json(await c.req.json())",
  },
  {
    label: "node-elysia echo (the app)",
    server: "node-elysia",
    path: ROUTES.echo,
    scenario: "echo",
  },
  {
    label: "node-elysia validate (the app)",
    server: "node-elysia",
    path: userPath(42),
    scenario: "validate",
    baseline: "node-elysia echo (the app)",
  },
  {
    label: "Elysia: body schema, default parse",
    server: "elysia-ref",
    path: "/validate",
    scenario: "validate",
    baseline: "node-elysia echo (the app)",
  },
  {
    label: 'Elysia: body schema, parse: "json"',
    server: "elysia-ref",
    path: "/validate-json",
    scenario: "validate",
    baseline: "node-elysia echo (the app)",
  },
  {
    label: 'Elysia: no schema, parse: "json"',
    server: "elysia-ref",
    path: "/update-json",
    scenario: "validate",
    baseline: "node-elysia echo (the app)",
  },
  {
    label: "Elysia: no schema, node-elysia's parser",
    server: "elysia-ref",
    path: "/update-app-parser",
    scenario: "validate",
    baseline: "node-elysia echo (the app)",
  },
];

const FRAMEWORKS = ["hono", "elysia", "express", "fastify"] as const;
const RUNTIMES = ["node", "bun", "deno"] as const;

/**
 * On every runtime, each framework app's echo and api against its framework's shortest
 * idiomatic server on the same runtime (src/refs.ts): labels like "bun-hono echo (the app,
 * against its reference)" and "hono reference on bun: echo". Labels are unique: they key the
 * measurements.
 */
function appVariants(): Variant[] {
  return RUNTIMES.flatMap((runtime) =>
    FRAMEWORKS.flatMap((framework) =>
      (["echo", "api"] as const).flatMap((scenario): Variant[] => {
        const reference = `${framework} reference on ${runtime}: ${scenario}`;
        const path = scenario === "echo" ? "/echo" : ROUTES.api;
        return [
          { label: reference, server: `ref:${runtime}:${framework}`, path, scenario },
          {
            label: `${runtime}-${framework} ${scenario} (the app, against its reference)`,
            server: `${runtime}-${framework}`,
            path: scenario === "echo" ? ROUTES.echo : ROUTES.api,
            scenario,
            baseline: reference,
          },
        ];
      }),
    ),
  );
}

/**
 * bun-hono's and deno-hono's echo against the plain Hono echo on the same runtime, and each of
 * the apps' checks alone: where their distance to the plain route goes (the breakdown
 * NODE_PITFALLS gives for node-hono, on Bun.serve and Deno.serve). "the app mounted" runs the
 * app's routes in the reference's process, without the app's entry (fetchWithHead).
 */
function honoBreakdown(runtime: "bun" | "deno"): Variant[] {
  const plain = `Hono on ${runtime}: c.json(await c.req.json())`;
  const server = `hono-ref:${runtime}`;
  const alone = (label: string, path: string): Variant => ({
    label: `Hono on ${runtime}: ${label}`,
    server,
    path,
    scenario: "echo",
    baseline: plain,
  });
  return [
    { label: plain, server, path: "/echo", scenario: "echo" },
    alone("the media-type check alone", "/echo-content-type"),
    alone("the document check alone", "/echo-document"),
    alone("the app's checks in one handler", "/echo-checked"),
    alone(`${runtime}-hono's app mounted in this process`, `/app${ROUTES.echo}`),
    {
      label: `${runtime}-hono echo, against Hono on ${runtime}`,
      server: `${runtime}-hono`,
      path: ROUTES.echo,
      scenario: "echo",
      baseline: plain,
    },
  ];
}

const VARIANTS: readonly Variant[] = [
  ...NODE_PITFALLS,
  ...appVariants(),
  ...honoBreakdown("bun"),
  ...honoBreakdown("deno"),
];
if (new Set(VARIANTS.map((v) => v.label)).size !== VARIANTS.length) {
  throw new Error("two variants share a label: their measurements would mix");
}

async function waitReady(port: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && alive()) {
    try {
      await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`nothing answered on port ${port}`);
}

async function startReference(
  name: string,
  file: string,
  port: number,
  cpus?: string,
  env: Record<string, string> = {},
  runtime: readonly string[] = [NODE],
) {
  const argv = [...runtime, join(HERE, "src", file)];
  const [cmd, ...args] = cpus ? ["taskset", "-c", cpus, ...argv] : argv;
  const child: ChildProcess = spawn(cmd as string, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const pid = child.pid ?? 0;
  await waitReady(port, () => isRunning(pid));
  const exited = new Promise((done) => child.once("exit", done));
  return {
    name,
    port,
    pid,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  } satisfies Server;
}

/** The runtime binaries the references run on: the lockfile's Node, Bun and Deno. */
const BINARIES = {
  node: [NODE],
  bun: [process.execPath],
  deno: [join(REPO_ROOT, "apps", "deno-bare", "node_modules", "deno", "deno"), "run", "-A"],
} as const;

/**
 * A fresh process per trial: every variant starts, warms up and is measured alike. One server
 * runs at a time, so the references all borrow bun-bare's port (this check never starts
 * bun-bare), and ./benchmark.sh must not run alongside. Names: an app of the registry,
 * "ref:RUNTIME:FRAMEWORK" (refs.ts), "hono-ref[:RUNTIME]" and "hono-limit" (hono.ts),
 * "elysia-ref" (elysia.ts, on Node).
 */
async function startServer(name: string, cpus?: string): Promise<Server> {
  if (findApp(name)) {
    const app = getApp(name);
    const running = await startApp(app, cpus ? { cpus } : {});
    const pid = pidsListeningOn(app.port)[0] ?? running.pid;
    return { name, port: app.port, pid, stop: async () => void (await running.stop()) };
  }
  const port = getApp("bun-bare").port;
  const [kind, runtime = "node", framework = ""] = name.split(":") as [
    string,
    keyof typeof BINARIES | undefined,
    string | undefined,
  ];
  const binary = BINARIES[runtime];
  if (kind === "ref") {
    return startReference(name, "refs.ts", port, cpus, { FRAMEWORK: framework }, binary);
  }
  if (kind === "hono-ref") return startReference(name, "hono.ts", port, cpus, {}, binary);
  if (kind === "elysia-ref") return startReference(name, "elysia.ts", port, cpus);
  return startReference(name, "hono.ts", port, cpus, { LIMIT: "1" });
}

interface Measured {
  readonly rps: number[];
  readonly p99: number[];
  readonly cpu: number[];
  readonly rss: number[];
  errors: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Per round, this variant's req/s over its baseline's, measured in the same round. */
function pairedShares(m: Measured, base: Measured): number[] {
  return m.rps.map((rps, i) => (100 * rps) / (base.rps[i] as number));
}

function table(measured: Map<string, Measured>, variants: readonly Variant[]): string {
  const rows = [
    "| variant | req/s (median) | range | % of, per round: median (range) | p99 ms (median) | server CPU % | peak RSS MiB |",
    "|---|--:|--:|---|--:|--:|--:|",
  ];
  for (const v of variants) {
    const m = measured.get(v.label) as Measured;
    const base = v.baseline ? measured.get(v.baseline) : undefined;
    const shares = base ? pairedShares(m, base) : [];
    const share = base
      ? `${median(shares).toFixed(0)}% (${Math.min(...shares).toFixed(0)}–${Math.max(...shares).toFixed(0)}) of ${v.baseline}`
      : "";
    const range = `${Math.min(...m.rps).toFixed(0)}–${Math.max(...m.rps).toFixed(0)}`;
    rows.push(
      `| ${v.label} | ${median(m.rps).toFixed(0)} | ${range} | ${share} | ${median(m.p99).toFixed(1)} | ${median(m.cpu).toFixed(0)} | ${Math.max(...m.rss).toFixed(0)} |`,
    );
  }
  return rows.join("\n");
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "5" },
      rounds: { type: "string", default: "3" },
      connections: { type: "string", default: "400" },
      only: { type: "string" },
    },
  });
  const [durationSec, warmupSec, rounds, connections] = [
    values.duration,
    values.warmup,
    values.rounds,
    values.connections,
  ].map(Number) as [number, number, number, number];
  // --only hono,elysia: the variants whose label contains one of them, any case (and their
  // baselines).
  const only = values.only?.toLowerCase().split(",");
  const wanted = VARIANTS.filter(
    (v) => !only || only.some((text) => v.label.toLowerCase().includes(text)),
  );
  const chosen = VARIANTS.filter(
    (v) => wanted.includes(v) || wanted.some((w) => w.baseline === v.label),
  );
  const cores = availableParallelism();
  const serverCpus = cores >= 2 ? "0" : undefined;
  const loadCpus = cores >= 2 ? `1-${cores - 1}` : undefined;
  const tool = { name: "wrk" as const, path: Bun.which("wrk") ?? "wrk", version: "" };
  const wrk = { ...tool, version: toolVersion("wrk", tool.path) };
  const bodies = mkdtempSync(join(tmpdir(), "fast-path-"));
  let current: Server | undefined;
  process.once(
    "SIGINT",
    () => void (current?.stop() ?? Promise.resolve()).then(() => process.exit(130)),
  );
  const measured = new Map<string, Measured>(
    VARIANTS.map((v) => [v.label, { rps: [], p99: [], cpu: [], rss: [], errors: 0 }]),
  );
  const load = async (v: Variant, server: Server, seconds: number) => {
    const scenario = findScenario(v.scenario) as NonNullable<ReturnType<typeof findScenario>>;
    const bodyFile = join(bodies, `${v.scenario}.json`);
    writeFileSync(bodyFile, scenario.body ?? "");
    const cmd = toolCommand(wrk, {
      url: `http://127.0.0.1:${server.port}${v.path}`,
      scenario,
      connections,
      durationSec: seconds,
      bodyFile,
      ...(loadCpus ? { cpus: loadCpus } : {}),
      cores: cores >= 2 ? cores - 1 : cores,
    });
    const sampled = {
      serverTree: [server.pid],
      serverCpus: serverCpus ? [0] : [],
      machineCores: cores,
      host: localHost(),
    };
    return runLoad(wrk, cmd, seconds, sampled);
  };
  // One trial: a fresh process for the variant, its warm-up on the same route, the measurement.
  const trial = async (v: Variant) => {
    current = await startServer(v.server, serverCpus);
    try {
      await load(v, current, warmupSec);
      return await load(v, current, durationSec);
    } finally {
      await current.stop();
      current = undefined;
    }
  };
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? chosen : [...chosen].reverse();
    for (const v of order) {
      const run = await trial(v);
      const m = measured.get(v.label) as Measured;
      const r = run.result;
      if (!r) throw new Error(`${v.label}: ${run.problem}`);
      m.rps.push(r.rps);
      m.p99.push(r.latencyMs.p99);
      m.cpu.push(run.rates.serverCpuPercent);
      m.rss.push(run.peakRssBytes / 2 ** 20);
      const failed = r.non2xx + r.socketErrors + r.timeouts;
      m.errors += failed;
      if (failed > 0) process.stderr.write(`  ${v.label}: ${JSON.stringify(r.errorDetails)}\n`);
      process.stderr.write(`round ${round}: ${v.label}: ${r.rps.toFixed(0)} req/s\n`);
    }
  }
  console.log(
    `wrk ${wrk.version}, ${connections} connections, ${rounds} rounds of ${durationSec} s`,
  );
  console.log(
    `(each in a fresh process after ${warmupSec} s warm-up); servers on CPU ${serverCpus ?? "any"}.\n`,
  );
  console.log(table(measured, chosen));
  const failed = [...measured].filter(([, m]) => m.errors > 0);
  for (const [label, m] of failed) console.error(`${label}: ${m.errors} failed requests`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
