// The load generators' command lines (oha's at a fixed rate too), and what the harness counts
// of each tool's capacity. The tools run for real (wrk, oha, autocannon against a stand-in
// server) in tools.e2e.test.ts.
import { describe, expect, test } from "bun:test";
import { findScenario, type Scenario } from "@bench/contract";
import { WS_BROADCAST_IN_FLIGHT } from "@bench/contract/ws";
import { H2LOAD_WARMUP_MS, physicalCores, toolCommand, wrkThreads } from "../src/load/tools.ts";

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

describe("tool command lines send the same request", () => {
  test("oha: JSON output, waits for in-flight requests, POST body from the file", () => {
    const c = toolCommand({ name: "oha", path: "/bin/oha", version: "1" }, plan);
    expect(c.argv.join(" ")).toBe(
      "taskset -c 1 /bin/oha --no-tui --disable-compression --output-format json -z 5s -c 64 -w -t 10s -m POST " +
        "-H content-type: application/json -D /tmp/body.json http://127.0.0.1:3000/api/echo",
    );
    expect(c.resultOn).toBe("stdout");
    expect(c.connections).toBe(64);
  });

  test("wrk: the Lua script carries method, type, body and -c; JSON on stderr", () => {
    const c = toolCommand({ name: "wrk", path: "/bin/wrk", version: "4" }, plan);
    expect(c.argv.slice(0, 12).join(" ")).toBe(
      "taskset -c 1 /bin/wrk -t 1 -c 64 -d 5s --timeout 10s",
    );
    expect(c.env).toEqual({
      BENCH_METHOD: "POST",
      BENCH_CONNECTIONS: "64",
      BENCH_CONTENT_TYPE: "application/json",
      BENCH_BODY_FILE: "/tmp/body.json",
    });
    expect(c.resultOn).toBe("stderr");
  });

  test("autocannon: single-threaded", () => {
    const c = toolCommand(
      { name: "autocannon", path: "/x/autocannon.js", version: "9" },
      { ...plan, cores: 3 },
    );
    expect(c.threads).toBe(1);
    expect(c.argv).toContain("-i");
    expect(c.argv).toContain("content-type=application/json");
  });
});

describe("the h2 scenario: oha over HTTP/2, the in-flight requests as connections × streams", () => {
  const h2 = findScenario("h2");
  if (!h2) throw new Error("no h2 scenario");
  const h2Plan = {
    ...plan,
    url: "https://127.0.0.1:4000/api/test",
    scenario: h2,
    connections: 100,
  };

  test("oha: --http2, 10 connections of 10 streams, the run's certificate not verified", () => {
    const c = toolCommand({ name: "oha", path: "/bin/oha", version: "1" }, h2Plan);
    const argv = c.argv.join(" ");
    expect(argv).toContain(" -z 5s --http2 -c 10 -p 10 -w ");
    expect(argv).toEndWith(" --insecure https://127.0.0.1:4000/api/test");
    // The judge's in-flight bound is every stream of every connection.
    expect(c.connections).toBe(100);
    expect(c.threads).toBe(Math.min(physicalCores(), 10));
  });

  test("wrk and autocannon speak HTTP/1.1 only: refused, not sent over HTTP/1.1", () => {
    for (const name of ["wrk", "autocannon"] as const) {
      expect(() => toolCommand({ name, path: "/bin/x", version: "1" }, h2Plan)).toThrow(
        `${name} speaks HTTP/1.1 only: the h2 scenario needs oha or h2load`,
      );
    }
  });

  test("h2c: --http2 on an http:// URL (prior knowledge), connections × streams, no --insecure", () => {
    const h2c = findScenario("h2c") as Scenario;
    const url = "http://127.0.0.1:5005/api/test";
    const c = toolCommand(
      { name: "oha", path: "/bin/oha", version: "1" },
      { ...h2Plan, scenario: h2c, url },
    );
    const argv = c.argv.join(" ");
    expect(argv).toContain(" -z 5s --http2 -c 10 -p 10 -w ");
    expect(argv).toEndWith(` -w -t 10s -m GET ${url}`);
    expect(c.connections).toBe(100);
    expect(() =>
      toolCommand({ name: "wrk", path: "/bin/wrk", version: "1" }, { ...h2Plan, scenario: h2c }),
    ).toThrow("wrk speaks HTTP/1.1 only: the h2c scenario needs oha or h2load");
  });

  test("the tls scenario stays on HTTP/1.1: -c as given, no --http2", () => {
    const tls = findScenario("tls") as Scenario;
    const c = toolCommand(
      { name: "oha", path: "/bin/oha", version: "1" },
      { ...h2Plan, scenario: tls },
    );
    expect(c.argv).not.toContain("--http2");
    expect(c.argv.join(" ")).toContain(" -c 100 -w ");
  });
});

