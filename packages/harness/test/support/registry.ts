// Whether the npm registry answers, for the tests that resolve or install runtimes through it
// as a user's --node/--bun/--deno run does. Outside CI, a registry that cannot be reached (no
// network, a proxy) skips them, saying why; in CI (CI=true) they always run, and fail if it
// cannot be reached: the registry is part of what they test there.

import { execFile } from "node:child_process";

/** `npm ping` gives up after this; the process is killed a little later if it still hangs. */
const PING_TIMEOUT_MS = 5000;

let answer: Promise<string | undefined> | undefined;

/**
 * Why the registry npm is configured with (npm_config_registry, .npmrc, its proxy settings)
 * cannot be used from here, or undefined when `npm ping` gets its answer. Asked once per test
 * process; every later call shares the first answer.
 */
export function registryProblem(): Promise<string | undefined> {
  answer ??= new Promise((done) => {
    execFile(
      "npm",
      ["ping", `--fetch-timeout=${PING_TIMEOUT_MS}`, "--fetch-retries=0"],
      { timeout: PING_TIMEOUT_MS + 3000, killSignal: "SIGKILL" },
      (error, _stdout, stderr) => {
        if (!error) return done(undefined);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") return done("npm is not installed");
        if (error.killed) return done(`npm ping: no answer within ${PING_TIMEOUT_MS + 3000} ms`);
        const line = stderr.split("\n").find((l) => /error/i.test(l)) ?? error.message;
        done(`npm ping failed: ${line.trim()}`);
      },
    );
  });
  return answer;
}

/** Whether the registry answers (asked once, see registryProblem). */
export async function registryReachable(): Promise<boolean> {
  return (await registryProblem()) === undefined;
}

/**
 * For test.skipIf: true when these tests must be skipped, which is only outside CI with the
 * registry out of reach; then it prints which tests and why. In CI it never skips (and does
 * not even ask): a registry CI cannot reach is a failure there.
 */
export async function skipWithoutRegistry(what: string): Promise<boolean> {
  if (process.env.CI === "true") return false;
  const problem = await registryProblem();
  if (problem === undefined) return false;
  console.warn(
    `skipping ${what}: the npm registry cannot be reached (${problem}); CI=true runs it`,
  );
  return true;
}
