import type { Runtime } from "./registry.ts";

export interface RuntimeIdentity {
  readonly name: Runtime;
  readonly version: string;
}

/**
 * What is really executing this code. Bun sets process.versions.node too (for compatibility),
 * so Bun must be checked first; this is how a "node" app run by Bun standing in for `node`
 * gives itself away.
 */
export function detectRuntime(): RuntimeIdentity {
  const bun = process.versions.bun;
  if (bun) return { name: "bun", version: bun };
  return { name: "node", version: process.versions.node };
}
