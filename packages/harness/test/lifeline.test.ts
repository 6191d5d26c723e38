// runtimes/lifeline.ts: whatever a harness tethers dies with it, SIGKILL too; what it released
// is left alone. The harness here is a short helper process (a Bun script) with `sleep`s as
// its apps, in a temporary folder of its own (TMPDIR).
import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "../src/load/procstats.ts";
import { LIFELINE_PREFIX, sweepLifelines } from "../src/runtimes/lifeline.ts";

const LIFELINE = join(import.meta.dir, "..", "src", "runtimes", "lifeline.ts");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A harness that tethers a `sleep` in a group of its own, a plain `sleep` and a folder, then
 * releases a second `sleep` (left running), prints the pids and `then`s: "hang" or "exit".
 */
function harness(then: "hang" | "exit") {
  const tmp = mkdtempSync(join(tmpdir(), "bench-lifeline-test-"));
  dirs.push(tmp);
  const script = `
    const { spawn } = await import("node:child_process");
    const { mkdirSync } = await import("node:fs");
    const { tether, tetherFolder } = await import(${JSON.stringify(LIFELINE)});
    const group = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const plain = spawn("sleep", ["60"], { stdio: "ignore" });
    const freed = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const folder = ${JSON.stringify(join(tmp, "scratch"))};
    mkdirSync(folder);
    tether(group.pid, true);
    tether(plain.pid, false);
    tetherFolder(folder);
    tether(freed.pid, true)();
    console.log(JSON.stringify([group.pid, plain.pid, freed.pid]));
    ${then === "hang" ? "await new Promise(() => {});" : "for (const c of [group, plain, freed]) c.unref();"}
  `;
  const child = spawn(process.execPath, ["-e", script], {
    env: { ...process.env, TMPDIR: tmp },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pids = new Promise<number[]>((resolve) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out));
    });
  });
  return { child, pids, tmp };
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await Bun.sleep(25);
  return condition();
}

describe("the lifeline", () => {
  test("a harness killed outright: its tethered group, process and folder go; a released one stays", async () => {
    const { child, pids, tmp } = harness("hang");
    const [group, plain, freed] = (await pids) as [number, number, number];
    expect([group, plain, freed].every(isAlive)).toBe(true);
    child.kill("SIGKILL");
    expect(await until(() => !isAlive(group) && !isAlive(plain), 5000)).toBe(true);
    expect(await until(() => readdirSync(tmp).length === 0, 5000)).toBe(true); // folder, watcher's
    expect(isAlive(freed)).toBe(true);
    process.kill(-freed, "SIGKILL");
  }, 15_000);

  test("a harness that ends by itself stops whatever it left tethered, and its watcher", async () => {
    const { pids, tmp } = harness("exit");
    const [group, plain, freed] = (await pids) as [number, number, number];
    expect(await until(() => !isAlive(group) && !isAlive(plain), 5000)).toBe(true);
    expect(await until(() => readdirSync(tmp).length === 0, 5000)).toBe(true);
    expect(isAlive(freed)).toBe(true);
    process.kill(-freed, "SIGKILL");
  }, 15_000);

  test("the sweep removes the folders of lifelines whose harness is gone, no other", () => {
    const parent = mkdtempSync(join(tmpdir(), "bench-lifeline-sweep-"));
    dirs.push(parent);
    const dead = join(parent, `${LIFELINE_PREFIX}999999999-x`); // beyond any pid_max
    const mine = join(parent, `${LIFELINE_PREFIX}${process.pid}-y`);
    const other = join(parent, "bench-db-1-z");
    for (const dir of [dead, mine, other]) mkdirSync(dir);
    expect(sweepLifelines(parent)).toBe(1);
    expect([dead, mine, other].map((d) => existsSync(d))).toEqual([false, true, true]);
  });
});
