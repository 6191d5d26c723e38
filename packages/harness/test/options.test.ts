// ./benchmark.sh's command line as the harness reads it: the flags table, the modes' defaults,
// the rules between flags, and the options a run is given.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DEFAULT_MAX_STEAL } from "../src/analysis/steal.ts";
import { findPostgres } from "../src/apps/postgres-server.ts";
import { onPath } from "../src/hosts/host.ts";
import { commandOf } from "../src/run/command.ts";
import { chooseTool, findOha, findWsLoad } from "../src/run/environment.ts";
import { DEFAULTS, PRECISION_FLOOR, QUICK, SIDE } from "../src/run/flags.ts";
import { helpText } from "../src/run/help.ts";
import { runOptions } from "../src/run/options.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();
const out = () => join(temp("bench-options-"), "run");
const BASE = ["--duration", "1", "--warmup", "0", "--connections", "1", "--rounds", "1"];
const parse = (...args: string[]) =>
  runOptions([...BASE, "--tool", "autocannon", "-o", out(), ...args], () => {});

describe("--max-steal", () => {
  test("the default --help states, a percentage up to 100 (off), into the manifest's settings", () => {
    const help = helpText(true).replace(/\s+/g, " ");
    expect(help).toContain(`(default: ${DEFAULT_MAX_STEAL},`);
    expect(parse("bun-bare").maxSteal).toBe(DEFAULT_MAX_STEAL);
    expect(parse("--max-steal", "20", "bun-bare").maxSteal).toBe(20);
    expect(parse("--max-steal", "100", "bun-bare").maxSteal).toBe(100);
    expect(parse("--max-steal", "2.5", "bun-bare").maxSteal).toBe(2.5);
    for (const bad of ["0", "101", "-5", "abc", "15%"]) {
      expect(() => parse("--max-steal", bad, "bun-bare")).toThrow(
        `--max-steal takes a percentage above 0 and up to 100 (100: off), got '${bad}'`,
      );
    }
  });

  test("with --report it re-analyses at that threshold; not with --compare or --update-readme", () => {
    expect(commandOf(["--report", "r.json", "--max-steal", "20"], {}, "/tmp")).toEqual({
      kind: "report",
      request: { command: "report", files: ["/tmp/r.json"], maxSteal: 20 },
    });
    expect(() => commandOf(["--report", "r.json", "--max-steal", "0"], {}, "/tmp")).toThrow(
      "--max-steal takes a percentage",
    );
    expect(() => commandOf(["--compare", "a", "b", "--max-steal", "20"], {}, "/tmp")).toThrow(
      "--max-steal goes with a run or --report, not --compare",
    );
    expect(() => commandOf(["--update-readme", "a", "--max-steal", "20"], {}, "/tmp")).toThrow(
      "--max-steal goes with a run or --report, not --update-readme",
    );
  });
});

describe("--report, --compare, --update-readme", () => {
  test("a request of their values, read once in their forms; the flags they take, no other", () => {
    const request = (...argv: string[]) => {
      const command = commandOf(argv, {}, "/tmp");
      return command.kind === "report" ? command.request : undefined;
    };
    expect(request("--compare", "a", "b", "--threshold", "2.5", "--allow-mismatch")).toEqual({
      command: "compare",
      files: ["/tmp/a", "/tmp/b"],
      threshold: 0.025,
      allowMismatch: true,
    });
    expect(request("--update-readme", "r.json")).toEqual({
      command: "readme",
      files: ["/tmp/r.json"],
    });
    expect(request("--report", "r", "--export", "bmf", "x.json")).toEqual({
      command: "report",
      files: ["/tmp/r"],
      exportBmf: "/tmp/x.json",
    });
    expect(request("bun-bare")).toBeUndefined();
    expect(() => request("--report", "a", "--compare", "b", "c")).toThrow(
      "--report and --compare: one at a time",
    );
    expect(() => request("--report", "a", "--threshold", "3")).toThrow(
      "--threshold goes with --compare or --against",
    );
    expect(() => request("--report", "a", "--allow-mismatch")).toThrow(
      "--allow-mismatch goes with --compare",
    );
  });
});