describe("h2load: HTTP/1.1, TLS, h2 and h2c, timed after a warm-up, every request logged", () => {
  const h2load = { name: "h2load", path: "/bin/h2load", version: "1.52.0" } as const;
  const api = findScenario("api") as Scenario;
  const at = (scenario: string, url: string, more = {}) =>
    toolCommand(h2load, {
      ...plan,
      scenario: findScenario(scenario) as Scenario,
      url,
      connections: 100,
      ...more,
    });

  test("api: --h1, one request in flight per connection, -D after the warm-up, a log file", () => {
    const c = at("api", "http://127.0.0.1:3000/api/test");
    const log = c.h2load?.logFile ?? "";
    expect(c.argv.join(" ")).toBe(
      "taskset -c 1 /bin/h2load --h1 -c 100 -m 1 -t 1 -D 5000ms " +
        `--warm-up-time ${H2LOAD_WARMUP_MS}ms --log-file=${log} http://127.0.0.1:3000/api/test`,
    );
    expect(log).toMatch(/bench-h2load-\d+-\d+\.log$/);
    expect(c.h2load?.protocol).toBe("http/1.1");
    expect([c.resultOn, c.connections, c.threads]).toEqual(["stdout", 100, 1]);
    // Each command its own log: h2load appends, so two runs must not share one.
    expect(at("api", "http://127.0.0.1:3000/api/test").h2load?.logFile).not.toBe(log);
  });

  test("tls stays HTTP/1.1 (--h1 on https); h2 and h2c: connections × streams, their protocol", () => {
    const tls = at("tls", "https://127.0.0.1:4000/api/test");
    expect(tls.argv).toContain("--h1");
    expect(tls.h2load?.protocol).toBe("http/1.1");
    const h2 = at("h2", "https://127.0.0.1:4000/api/test");
    expect(h2.argv).not.toContain("--h1");
    expect(h2.argv.join(" ")).toContain(" -c 10 -m 10 -t 1 ");
    expect([h2.h2load?.protocol, h2.connections]).toEqual(["h2", 100]);
    const h2c = at("h2c", "http://127.0.0.1:5005/api/test");
    expect(h2c.argv).not.toContain("--h1");
    expect(h2c.h2load?.protocol).toBe("h2c");
  });

  test("the method: POST with the body file and its type; another through :method; headers", () => {
    const post = toolCommand(h2load, plan).argv.join(" ");
    expect(post).toContain(" -H content-type: application/json -d /tmp/body.json ");
    const cors = at("cors", "http://127.0.0.1:3000/api/test").argv.join(" ");
    expect(cors).toContain(" -H :method: OPTIONS ");
    for (const [name, value] of Object.entries(findScenario("cors")?.headers ?? {})) {
      expect(cors).toContain(` -H ${name}: ${value} `);
    }
    expect(at("api", "http://x/").argv).not.toContain("-d");
  });

  test("threads: the cores it may use, at most one per connection", () => {
    expect(at("api", "http://x/", { cores: 2, cpus: undefined }).threads).toBe(2);
    expect(at("h2", "https://x/", { cores: 16, cpus: undefined }).threads).toBe(10);
    expect(at("api", "http://x/", { cores: 4, connections: 1 }).argv.join(" ")).toContain(
      " -c 1 -m 1 -t 1 ",
    );
  });

  test("no fixed rate, no WebSocket; other tools carry no log", () => {
    expect(() => toolCommand(h2load, { ...plan, scenario: api, rate: 100 })).toThrow(
      "h2load cannot send a fixed rate",
    );
    const ws = findScenario("ws-echo") as Scenario;
    expect(() => toolCommand(h2load, { ...plan, scenario: ws })).toThrow(
      "the ws-echo scenario cannot be loaded by h2load",
    );
    expect(toolCommand({ name: "oha", path: "/bin/oha", version: "1" }, plan).h2load).toBe(
      undefined,
    );
  });
});

