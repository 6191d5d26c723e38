#!/usr/bin/env bun
// A tiny CLI over the contract, so shell scripts never retype a port, a path or an app list.
// Exit codes: 0 ok, 1 the app violates the contract (verify, hostile), 2 usage error.

import { CASES } from "./check/cases.ts";
import { hostile, survived } from "./check/hostile.ts";
import { verify } from "./check/verify.ts";
import { workerCount } from "./serve/workers.ts";
import { APPS, findApp } from "./spec/registry.ts";
import { DEFAULT_SCENARIO, SCENARIOS } from "./spec/scenarios.ts";

const USAGE = `usage: bench-contract <command> [args]

  apps                      app names, one per line
  app <name>                "<name> <runtime> <framework> <port>"
  port <name>               the app's port
  registry                  the whole registry as JSON
  registry-help             one line per app: name, port, runtime, framework
  scenarios                 scenario names, one per line
  default-scenario          the scenario measured when none is named
  scenario-help             one line per scenario: name, description, which is the default
  cases                     every contract case as JSON
  verify <name> [url]       check a running app (default url http://127.0.0.1:<port>);
                            prints each violation, exit 1 if any; with BENCH_WORKERS=N,
                            as an app started with it (N processes, a rate limit each)
  hostile <name> [count]    send <count> (default 10000) bad requests, exit 1 if the app
                            answered 5xx, dropped a request, or stopped serving`;

function usage(message: string): never {
  console.error(`bench-contract: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function appArg(name: string | undefined) {
  if (!name) usage("missing app name");
  const app = findApp(name);
  if (!app) usage(`unknown app "${name}" (known: ${APPS.map((a) => a.name).join(", ")})`);
  return app;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "apps":
      for (const app of APPS) console.log(app.name);
      return 0;
    case "app": {
      const app = appArg(rest[0]);
      console.log(`${app.name} ${app.runtime} ${app.framework} ${app.port}`);
      return 0;
    }
    case "port":
      console.log(appArg(rest[0]).port);
      return 0;
    case "scenarios":
      for (const s of SCENARIOS) console.log(s.name);
      return 0;
    case "default-scenario":
      console.log(DEFAULT_SCENARIO);
      return 0;
    case "scenario-help":
      for (const s of SCENARIOS) {
        const mark = s.name === DEFAULT_SCENARIO ? " (default)" : "";
        console.log(`${s.name.padEnd(10)}${s.description}${mark}`);
      }
      return 0;
    case "registry-help":
      for (const app of APPS) {
        console.log(`${app.name.padEnd(13)}port ${app.port}  ${app.runtime} + ${app.framework}`);
      }
      return 0;
    case "registry":
      console.log(JSON.stringify(APPS, null, 2));
      return 0;
    case "cases":
      console.log(JSON.stringify(CASES, null, 2));
      return 0;
    case "verify": {
      const app = appArg(rest[0]);
      const url = rest[1] ?? `http://127.0.0.1:${app.port}`;
      const violations = await verify(url, app.name, { processes: workerCount() });
      for (const v of violations) console.log(`${app.name}: ${v.check}: ${v.detail}`);
      if (violations.length === 0) console.error(`${app.name}: conforms to the contract`);
      return violations.length === 0 ? 0 : 1;
    }
    case "hostile": {
      const app = appArg(rest[0]);
      const count = rest[1] === undefined ? 10_000 : Number(rest[1]);
      if (!Number.isInteger(count) || count < 1) usage(`count must be a positive integer`);
      const report = await hostile(`http://127.0.0.1:${app.port}`, { count });
      console.log(JSON.stringify(report, null, 2));
      return survived(report) ? 0 : 1;
    }
    case "-h":
    case "--help":
    case "help":
      console.log(USAGE);
      return 0;
    case undefined:
      return usage("missing command");
    default:
      return usage(`unknown command "${command}"`);
  }
}

process.exitCode = await main(process.argv.slice(2));