describe("parseOptions", () => {
  test("the defaults --help states are the ones a run takes", () => {
    const help = helpText(true);
    const stated = (flag: string) =>
      Number(new RegExp(`${flag} [A-Z]+ +[^]*?\\(default:\\s+(\\d+)\\)`).exec(help)?.[1]);
    const o = runOptions(["--tool", "autocannon", "-o", out(), "bun-bare"], () => {});
    expect([o.rounds, o.samples, o.durationSec, o.warmupSec, o.connections]).toEqual([
      stated("--rounds"),
      stated("--samples"),
      stated("--duration"),
      stated("--warmup"),
      stated("--connections"),
    ]);
    expect(o.rounds).toBe(DEFAULTS.rounds);
    expect(o.samples).toBe(DEFAULTS.samples);
    expect(o.scenarios.map((s) => s.name)).toEqual(["api"]);
    expect(o.startups).toBe(0);
    expect(o.workerCounts).toEqual([1]);
    expect(o.sloP99Ms).toBe(Number(/stayed\s+within\s+it\s+\(default:\s+(\d+)\)/.exec(help)?.[1]));
  });

  test("--quick and --side-by-side bring their own defaults; a flag given still counts", () => {
    const run = (...args: string[]) =>
      runOptions(["--tool", "autocannon", "-o", out(), ...args], () => {});
    const quick = run("--quick", "bun-bare");
    expect([quick.rounds, quick.samples, quick.warmupSec, quick.connections]).toEqual([
      QUICK.rounds,
      QUICK.samples,
      QUICK.warmup,
      QUICK.connections,
    ]);
    const side = run("--side-by-side", "bun-bare", "node-bare");
    expect([side.rounds, side.samples, side.warmupSec, side.connections]).toEqual([
      SIDE.rounds,
      SIDE.samples,
      SIDE.warmup,
      SIDE.connections,
    ]);
    expect(run("--side-by-side", "-w", "2", "-n", "5", "bun-bare").warmupSec).toBe(2);
    expect(run("--precision", "5", "bun-bare").rounds).toBe(PRECISION_FLOOR);
    expect(run("--calibrate").apps.map((a) => a.name)).toEqual(["bun-bare"]);
    expect(run("--calibrate").rounds).toBe(2 * DEFAULTS.rounds);
  });

  test("paths are the user's: relative to where the command was given", () => {
    const command = commandOf(["-o", "here", "--export", "bmf", "x.json"], {}, "/tmp");
    expect(command.kind === "run" && command.values.output).toBe("/tmp/here");
    expect(command.kind === "run" && command.values.export).toBe("/tmp/x.json");
  });

  test("apps and scenarios are taken once each, in the order given", () => {
    const options = parse("--apps", "node-bare,bun-bare", "--scenarios", "api,echo");
    expect(options.apps.map((a) => a.name)).toEqual(["node-bare", "bun-bare"]);
    expect(options.scenarios.map((s) => s.name)).toEqual(["api", "echo"]);
  });

  test("an app or a scenario given twice is refused: it would be measured twice", () => {
    expect(() => parse("--apps", "bun-bare,node-bare,bun-bare", "--scenarios", "api")).toThrow(
      "app 'bun-bare' is given twice",
    );
    expect(() => parse("--apps", "bun-bare", "--scenarios", "api,api")).toThrow(
      "scenario 'api' is given twice",
    );
  });

  test("a middleware stage brings api along, first, as the baseline of its tax", () => {
    const stages = parse("--apps", "bun-bare", "--scenarios", "auth,gzip");
    expect(stages.scenarios.map((s) => s.name)).toEqual(["api", "auth", "gzip"]);
    expect(stages.apiAdded).toBe(true);
    const listed = parse("--apps", "bun-bare", "--scenarios", "gzip,api");
    expect(listed.scenarios.map((s) => s.name)).toEqual(["gzip", "api"]);
    expect(listed.apiAdded).toBeUndefined();
    const plain = parse("--apps", "bun-bare", "--scenarios", "echo");
    expect(plain.scenarios.map((s) => s.name)).toEqual(["echo"]);
    expect(plain.apiAdded).toBeUndefined();
    // tls is set against api too: the same answer through TLS.
    const tls = parse("--apps", "bun-bare", "--scenarios", "tls");
    expect(tls.scenarios.map((s) => s.name)).toEqual(["api", "tls"]);
    expect(tls.apiAdded).toBe(true);
    const streamed = parse("--apps", "bun-bare", "--scenarios", "sse");
    expect(streamed.apiAdded).toBeUndefined();
  });
});

