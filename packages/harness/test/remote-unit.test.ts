// --server-host's pure parts: the address as given, the flags around it, $SSH_CONNECTION, and
// the apps' listening address. The run across two hosts itself is two-hosts.test.ts.
import { expect, test } from "bun:test";
import { listenHost } from "@bench/contract/workers";
import { REPO_ROOT } from "../src/apps/launch.ts";
import { sshAddress } from "../src/hosts/host.ts";
import { parseServerHost } from "../src/hosts/remote.ts";
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

test("serverOf: the checkout defaults to this one's path; its companions need --server-host", () => {
  expect(serverOf({})).toBeUndefined();
  expect(serverOf({ "server-host": "me@h:2" })).toEqual({
    destination: "me@h",
    port: 2,
    dir: REPO_ROOT,
  });
  expect(serverOf({ "server-host": "h", "server-dir": "/srv/bench" })?.dir).toBe("/srv/bench");
  expect(() => serverOf({ "server-host": "h", "server-dir": "bench" })).toThrow(
    "--server-dir takes an absolute path, got 'bench'",
  );
  expect(() => serverOf({ "server-dir": "/srv" })).toThrow("--server-dir goes with --server-host");
  expect(() => serverOf({ "ssh-config": "/x" })).toThrow("--ssh-config goes with --server-host");
  expect(() => serverOf({ "server-host": "h", "ssh-config": "/nonexistent" })).toThrow(UsageError);
  expect(() => serverOf({ "server-host": "-x" })).toThrow("--server-host takes [user@]host[:port]");
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
