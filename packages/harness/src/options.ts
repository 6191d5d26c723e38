// The harness's own command line, as benchmark.sh hands it over (already checked there; the
// checks here catch a harness run by hand).

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AppSpec, findApp, findScenario, type Scenario } from "@bench/contract";
import { REPO_ROOT } from "./launch.ts";
import type { ToolName } from "./parse.ts";
import { type ToolInfo, toolVersion } from "./tools.ts";

export interface Options {
  readonly apps: AppSpec[];
  readonly scenarios: Scenario[];
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly connections: number;
  readonly trials: number;
  readonly tool: ToolInfo;
  readonly outDir: string;
  readonly pin: boolean;
  readonly appsRoot: string;
  /** One extra, separately recorded trial per app and scenario under the CPU profiler. */
  readonly profile: boolean;
  /** Extra fresh starts per app, without load, for the start-up figures. */
  readonly startups: number;
  /** benchmark.sh's own command line, recorded as given. */
  readonly argv: string[];
}

export class UsageError extends Error {}

function positiveInt(value: string | undefined, flag: string, min = 1): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function names<T>(list: string | undefined, find: (name: string) => T | undefined, kind: string) {
  const found = (list ?? "")
    .split(",")
    .filter(Boolean)
    .map((name) => {
      const item = find(name);
      if (!item) throw new UsageError(`unknown ${kind} "${name}"`);
      return item;
    });
  if (found.length === 0) throw new UsageError(`--${kind}s names no ${kind}`);
  return found;
}

export function parseOptions(argv: string[]): Options {
  // Everything after "--" is the user's own command line, recorded as given.
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      apps: { type: "string" },
      scenarios: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      trials: { type: "string" },
      tool: { type: "string" },
      "tool-path": { type: "string" },
      out: { type: "string" },
      "no-pin": { type: "boolean", default: false },
      "apps-root": { type: "string" },
      profile: { type: "boolean", default: false },
      startup: { type: "string", default: "0" },
    },
  });
  const toolName = values.tool as ToolName;
  if (!["oha", "wrk", "autocannon"].includes(toolName))
    throw new UsageError(`unknown tool ${toolName}`);
  const toolPath = values["tool-path"];
  if (!toolPath || !existsSync(toolPath))
    throw new UsageError(`--tool-path ${toolPath} does not exist`);
  if (!values.out) throw new UsageError("--out is required");
  return {
    apps: names(values.apps, findApp, "app"),
    scenarios: names(values.scenarios, findScenario, "scenario"),
    durationSec: positiveInt(values.duration, "--duration"),
    warmupSec: positiveInt(values.warmup, "--warmup", 0),
    connections: positiveInt(values.connections, "--connections"),
    trials: positiveInt(values.trials, "--trials"),
    tool: { name: toolName, path: toolPath, version: toolVersion(toolName, toolPath) },
    outDir: resolve(values.out),
    pin: !values["no-pin"],
    appsRoot: resolve(values["apps-root"] ?? REPO_ROOT),
    profile: values.profile,
    startups: positiveInt(values.startup, "--startup", 0),
    argv: positionals,
  };
}