describe("--side-by-side and its companions", () => {
  test("off unless asked (or --against); --reference and --threshold need it", () => {
    expect(parse("--apps", "bun-bare", "--scenarios", "api").side).toBeUndefined();
    // one at a time, --reference names the history's reference: one of the apps
    expect(parse("--apps", "bun-bare,node-bare", "--reference", "node-bare").reference).toBe(
      "node-bare",
    );
    expect(parse("--apps", "bun-bare").reference).toBeUndefined();
    expect(() => parse("--apps", "bun-bare", "--reference", "node-bare")).toThrow(
      "--reference node-bare is not one of the apps to run (bun-bare)",
    );
    expect(() => parse("--node", "22,24", "node-bare", "--reference", "node-bare")).toThrow(
      "--reference chooses among apps: not with --node/--bun/--deno",
    );
    expect(() => parse("--apps", "bun-bare", "--scenarios", "api", "--threshold", "3")).toThrow(
      "--threshold goes with --compare or --against",
    );
    const against = parse("--apps", "bun-bare", "--scenarios", "api", "--against", "HEAD~1");
    expect(against.side).toEqual({ against: "HEAD~1" });
  });

  test("a reference among the apps; a threshold a percentage, with --against only", () => {
    const side = (...more: string[]) =>
      parse("--apps", "bun-bare,node-bare", "--scenarios", "api", "--side-by-side", ...more);
    expect(side().side).toEqual({});
    expect(side("--reference", "node-bare").side).toEqual({ reference: "node-bare" });
    expect(() => side("--reference", "bun-hono")).toThrow(
      "--reference bun-hono is not one of the apps to run (bun-bare, node-bare)",
    );
    expect(side("--against", "main", "--threshold", "2.5").side).toEqual({
      against: "main",
      threshold: 0.025,
    });
    for (const bad of ["0", "100", "x", "1e1"]) {
      expect(() => side("--against", "main", "--threshold", bad)).toThrow(
        `--threshold takes a percentage above 0 and below 100, got '${bad}'`,
      );
    }
    expect(() => side("--threshold", "3")).toThrow("--threshold goes with --compare or --against");
    // a strict gate: with --against only
    expect(side("--against", "main", "--fail-inconclusive").side).toEqual({
      against: "main",
      failInconclusive: true,
    });
    expect(() => side("--fail-inconclusive")).toThrow(
      "--fail-inconclusive goes with --against (its gate)",
    );
    expect(() => side("--against", "-x")).toThrow(
      "--against takes a git commit, branch or tag, got '-x'",
    );
    expect(() => side("--against", "main", "--reference", "bun-bare")).toThrow(
      "--reference chooses among apps",
    );
    expect(() => side("--node", "24", "--against", "main")).toThrow(
      "--against compares two commits",
    );
  });

  test("what it does not go with: workers, rates, profile, a connection list, another host", () => {
    const refused =
      (...more: string[]) =>
      () =>
        parse("--apps", "bun-bare", "--scenarios", "api", "--side-by-side", ...more);
    expect(refused("--workers", "2")).toThrow(
      "--side-by-side does not go with --workers other than 1",
    );
    expect(refused("--profile")).toThrow("--side-by-side does not go with --profile");
    expect(refused("--server-host", "example")).toThrow(
      "--side-by-side does not go with --server-host",
    );
    // Unpinned, nothing says whether the servers' core was saturated.
    expect(refused("--no-pin")).toThrow("--side-by-side does not go with --no-pin");
    expect(
      parse("--apps", "bun-bare", "--scenarios", "api", "--side-by-side", "--workers", "1").side,
    ).toEqual({});
  });

  test("with versions, every app needs two: a lone one would be started for nothing", () => {
    const side = (...more: string[]) =>
      parse("--scenarios", "api", "--side-by-side", "--node", "22,24", ...more);
    expect(side("--apps", "node-bare,node-hono").side).toEqual({});
    expect(() => side("--apps", "node-bare,bun-bare")).toThrow(
      "--side-by-side with versions measures each app's versions against its first: bun-bare would run on one bun (give --bun two or more versions, or leave it out)",
    );
    expect(() =>
      parse("--scenarios", "api", "--side-by-side", "--node", "22", "--apps", "node-bare"),
    ).toThrow("node-bare would run on one node");
  });

  test("--against checks out this repository's apps: not stand-ins from --apps-root", () => {
    expect(() => parse("--apps", "bun-bare", "--against", "HEAD~1", "--apps-root", "/tmp")).toThrow(
      "--against checks out this repository's apps at the commit: not with --apps-root",
    );
  });

  test("--export bmf FILE: an absolute path", () => {
    const o = parse("--apps", "bun-bare", "--scenarios", "api", "--export", "bmf", "out.json");
    expect(o.exportBmf).toBe(`${process.cwd()}/out.json`);
  });
});

