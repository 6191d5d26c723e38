/// <reference path="../deno.d.ts" />
import type { Runtime } from "./registry.ts";

export interface RuntimeIdentity {
  readonly name: Runtime;
  readonly version: string;
}

/** True when Deno runs this code (`typeof`: a bare `Deno` throws a ReferenceError elsewhere). */
export function isDeno(): boolean {
  return typeof Deno !== "undefined";
}

/**
 * What is really executing this code. Bun and Deno both set process.versions.node (for
 * compatibility: Deno 2.9 says 26.3.0), so they must be checked first; this is how a "node" app
 * run by Bun or Deno standing in for `node` gives itself away.
 */
export function detectRuntime(): RuntimeIdentity {
  if (isDeno()) return { name: "deno", version: Deno.version.deno };
  const bun = process.versions.bun;
  if (bun) return { name: "bun", version: bun };
  return { name: "node", version: process.versions.node };
}
