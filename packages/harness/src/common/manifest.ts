// What a reader needs to reproduce a run: the machine, the code and every version involved.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, type as osType, release, totalmem } from "node:os";
import { join } from "node:path";

/** Each framework's middleware for the production stages (auth, cors, gzip, etag, ratelimit). */
export const MIDDLEWARE_PACKAGES = [
  "hono-rate-limiter",
  "@elysiajs/jwt",
  "@elysiajs/cors",
  "elysia-rate-limit",
  "express-jwt",
  "cors",
  "compression",
  "express-rate-limit",
  "@fastify/jwt",
  "@fastify/cors",
  "@fastify/compress",
  "@fastify/etag",
  "@fastify/rate-limit",
  // What does the JWT work under them: @elysiajs/jwt on jose, @fastify/jwt on fast-jwt,
  // express-jwt on jsonwebtoken (hono/jwt and the bare apps use the runtime's WebCrypto).
  "jose",
  "fast-jwt",
  "jsonwebtoken",
] as const;

/**
 * The packages whose versions decide a result: frameworks, adapters, the middleware of the
 * production stages, runtimes (the lockfile pins node, bun and deno), autocannon.
 */
export const RECORDED_PACKAGES = [
  "hono",
  "@hono/node-server",
  "elysia",
  "@elysiajs/node",
  "express",
  "fastify",
  ...MIDDLEWARE_PACKAGES,
  "node",
  "bun",
  "deno",
  "autocannon",
] as const;

/**
 * Versions as bun.lock resolves them. The text lockfile is JSON with trailing commas; each
 * package entry is `"name": ["name@version", ...]`.
 */
export function lockfileVersions(root: string): Record<string, string> {
  const text = readFileSync(join(root, "bun.lock"), "utf8").replace(/,(\s*[}\]])/g, "$1");
  const packages = (JSON.parse(text) as { packages?: Record<string, unknown> }).packages ?? {};
  const versions: Record<string, string> = {};
  for (const name of RECORDED_PACKAGES) {
    const entry = packages[name];
    const spec = Array.isArray(entry) ? entry[0] : undefined;
    if (typeof spec === "string" && spec.startsWith(`${name}@`)) {
      versions[name] = spec.slice(name.length + 1);
    }
  }
  return versions;
}

function osName(): string {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1];
    if (pretty) return pretty;
  } catch {
    // not Linux, or no os-release
  }
  return osType();
}

/**
 * The hypervisor this machine runs under, as systemd-detect-virt names it ("kvm", "vmware",
 * "microsoft"...); "vm" when only the CPU's hypervisor flag says so; "none" on bare metal. A
 * container is not a machine of its own: only --vm is asked.
 */
export function virtualization(
  detect = () =>
    execFileSync("systemd-detect-virt", ["--vm"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
    }),
  cpuinfo = () => readFileSync("/proc/cpuinfo", "utf8"),
): string {
  try {
    const named = detect().trim();
    if (named !== "" && named !== "none") return named;
  } catch {
    // not installed, or it exits 1 with "none": the CPU's flags decide
  }
  try {
    return /^flags\s*:.*\bhypervisor\b/m.test(cpuinfo()) ? "vm" : "none";
  } catch {
    return "unknown";
  }
}

export function machineInfo() {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: osName(),
    kernel: `${osType()} ${release()}`,
    virtualization: virtualization(),
  };
}

export function gitInfo(root: string): { commit: string; dirty: boolean } {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  try {
    const commit = git("rev-parse", "HEAD").trim();
    const dirty = git("status", "--porcelain", "--untracked-files=no").trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: "unknown (not a git checkout)", dirty: false };
  }
}