describe("the database scenarios", () => {
  test("run on this machine only, with a clear refusal across two hosts", () => {
    const withDb = parse("--apps", "bun-bare", "--scenarios", "api,fortunes");
    expect(withDb.scenarios.map((s) => s.name)).toEqual(["api", "fortunes"]);
    expect(() =>
      parse("--apps", "bun-bare", "--scenarios", "updates", "--server-host", "example"),
    ).toThrow("the database scenarios (updates) run on this machine only: not with --server-host");
    expect(() =>
      parse("--apps", "bun-bare", "--scenarios", "api", "--server-host", "example"),
    ).not.toThrow("database");
  });

  test("--db: sqlite by default, postgres for a database scenario, nothing else", () => {
    expect(parse("--apps", "bun-bare", "--scenarios", "db").db).toBe("sqlite");
    expect(parse("--apps", "bun-bare", "--scenarios", "api").db).toBe("sqlite");
    expect(() => parse("--apps", "bun-bare", "--scenarios", "db", "--db", "mysql")).toThrow(
      "--db must be sqlite or postgres, got 'mysql'",
    );
    expect(() => parse("--apps", "bun-bare", "--scenarios", "api", "--db", "postgres")).toThrow(
      "--db postgres serves the database scenarios: name one (-s db,queries,fortunes,updates)",
    );
    expect(() =>
      parse("--apps", "bun-bare", "--scenarios", "db", "--db", "postgres", "--side-by-side"),
    ).toThrow("--db postgres runs one app at a time: not with --side-by-side");
    expect(() =>
      parse("--apps", "bun-bare", "--scenarios", "db", "--db", "postgres", "--workers", "1,2"),
    ).toThrow("--db postgres takes one --workers count, not a list");
  });

  test.skipIf(findPostgres() === undefined)("--db postgres where PostgreSQL is installed", () => {
    expect(parse("--apps", "bun-bare", "--scenarios", "api,queries", "--db", "postgres").db).toBe(
      "postgres",
    );
  });
});