describe("the WebSocket scenarios: ws-load, and no other tool", () => {
  const wsLoad = { name: "ws-load", path: "/bin/ws-load", version: "0.1.0" } as const;
  const wsPlan = (name: string, cores = 1) => ({
    ...plan,
    url: `ws://127.0.0.1:3004${findScenario(name)?.path}`,
    scenario: findScenario(name) as Scenario,
    connections: 50,
    cores,
  });

  test("ws-echo: echo mode, the scenario's message size, every wait bounded", () => {
    const c = toolCommand(wsLoad, wsPlan("ws-echo"));
    expect(c.argv.join(" ")).toBe(
      "taskset -c 1 /bin/ws-load echo --url ws://127.0.0.1:3004/ws/echo -c 50 -d 5 --size 32 -t 1 --timeout 10",
    );
    expect([c.resultOn, c.connections, c.threads, c.expectedStatus]).toEqual([
      "stdout",
      50,
      1,
      200,
    ]);
  });

  test("ws-echo-4k and ws-broadcast: their sizes and mode; a thread per core it may use", () => {
    const big = toolCommand(wsLoad, { ...wsPlan("ws-echo-4k", 3), cpus: undefined });
    expect(big.argv.join(" ")).toBe(
      "/bin/ws-load echo --url ws://127.0.0.1:3004/ws/echo -c 50 -d 5 --size 4096 -t 3 --timeout 10",
    );
    expect(big.threads).toBe(3);
    const fan = toolCommand(wsLoad, { ...wsPlan("ws-broadcast"), connections: 2, cores: 4 });
    expect(fan.argv.slice(3, 6)).toEqual(["/bin/ws-load", "broadcast", "--url"]);
    expect(fan.argv).toContain("ws://127.0.0.1:3004/ws/broadcast");
    expect(fan.argv.slice(-2)).toEqual(["-p", String(WS_BROADCAST_IN_FLIGHT)]);
    // No more threads than connections.
    expect(fan.threads).toBe(2);
    // The judge's bound: every subscriber's receipt of every message in flight; the trial's
    // connections stay the ones asked for.
    expect([fan.connections, fan.inFlight]).toEqual([2, 2 * WS_BROADCAST_IN_FLIGHT]);
    expect(toolCommand(wsLoad, wsPlan("ws-echo")).inFlight).toBeUndefined();
  });

  test("an HTTP tool cannot load a WebSocket scenario, nor ws-load an HTTP one", () => {
    for (const name of ["oha", "wrk", "autocannon"] as const) {
      expect(() => toolCommand({ name, path: "/bin/x", version: "1" }, wsPlan("ws-echo"))).toThrow(
        `the ws-echo scenario cannot be loaded by ${name}`,
      );
    }
    expect(() => toolCommand(wsLoad, plan)).toThrow(
      "the echo scenario cannot be loaded by ws-load",
    );
  });
});

