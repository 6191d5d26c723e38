// The app registry: the one place that names the apps, their runtime, framework and port.
// Folder names, package names, result rows and report labels all use `name`.

export type Runtime = "bun" | "node" | "deno";
export type Framework = "hono" | "elysia" | "express" | "fastify" | "bare";

export interface AppSpec {
  readonly name: string;
  readonly runtime: Runtime;
  readonly framework: Framework;
  readonly port: number;
}

export const APPS = [
  { name: "bun-hono", runtime: "bun", framework: "hono", port: 3000 },
  { name: "bun-elysia", runtime: "bun", framework: "elysia", port: 3001 },
  { name: "node-hono", runtime: "node", framework: "hono", port: 3002 },
  { name: "node-elysia", runtime: "node", framework: "elysia", port: 3003 },
  { name: "bun-bare", runtime: "bun", framework: "bare", port: 3004 },
  { name: "node-bare", runtime: "node", framework: "bare", port: 3005 },
  { name: "deno-hono", runtime: "deno", framework: "hono", port: 3006 },
  { name: "deno-elysia", runtime: "deno", framework: "elysia", port: 3007 },
  { name: "deno-bare", runtime: "deno", framework: "bare", port: 3008 },
  { name: "node-express", runtime: "node", framework: "express", port: 3009 },
  { name: "node-fastify", runtime: "node", framework: "fastify", port: 3010 },
  { name: "bun-express", runtime: "bun", framework: "express", port: 3011 },
  { name: "bun-fastify", runtime: "bun", framework: "fastify", port: 3012 },
  { name: "deno-express", runtime: "deno", framework: "express", port: 3013 },
  { name: "deno-fastify", runtime: "deno", framework: "fastify", port: 3014 },
] as const satisfies readonly AppSpec[];

export type AppName = (typeof APPS)[number]["name"];

export function findApp(name: string): AppSpec | undefined {
  return APPS.find((app) => app.name === name);
}

export function getApp(name: string): AppSpec {
  const app = findApp(name);
  if (!app) {
    throw new Error(`unknown app "${name}" (known: ${APPS.map((a) => a.name).join(", ")})`);
  }
  return app;
}

/** The no-framework app on the same runtime: what a framework's cost is measured against. */
export function baselineOf(app: AppSpec): AppSpec {
  return getApp(`${app.runtime}-bare`);
}
