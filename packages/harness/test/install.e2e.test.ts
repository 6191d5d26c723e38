// Installing a runtime with npm when the registry does not answer: progress while it waits, a
// time limit with the cause, no scratch folder left, and no npm left running, even when the
// harness itself is killed outright. A stand-in `npm` on the PATH plays the unreachable
// registry (it writes its pid and sleeps), so these run the same with or without a network.
import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../src/index.ts";
import { isAlive } from "../src/load/procstats.ts";
import { RuntimeError } from "../src/runtimes/runtime-versions.ts";
import { installRuntime } from "../src/runtimes/runtimes.ts";
import { runWatched } from "../src/runtimes/watched.ts";
import { expectExit, startBenchmark, taggedProcesses } from "./support/run-benchmark.ts";
import { tempDirs } from "./support/temp.ts";

const temp = tempDirs();

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A folder with a stand-in npm that records its pid in `pidFile` and then hangs; `npm view`
 * answers at once with version 24.0.0 (no runtime cache holds it: the install must run).
 */
function hangingNpm(): { bin: string; pidFile: string; root: string } {
  const root = temp("bench-npm-");
  dirs.push(root);
  const bin = join(root, "bin");
  const pidFile = join(root, "npm.pid");
  const npm = join(bin, "npm");
  mkdirSync(bin);
  writeFileSync(
    npm,
    `#!/usr/bin/env bash\n[[ $1 == view ]] && { echo '"24.0.0"'; exit 0; }\necho $$ > ${pidFile}\nexec sleep 60\n`,
  );
  chmodSync(npm, 0o755);
  return { bin, pidFile, root };
}

const withPath = async <T>(bin: string, body: () => Promise<T>): Promise<T> => {
  const before = process.env.PATH;
  process.env.PATH = `${bin}:${before}`;
  try {
    return await body();
  } finally {
    process.env.PATH = before;
  }
};

async function gone(pid: number, withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid) && Date.now() < deadline) await Bun.sleep(50);
  return !isAlive(pid);
}

describe("an install the registry never answers", () => {
  test("says it is still running, stops at its limit naming the cause, leaves nothing", async () => {
    const { bin, pidFile, root } = hangingNpm();
    const cache = join(root, "cache");
    const log: string[] = [];
    const install = withPath(bin, () =>
      installRuntime("node", "24.21.0", cache, (l) => log.push(l), 1500),
    );
    await expect(install).rejects.toThrow(RuntimeError);
    await expect(install).rejects.toThrow(
      "npm could not install node@24.21.0: no result within 1.5 s: is the npm registry reachable?",
    );
    expect(log[0]).toBe(
      `bench: installing node 24.21.0 into ${join(cache, "node-24.21.0")} (npm, once)...`,
    );
    expect(readdirSync(cache)).toEqual([]); // no .partial folder
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  test("progress comes at its interval while the command runs", async () => {
    const ticks: number[] = [];
    const result = await runWatched("bash", ["-c", "sleep 1.2"], {
      timeoutMs: 10_000,
      progressEveryMs: 300,
      progress: (sec) => ticks.push(sec),
    });
    expectExit(result, 0);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
  });

  test("a harness killed outright (SIGKILL) takes the npm tree with it", async () => {
    const { bin, pidFile } = hangingNpm();
    const script = join(import.meta.dir, "..", "src", "runtimes", "watched.ts");
    const harness = spawn(
      process.execPath,
      [
        "-e",
        `const { runWatched } = await import(${JSON.stringify(script)});
         await runWatched("npm", ["install"], { timeoutMs: 60000, progressEveryMs: 60000, progress() {} });`,
      ],
      { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, stdio: "ignore" },
    );
    const deadline = Date.now() + 10_000;
    while (!existsSync(pidFile) && Date.now() < deadline) await Bun.sleep(50);
    const npm = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(npm)).toBe(true);
    harness.kill("SIGKILL");
    expect(await gone(npm)).toBe(true);
  }, 20_000);

  test("Ctrl-C during benchmark.sh --node's install: exit 130, no npm, no scratch folder", async () => {
    const { bin, pidFile } = hangingNpm();
    const cache = join(REPO_ROOT, ".cache", "runtimes");
    let harness = 0;
    const { done } = startBenchmark(
      ["-o", join(temp("bench-out-"), "run"), "--node", "24.0.0", "node-bare"],
      { PATH: `${bin}:${process.env.PATH}` },
      (stderr, pid) => {
        if (harness === 0 && stderr.includes("installing node 24.0.0")) {
          harness = pid;
          const send = () =>
            existsSync(pidFile) ? process.kill(pid, "SIGINT") : setTimeout(send, 50);
          send();
        }
      },
    );
    const r = await done;
    expectExit(r, 130);
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    const partial = existsSync(cache)
      ? readdirSync(cache).filter((f) => f.includes(".partial-"))
      : [];
    expect(partial).toEqual([]);
    expect(taggedProcesses()).toEqual([]);
  }, 30_000);
});
