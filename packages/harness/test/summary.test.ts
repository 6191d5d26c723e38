import { describe, expect, test } from "bun:test";
import { findScenario } from "@bench/contract";
import type { Results, Trial } from "../src/schema.ts";
import { schemaErrors } from "../src/schema.ts";
import { spread, verdict } from "../src/stats.ts";
import { formatSummary, summarize } from "../src/summary.ts";
import { toolCommand } from "../src/tools.ts";

describe("stats", () => {
  test("mean, sample stddev, CoV", () => {
    const s = spread([100, 110, 90]);
    expect(s.mean).toBe(100);
    expect(s.stddev).toBeCloseTo(10, 10);
    expect(s.cov).toBeCloseTo(0.1, 10);
    expect(spread([5]).stddev).toBe(0);
    expect(spread([]).n).toBe(0);
  });

  test("the verdict scale", () => {
    expect(verdict(0.029)).toBe("excellent");
    expect(verdict(0.03)).toBe("acceptable");
    expect(verdict(0.049)).toBe("acceptable");
    expect(verdict(0.07)).toBe("noisy");
    expect(verdict(0.11)).toBe("unreliable");
  });
});

function trial(app: string, rps: number, overrides: Partial<Trial["checks"]> = {}): Trial {
  return {
    app,
    scenario: "api",
    round: 1,
    startedAt: "2026-11-21T00:00:00.000Z",
    command: ["oha"],
    result: {
      requests: rps * 2,
      durationSec: 2,
      rps,
      bytesPerSec: rps * 100,
      latencyMs: { mean: 1, p50: 1, p90: 2, p99: 4, p999: 8, max: 9 },
      statuses: { "200": rps * 2 },
      non2xx: 0,
      socketErrors: 0,
      timeouts: 0,
      aborted: 0,
      errorDetails: {},
    },
    server: { pid: 1, cpuPercent: 99, peakRssMiB: 50 },
    loadGenerator: { cpuPercent: 60, capacityCores: 1 },
    checks: {
      errorRate: 0,
      valid: true,
      invalidReasons: [],
      loadGeneratorBound: false,
      littlesLaw: { inFlight: 50, ratio: 1, checked: true, ok: true },
      ...overrides,
    },
  };
}

function results(trials: Trial[], failed: Record<string, string> = {}): Results {
  const apps = ["bun-hono", "bun-bare", "node-hono", "node-bare"];
  return {
    schemaVersion: 1,
    status: "complete",
    startedAt: "2026-11-21T00:00:00.000Z",
    manifest: {
      tool: { name: "oha", version: "1.16.0", path: "/usr/bin/oha" },
      settings: {
        apps,
        scenarios: ["api"],
        durationSec: 2,
        warmupSec: 1,
        connections: 50,
        trials: 2,
        keepAlive: true,
        errorThreshold: 0.0001,
        argv: [],
      },
      pinning: { enabled: true, serverCpus: "0", loadCpus: "1" },
      machine: { cpuModel: "test cpu", cores: 2, memoryGiB: 24, os: "Debian", kernel: "Linux 6" },
      versions: { lockfile: { hono: "4.13.19" }, harnessBun: "1.4.5" },
      git: { commit: "0123456789abcdef", dirty: false },
    },
    apps: apps.map((name) => ({
      name,
      runtime: name.split("-")[0] as string,
      framework: name.split("-")[1] as string,
      port: 3000,
      status: failed[name] ? ("failed" as const) : ("ok" as const),
      ...(failed[name] ? { failure: failed[name] } : {}),
    })),
    trials,
  };
}

describe("summary", () => {
  const sample = results(
    [
      trial("bun-hono", 90_000),
      trial("bun-hono", 110_000),
      trial("bun-bare", 200_000, { loadGeneratorBound: true }),
      trial("bun-bare", 200_000, { loadGeneratorBound: true }),
      trial("node-hono", 40_000),
      trial("node-hono", 999_999, { valid: false, invalidReasons: ["12 failed requests"] }),
    ],
    { "node-bare": "port 3005 is already in use by pid 42 (python3 -m http.server)" },
  );

  test("the synthetic results conform to the schema (so the test exercises real shapes)", () => {
    expect(schemaErrors(sample)).toEqual([]);
  });

  test("rows sorted by mean req/s over valid trials, relative to fastest and to the bare baseline", () => {
    const rows = summarize(sample).get("api") ?? [];
    expect(rows.map((r) => r.app)).toEqual(["bun-bare", "bun-hono", "node-hono", "node-bare"]);
    const hono = rows.find((r) => r.app === "bun-hono");
    expect(hono?.rps.mean).toBe(100_000);
    expect(hono?.pctOfFastest).toBeCloseTo(50, 10);
    expect(hono?.pctOfBaseline).toBeCloseTo(50, 10);
    const nodeHono = rows.find((r) => r.app === "node-hono");
    expect(nodeHono?.rps.mean).toBe(40_000); // the invalid 999,999 is left out
    expect(nodeHono?.validTrials).toBe(1);
    expect(nodeHono?.pctOfBaseline).toBeUndefined(); // node-bare failed: no baseline
    expect(nodeHono?.flags.join()).toContain("INVALID 1/2 (12 failed requests)");
  });

  test("flags stand next to the app in the printed summary", () => {
    const text = formatSummary(sample);
    expect(text).toContain("bun-bare: LOAD-GENERATOR BOUND 2/2: a lower bound");
    expect(text).toContain("node-bare: FAILED: port 3005 is already in use");
    expect(text).toContain("100,000 ± 14,142");
    expect(text).toContain("14.1% unreliable");
  });
});

describe("tool command lines send the same request", () => {
  const echo = findScenario("echo");
  if (!echo) throw new Error("no echo scenario");
  const plan = {
    url: "http://127.0.0.1:3000/api/echo",
    scenario: echo,
    connections: 64,
    durationSec: 5,
    bodyFile: "/tmp/body.json",
    cpus: "1",
    cores: 1,
  };

  test("oha: JSON output, waits for in-flight requests, POST body from the file", () => {
    const c = toolCommand({ name: "oha", path: "/bin/oha", version: "1" }, plan);
    expect(c.argv.join(" ")).toBe(
      "taskset -c 1 /bin/oha --no-tui --output-format json -z 5s -c 64 -w -t 10s -m POST " +
        "-H content-type: application/json -D /tmp/body.json http://127.0.0.1:3000/api/echo",
    );
    expect(c.resultOn).toBe("stdout");
  });

  test("wrk: the Lua script carries method, type and body; JSON on stderr", () => {
    const c = toolCommand({ name: "wrk", path: "/bin/wrk", version: "4" }, plan);
    expect(c.argv.slice(0, 12).join(" ")).toBe(
      "taskset -c 1 /bin/wrk -t 1 -c 64 -d 5s --timeout 10s",
    );
    expect(c.env).toEqual({
      BENCH_METHOD: "POST",
      BENCH_CONTENT_TYPE: "application/json",
      BENCH_BODY_FILE: "/tmp/body.json",
    });
    expect(c.resultOn).toBe("stderr");
  });

  test("autocannon: single-threaded, so its capacity is one core", () => {
    const c = toolCommand(
      { name: "autocannon", path: "/x/autocannon.js", version: "9" },
      { ...plan, cores: 3 },
    );
    expect(c.capacityCores).toBe(1);
    expect(c.argv).toContain("-i");
    expect(c.argv).toContain("content-type=application/json");
  });
});