describe("the scenarios run on request", () => {
  const PROTOCOLS = [
    "tls",
    "tls-handshake",
    "h2",
    "h2c",
    "sse",
    "stream",
    "ws-echo",
    "ws-echo-4k",
    "ws-broadcast",
  ];

  test('"all" leaves out tls, h2, sse, stream and WebSocket; naming them runs them', () => {
    const all = parse("-s", "all", "bun-bare").scenarios.map((s) => s.name);
    for (const name of PROTOCOLS) expect(all).not.toContain(name);
    expect(all).toContain("updates");
    const named = parse("-s", "sse,stream,tls", "bun-bare").scenarios.map((s) => s.name);
    expect(named).toEqual(["api", "sse", "stream", "tls"]);
  });

  test("--help all lists them, each saying it runs on request", () => {
    const help = helpText(true);
    for (const name of PROTOCOLS) {
      expect(help).toMatch(new RegExp(`\\n  ${name} +.*\\(on request\\)`));
    }
    expect(help.replace(/\s+/g, " ")).toContain(
      `"all" leaves out the protocol scenarios (${PROTOCOLS.join(", ")}): they run when named`,
    );
  });

  test("h2 brings api along and is loaded by oha or h2load; --tool wrk or autocannon is refused", () => {
    for (const tool of ["wrk", "autocannon"]) {
      expect(() => parse("-s", "h2", "--tool", tool, "bun-bare")).toThrow(
        `the h2 scenario needs oha or h2load (${tool} speaks HTTP/1.1 only): give --tool oha, --tool h2load or leave --tool out`,
      );
    }
    // No --tool: oha, where it is installed.
    const untold = (...args: string[]) => runOptions([...BASE, "-o", out(), ...args], () => {});
    if (findOha() === undefined) {
      expect(() => untold("-s", "h2", "bun-bare")).toThrow(
        "the h2 scenario needs oha or h2load, the load generators here that speak HTTP/2: oha is not installed",
      );
      return;
    }
    const options = untold("-s", "h2", "bun-bare");
    expect(options.tool.name).toBe("oha");
    expect(options.scenarios.map((s) => s.name)).toEqual(["api", "h2"]);
    // Without h2 the default is wrk's, where it is installed.
    expect(untold("-s", "tls", "bun-bare").tool.name).toBe(chooseTool(undefined, () => {}).name);
    expect(parse("-s", "h2", "--tool", "oha", "bun-bare").tool.name).toBe("oha");
  });

  test("tls and h2 go side by side (api brought along), not with --rates", () => {
    const side = parse("-s", "tls", "--side-by-side", "bun-bare", "node-bare");
    expect(side.side).toBeDefined();
    expect(side.scenarios.map((s) => s.name)).toEqual(["api", "tls"]);
    if (findOha() !== undefined) {
      const h2 = parse("-s", "h2", "--tool", "oha", "--side-by-side", "bun-bare", "node-bare");
      expect([h2.side !== undefined, h2.tool.name]).toEqual([true, "oha"]);
    }
    expect(() => parse("-s", "tls", "--rates", "1000", "bun-bare")).toThrow(
      "the tls scenario does not go with --rates yet",
    );
    expect(parse("-s", "sse", "--side-by-side", "bun-bare", "node-bare").scenarios).toHaveLength(1);
  });
});