describe("tls-handshake: ws-load's handshake mode, the run's certificate pinned", () => {
  const wsLoad = { name: "ws-load", path: "/bin/ws-load", version: "0.1.0" } as const;
  const handshake = {
    ...plan,
    url: "https://127.0.0.1:4004/api/test",
    scenario: findScenario("tls-handshake") as Scenario,
    connections: 50,
    cores: 2,
    cpus: undefined,
    caFile: "/tmp/bench-tls-1/cert.pem",
  };

  test("a new connection per request, the certificate as --ca, every wait bounded", () => {
    const c = toolCommand(wsLoad, handshake);
    expect(c.argv.join(" ")).toBe(
      "/bin/ws-load handshake --url https://127.0.0.1:4004/api/test --ca /tmp/bench-tls-1/cert.pem -c 50 -d 5 -t 2 --timeout 10",
    );
    expect([c.connections, c.threads, c.expectedStatus, c.inFlight]).toEqual([
      50,
      2,
      200,
      undefined,
    ]);
  });

  test("no certificate, no command; an HTTP tool cannot load it (they resume sessions)", () => {
    const { caFile: _, ...bare } = handshake;
    expect(() => toolCommand(wsLoad, bare)).toThrow(
      "the tls-handshake scenario needs the run's certificate (caFile)",
    );
    for (const name of ["oha", "wrk", "autocannon"] as const) {
      expect(() => toolCommand({ name, path: "/bin/x", version: "1" }, handshake)).toThrow(
        `the tls-handshake scenario cannot be loaded by ${name}`,
      );
    }
  });
});

describe("wrk opens every connection it is asked for", () => {
  test("threads divide the connections: -c 400 on 15 cores is 10 threads of 40, not 15 of 26", () => {
    expect(wrkThreads(400, 15)).toBe(10);
    expect(400 % wrkThreads(400, 15)).toBe(0);
    expect(wrkThreads(400, 1)).toBe(1);
    expect(wrkThreads(32, 3)).toBe(2);
    expect(wrkThreads(7, 4)).toBe(1);
    // never more threads than connections
    expect(wrkThreads(2, 8)).toBe(2);
  });

  test("the command line and the recorded connections agree", () => {
    const c = toolCommand(
      { name: "wrk", path: "/bin/wrk", version: "4" },
      { ...plan, connections: 400, cores: 15, cpus: "1-15" },
    );
    expect(c.argv.join(" ")).toContain("-t 10 -c 400");
    expect(c.threads).toBe(10);
    expect(c.connections).toBe(400);
  });
});

describe("oha runs one load thread per physical core, whatever taskset allows", () => {
  const cpu = (physical: number, core: number) =>
    `processor\t: x\nphysical id\t: ${physical}\ncore id\t\t: ${core}\ncpu cores\t: 4\n`;

  test("physical cores: distinct (physical id, core id) pairs, hyper-threads counted once", () => {
    const twoSocketsHt = [0, 1]
      .flatMap((socket) => [0, 1, 2, 3, 0, 1, 2, 3].map((core) => cpu(socket, core)))
      .join("\n");
    expect(physicalCores(twoSocketsHt)).toBe(8);
    expect(physicalCores([cpu(0, 0), cpu(0, 1)].join("\n"))).toBe(2);
  });

  test("no topology in /proc/cpuinfo (some ARM machines): the usable cores", () => {
    expect(physicalCores("processor\t: 0\nBogoMIPS\t: 50\n")).toBeGreaterThanOrEqual(1);
  });

  test("oha's threads: min(physical cores, connections)", () => {
    const oha = { name: "oha" as const, path: "/bin/oha", version: "1" };
    expect(toolCommand(oha, { ...plan, connections: 1 }).threads).toBe(1);
    expect(toolCommand(oha, { ...plan, connections: 10_000 }).threads).toBe(physicalCores());
  });
});

describe("oha in rate mode", () => {
  const scenario = findScenario("api") as Scenario;
  const plan = {
    url: "http://127.0.0.1:3004/api/test",
    scenario,
    connections: 64,
    durationSec: 2,
    cores: 1,
  };
  const oha = { name: "oha" as const, path: "/usr/bin/oha", version: "1.16.0" };

  test("the command asks for the rate and for latency from when requests were due", () => {
    const argv = toolCommand(oha, { ...plan, rate: 5000 }).argv;
    expect(argv.slice(-4)).toEqual(["-q", "5000", "--latency-correction", plan.url]);
    expect(toolCommand(oha, plan).argv).not.toContain("-q");
  });

  test("wrk and autocannon refuse a rate rather than fake one", () => {
    for (const name of ["wrk", "autocannon"] as const) {
      expect(() => toolCommand({ ...oha, name }, { ...plan, rate: 5000 })).toThrow(
        /cannot send a fixed rate/,
      );
    }
  });
});
