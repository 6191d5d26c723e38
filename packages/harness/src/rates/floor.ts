// The generator floor of --rates search: floor-server.ts started with the app's own answer to the
// scenario (same bytes, same content type), pinned where the app runs, on a port of its own.
// It dies with the harness: it exits when its stdin (a pipe from here) closes; its folder goes
// with the harness's lifeline.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scenario } from "@bench/contract";
import { tetherFolder } from "../runtimes/lifeline.ts";

export interface Floor {
  readonly port: number;
  stop(): Promise<void>;
}

const SERVER = join(import.meta.dir, "floor-server.ts");

/**
 * The app's answer to one request of the scenario: what the floor server will send back, with
 * status 200 and decompressed (fetch undoes gzip), so a floor is never lighter than the app's.
 */
async function answerOf(
  appUrl: string,
  scenario: Scenario,
  bodyFile: string | undefined,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const response = await fetch(`${appUrl}${scenario.path}`, {
    method: scenario.method,
    ...(bodyFile ? { body: readFileSync(bodyFile) } : {}),
    headers: {
      ...scenario.headers,
      ...(scenario.contentType ? { "content-type": scenario.contentType } : {}),
    },
    signal: AbortSignal.timeout(10_000),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { bytes, contentType: response.headers.get("content-type") ?? "text/plain" };
}

export async function startFloor(
  appUrl: string,
  scenario: Scenario,
  bodyFile: string | undefined,
  cpus: string | undefined,
): Promise<Floor> {
  const answer = await answerOf(appUrl, scenario, bodyFile);
  const dir = mkdtempSync(join(tmpdir(), "bench-floor-"));
  const release = tetherFolder(dir);
  const file = join(dir, "answer");
  writeFileSync(file, answer.bytes);
  const command = [process.execPath, SERVER, file, answer.contentType];
  if (cpus !== undefined) command.unshift("taskset", "-c", cpus);
  const [bin, ...args] = command as [string, ...string[]];
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((done) => {
    child.once("exit", () => done());
    child.once("error", () => done()); // could not spawn (taskset missing): no exit follows
  });
  const stop = async () => {
    child.stdin?.end();
    child.kill("SIGTERM");
    const killed = setTimeout(() => child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(killed);
    rmSync(dir, { recursive: true, force: true });
    release();
  };
  let said = "";
  let errors = "";
  const port = await new Promise<number | undefined>((done) => {
    const timer = setTimeout(() => done(undefined), 10_000);
    child.stdout?.on("data", (data: Buffer) => {
      said += data.toString();
      const line = /^(\d+)\n/.exec(said);
      if (line) {
        clearTimeout(timer);
        done(Number(line[1]));
      }
    });
    child.stderr?.on("data", (data: Buffer) => {
      errors += data.toString();
    });
    void exited.then(() => done(undefined));
  });
  if (port === undefined) {
    await stop();
    const output = `${said}${errors}`.trim().slice(0, 300);
    throw new Error(`the generator-floor server did not start: ${output}`);
  }
  return { port, stop };
}
