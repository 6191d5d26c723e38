// --server-host's pure parts: the address as given, the flags around it, $SSH_CONNECTION, and
// the apps' listening address. The run across two hosts itself is two-hosts.e2e.test.ts.
import { expect, test } from "bun:test";
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { listenHost } from "@bench/contract/workers";
import { REPO_ROOT } from "../src/common/root.ts";
import { sshAddress } from "../src/hosts/host.ts";
import { AgentChannel, parseServerHost, RemoteError } from "../src/hosts/remote.ts";
import { commandOf } from "../src/run/command.ts";
import { serverOf, UsageError } from "../src/run/options.ts";

test("parseServerHost takes [user@]host[:port], an IPv6 address in brackets", () => {
  expect(parseServerHost("bench")).toEqual({ destination: "bench" });
  expect(parseServerHost("me@10.0.0.2")).toEqual({ destination: "me@10.0.0.2" });
  expect(parseServerHost("me@server.example:2222")).toEqual({
    destination: "me@server.example",
    port: 2222,
  });
  expect(parseServerHost("[fd00::2]:22")).toEqual({ destination: "fd00::2", port: 22 });
});

test("parseServerHost refuses what ssh would take as an option, or no port", () => {
  for (const bad of ["-oProxyCommand=x", "a b", "host:", "host:0", "host:65536", "@host", ""]) {
    expect(parseServerHost(bad)).toBeString();
  }
  expect(parseServerHost("host:65536")).toBe(
    "--server-host: the SSH port must be 1-65535, got 65536",
  );
  expect(parseServerHost("a b")).toBe("--server-host takes [user@]host[:port], got 'a b'");
});

/** serverOf on a command line's values, as a run reads them. */
function server(...argv: string[]) {
  const command = commandOf(argv, {}, "/here");
  if (command.kind !== "run") throw new Error(`not a run: ${argv.join(" ")}`);
  return serverOf(command.values);
}

test("serverOf: the checkout defaults to this one's path; its companions need --server-host", () => {
  expect(server()).toBeUndefined();
  expect(server("--server-host", "me@h:2")).toEqual({
    destination: "me@h",
    port: 2,
    dir: REPO_ROOT,
  });
  expect(server("--server-host", "h", "--server-dir", "/srv/bench")?.dir).toBe("/srv/bench");
  expect(() => server("--server-host", "h", "--server-dir", "bench")).toThrow(
    "--server-dir takes an absolute path, got 'bench'",
  );
  expect(() => server("--server-dir", "/srv")).toThrow("--server-dir goes with --server-host");
  expect(() => server("--ssh-config", "/x")).toThrow("--ssh-config goes with --server-host");
  expect(() => server("--server-host", "h", "--ssh-config", "/nonexistent")).toThrow(UsageError);
  expect(() => server("--server-host", "-x")).toThrow("--server-host takes [user@]host[:port]");
  expect(() => server("--server-host", "h", "--workers", "auto")).toThrow(
    "--workers auto counts this machine's CPUs: give --server-host a number of workers",
  );
});

test("sshAddress reads either end of $SSH_CONNECTION", () => {
  const connection = "10.77.0.1 51234 10.77.0.2 22";
  expect(sshAddress(connection)).toBe("10.77.0.2");
  expect(sshAddress(connection, "client")).toBe("10.77.0.1");
  expect(sshAddress(undefined)).toBeUndefined();
  expect(sshAddress("")).toBeUndefined();
});

test("the apps listen on 127.0.0.1 unless BENCH_LISTEN names an IP address", () => {
  expect(listenHost({})).toBe("127.0.0.1");
  expect(listenHost({ BENCH_LISTEN: "" })).toBe("127.0.0.1");
  expect(listenHost({ BENCH_LISTEN: "10.77.0.2" })).toBe("10.77.0.2");
  expect(listenHost({ BENCH_LISTEN: "::1" })).toBe("::1");
  expect(() => listenHost({ BENCH_LISTEN: "example.com" })).toThrow(
    'BENCH_LISTEN must be an IP address, got "example.com"',
  );
});

/** An ssh child stand-in: what the harness writes to the agent, and the agent's stdout. */
function fakeAgent() {
  const child = Object.assign(new EventEmitter(), {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  });
  const sent: string[] = [];
  child.stdin.on("data", (d: Buffer) => sent.push(...d.toString().trim().split("\n")));
  const channel = new AgentChannel(child as unknown as ChildProcess, "stand-in", () => {});
  return { child, channel, sent, say: (line: string) => child.stdout.write(`${line}\n`) };
}

test("the agent channel: typed requests out, answers matched by id, stray lines ignored", async () => {
  const { child, channel, sent, say } = fakeAgent();
  const link = channel.call("link", {});
  const held = channel.call("held", { port: 3004, pids: [7] });
  // The stand-in's stdin delivers its data on a later turn of the event loop: wait for it, not
  // for a time a slow machine may not keep.
  while (sent.length < 2) await new Promise((turn) => setImmediate(turn));
  expect(sent.map((l) => JSON.parse(l))).toEqual([
    { id: 1, op: "link", args: {} },
    { id: 2, op: "held", args: { port: 3004, pids: [7] } },
  ]);
  // What a bootstrap prints on the agent's stdout, some of it valid JSON: none of it an answer.
  for (const line of ["Checked 300 installs", "12", "null", "true", '"x"', "[1]", "{}"]) say(line);
  say(JSON.stringify({ id: 2, value: [[7, 50]] }));
  say(JSON.stringify({ id: 1, error: "no such interface" }));
  expect(await held).toEqual([[7, 50]]);
  await expect(link).rejects.toThrow("no such interface");
  // The connection ends: a question still open learns why.
  const late = channel.call("collect", { name: "x" });
  child.emit("exit", 255, null);
  await expect(late).rejects.toBeInstanceOf(RemoteError);
  expect(channel.lost()).toContain("lost the connection to stand-in");
});