describe("--tool h2load", () => {
  const h2load = onPath("h2load");
  test("any HTTP scenario, h2 and h2c among them; never chosen unasked; not installed: how to", () => {
    if (h2load === undefined) {
      expect(() => parse("-s", "h2", "--tool", "h2load", "bun-bare")).toThrow(
        "h2load is not installed; install it with: apt-get install nghttp2-client",
      );
      return;
    }
    for (const scenarios of ["api", "tls", "h2", "h2c,sse"]) {
      const options = parse("-s", scenarios, "--tool", "h2load", "bun-bare");
      expect(options.tool).toEqual({ name: "h2load", path: h2load, version: expect.any(String) });
      expect(options.tool.version).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(chooseTool(undefined, () => {}).name).not.toBe("h2load");
  });

  test("a name that is no tool: usage, naming the four", () => {
    expect(() => parse("--tool", "h2loadx", "bun-bare")).toThrow(
      "must be oha, wrk, autocannon or h2load, got 'h2loadx'",
    );
  });
});

describe("the h2c scenario", () => {
  test("api brought along, loaded by oha, side by side; refused with wrk, --rates, --server-host", () => {
    expect(() => parse("-s", "h2c", "--tool", "wrk", "bun-bare")).toThrow(
      "the h2c scenario needs oha or h2load (wrk speaks HTTP/1.1 only): give --tool oha, --tool h2load or leave --tool out",
    );
    expect(() => parse("-s", "h2c", "--rates", "1000", "--tool", "oha", "bun-bare")).toThrow(
      "the h2c scenario does not go with --rates yet",
    );
    expect(() =>
      parse("-s", "h2c", "--server-host", "10.0.0.2", "--tool", "oha", "bun-bare"),
    ).toThrow("the h2c scenario does not go with --server-host yet");
    if (findOha() === undefined) return;
    const options = parse("-s", "h2c", "--tool", "oha", "node-bare");
    expect([options.tool.name, options.scenarios.map((s) => s.name)]).toEqual([
      "oha",
      ["api", "h2c"],
    ]);
    const side = parse("-s", "h2c", "--tool", "oha", "--side-by-side", "bun-bare", "node-bare");
    expect(side.side).toBeDefined();
  });
});

describe("the WebSocket scenarios", () => {
  test("loaded by ws-load, recorded beside the run's HTTP tool; no api added", () => {
    const path = findWsLoad();
    if (path === undefined) {
      expect(() => parse("-s", "ws-echo", "bun-bare")).toThrow(
        "the ws-echo scenario needs ws-load, this project's load generator of WebSocket and new TLS connections, which is not built; it is this project's own",
      );
      return;
    }
    const options = parse("-s", "ws-echo,ws-broadcast", "--tool", "autocannon", "bun-bare");
    expect(options.wsTool).toEqual({ name: "ws-load", path, version: "0.1.0" });
    expect(options.tool.name).toBe("autocannon");
    expect(options.scenarios.map((s) => s.name)).toEqual(["ws-echo", "ws-broadcast"]);
    expect(parse("-s", "api", "bun-bare").wsTool).toBeUndefined();
  });

  test("tls-handshake: ws-load too, api brought along, side by side; refused as tls is", () => {
    const path = findWsLoad();
    if (path === undefined) {
      expect(() => parse("-s", "tls-handshake", "bun-bare")).toThrow(
        "the tls-handshake scenario needs ws-load, this project's load generator",
      );
      return;
    }
    const options = parse("-s", "tls-handshake", "--tool", "autocannon", "bun-bare");
    expect(options.wsTool?.name).toBe("ws-load");
    expect(options.tool.name).toBe("autocannon");
    expect(options.scenarios.map((s) => s.name)).toEqual(["api", "tls-handshake"]);
    const side = parse("-s", "tls-handshake", "--side-by-side", "bun-bare", "node-bare");
    expect([side.side !== undefined, side.wsTool?.name]).toEqual([true, "ws-load"]);
    expect(() => parse("-s", "tls-handshake", "--rates", "1000", "bun-bare")).toThrow(
      "the tls-handshake scenario does not go with --rates yet",
    );
  });

  test("side by side; not with --rates or --server-host; a broadcast not with workers", () => {
    if (findWsLoad() !== undefined) {
      const side = parse("-s", "ws-echo,ws-broadcast", "--side-by-side", "bun-bare", "node-bare");
      expect([side.side !== undefined, side.wsTool?.name]).toEqual([true, "ws-load"]);
    }
    expect(() => parse("-s", "api,ws-echo-4k", "--rates", "1000", "bun-bare")).toThrow(
      "the ws-echo-4k scenario does not go with --rates yet",
    );
    expect(() => parse("-s", "ws-echo", "--server-host", "10.0.0.2", "bun-bare")).toThrow(
      "the ws-echo scenario does not go with --server-host yet",
    );
    expect(() => parse("-s", "ws-echo,ws-broadcast", "--workers", "1,2", "bun-bare")).toThrow(
      "the ws-broadcast scenario does not go with --workers above 1 (a process's connections are its audience) yet",
    );
    if (findWsLoad() !== undefined) {
      expect(parse("-s", "ws-echo", "--workers", "2", "bun-bare").workers).toBe(2);
    }
  });
});
