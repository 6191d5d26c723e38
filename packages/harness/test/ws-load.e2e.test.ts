// ws-load (tools/ws-load, the WebSocket load generator) for real, against small servers of this
// process on ephemeral ports: a correct echo, one that corrupts every echo, one that closes
// after a few messages, one that never answers, Bun's publish/subscribe broadcast and one that
// also sends the publisher its own message. The servers count what arrives (sizes, frame types,
// close codes), so the JSON's figures are checked against what really happened. The binary is
// tools/ws-load/target/release/ws-load, ws-load on the PATH or ~/.cargo/bin/ws-load; without
// one these tests are skipped (visibly), except in CI (CI=true), which installs it. The handshake
// mode (a new TLS connection per request) is checked against Node's node:https, which counts the
// handshakes it resumed.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Server, ServerWebSocket } from "bun";
import { makeCertificate, type RunCertificate } from "../src/apps/certificate.ts";
import { findWsLoad } from "../src/run/environment.ts";
import { expectExit } from "./support/run-benchmark.ts";

const CI = process.env.CI === "true";
// Where the harness finds it: built in place, on the PATH, or in ~/.cargo/bin.
const BIN = findWsLoad();
const SKIP = BIN === undefined && !CI;
if (SKIP) {
  console.log(
    "ws-load.e2e.test.ts: skipped: no ws-load binary (cargo build --release --locked --manifest-path tools/ws-load/Cargo.toml)",
  );
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

async function wsLoad(...args: string[]): Promise<Run> {
  if (BIN === undefined) {
    throw new Error(
      "no ws-load binary: CI must install it (cargo install --locked --path tools/ws-load)",
    );
  }
  const began = performance.now();
  const child = Bun.spawn([BIN, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr, seconds: (performance.now() - began) / 1000 };
}

interface Latency {
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

interface Result {
  tool: string;
  version: string;
  mode: string;
  url: string;
  connections: number;
  connected: number;
  message_bytes: number;
  binary: boolean;
  threads: number;
  duration_s: number;
  warm_up_messages?: number;
  messages: number;
  deliveries: number;
  sent: number;
  mismatched: number;
  timeouts: number;
  errors: {
    connect: number;
    handshake: number;
    read: number;
    write: number;
    closed_by_server: number;
    self_delivery: number;
  };
  latency_us: Latency;
  bytes_sent: number;
  bytes_received: number;
}

/** A run that worked: exit 0 and exactly one JSON object on stdout. */
async function measure(...args: string[]): Promise<Result> {
  const run = await wsLoad(...args);
  if (run.code !== 0) throw new Error(`ws-load exited ${run.code}: ${run.stderr}`);
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  return JSON.parse(run.stdout) as Result;
}

/** What a test server saw. */
interface Seen {
  /** Messages received, by size in bytes. */
  sizes: Map<number, number>;
  text: number;
  binary: number;
  distinct: Set<string>;
  closeCodes: number[];
}

interface Socket {
  route: "echo" | "broadcast";
  count: number;
}

type Handle = (
  ws: ServerWebSocket<Socket>,
  message: string | Buffer,
  server: Server<Socket>,
) => void;

const servers: Server<Socket>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

/** A Bun.serve WebSocket server on an ephemeral port; `onMessage` answers. */
function serve(onMessage: Handle): { url: (path: string) => string; seen: Seen } {
  const seen: Seen = {
    sizes: new Map(),
    text: 0,
    binary: 0,
    distinct: new Set(),
    closeCodes: [],
  };
  const server = Bun.serve<Socket>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, server) {
      const path = new URL(request.url).pathname;
      const route = path === "/ws/broadcast" ? "broadcast" : "echo";
      if (server.upgrade(request, { data: { route, count: 0 } })) return;
      return new Response("upgrade required", { status: 426 });
    },
    websocket: {
      open(ws) {
        if (ws.data.route === "broadcast") ws.subscribe("t");
      },
      message(ws, message) {
        const bytes = typeof message === "string" ? Buffer.byteLength(message) : message.length;
        seen.sizes.set(bytes, (seen.sizes.get(bytes) ?? 0) + 1);
        if (typeof message === "string") {
          seen.text++;
          seen.distinct.add(message);
        } else {
          seen.binary++;
        }
        ws.data.count++;
        onMessage(ws, message, server);
      },
      close(_ws, code) {
        seen.closeCodes.push(code);
      },
    },
  });
  servers.push(server);
  return { url: (path) => `ws://127.0.0.1:${server.port}${path}`, seen };
}

const echo: Handle = (ws, message) => {
  ws.send(message);
};

function expectOrderedLatency(latency: Latency): void {
  const { mean, p50, p90, p99, p999, max } = latency;
  if (mean === null || p50 === null || p90 === null || p99 === null || p999 === null) {
    throw new Error(`no latency: ${JSON.stringify(latency)}`);
  }
  expect(mean).toBeGreaterThan(0);
  expect(p50).toBeGreaterThan(0);
  expect(p50).toBeLessThanOrEqual(p90);
  expect(p90).toBeLessThanOrEqual(p99);
  expect(p99).toBeLessThanOrEqual(p999);
  expect(p999).toBeLessThanOrEqual(max ?? 0);
}

const NO_ERRORS = {
  connect: 0,
  handshake: 0,
  read: 0,
  write: 0,
  closed_by_server: 0,
  self_delivery: 0,
};

describe.skipIf(SKIP)("ws-load echo", () => {
  test("a correct server: every echo verified, each message exactly --size bytes of text", async () => {
    const { url, seen } = serve(echo);
    const r = await measure(
      "echo",
      "--url",
      url("/ws/echo"),
      "-c",
      "4",
      "-d",
      "1",
      "--size",
      "32",
      "-t",
      "1",
    );
    expect(r).toMatchObject({ tool: "ws-load", mode: "echo", connections: 4, connected: 4 });
    expect(r).toMatchObject({ message_bytes: 32, binary: false, threads: 1 });
    expect(r.messages).toBeGreaterThan(100);
    expect(r.deliveries).toBe(r.messages);
    expect(r.mismatched).toBe(0);
    expect(r.timeouts).toBe(0);
    expect(r.errors).toEqual(NO_ERRORS);
    // Every message sent came back (the end waits for those in flight), and nothing else arrived.
    expect(r.sent).toBe(r.messages);
    expect(seen.sizes).toEqual(new Map([[32, r.sent]]));
    expect(seen.text).toBe(r.sent);
    expect(seen.distinct.size).toBe(r.sent);
    expect(r.bytes_sent).toBe(32 * r.sent);
    expect(r.bytes_received).toBe(32 * r.messages);
    expectOrderedLatency(r.latency_us);
    // Little's law for a closed loop: rate x mean latency <= connections (the time between an
    // echo and the next send is outside the latency); far below it, the latency is misread.
    const inFlight = (r.messages / r.duration_s) * ((r.latency_us.mean ?? 0) / 1e6);
    expect(inFlight).toBeGreaterThan(0.5);
    expect(inFlight).toBeLessThanOrEqual(4 * 1.05);
    expect(r.duration_s).toBeGreaterThanOrEqual(1);
    expect(r.duration_s).toBeLessThan(1.5);
    // Each connection ended with a close frame, code 1000.
    expect(seen.closeCodes).toEqual([1000, 1000, 1000, 1000]);
  }, 20_000);

  test("--binary: binary frames of exactly --size bytes", async () => {
    const { url, seen } = serve(echo);
    const r = await measure(
      "echo",
      "--url",
      url("/ws/echo"),
      "-c",
      "2",
      "-d",
      "1",
      "--size",
      "4096",
      "--binary",
      "-t",
      "1",
    );
    expect(r.binary).toBe(true);
    expect(r.messages).toBeGreaterThan(100);
    expect(r.mismatched).toBe(0);
    expect(seen.text).toBe(0);
    expect(seen.binary).toBe(r.sent);
    expect(seen.sizes).toEqual(new Map([[4096, r.sent]]));
  }, 20_000);

  test("a server that corrupts one byte of every echo: all mismatched, none counted", async () => {
    const { url } = serve((ws, message) => {
      const text = String(message);
      ws.send((text[0] === "x" ? "y" : "x") + text.slice(1));
    });
    const r = await measure("echo", "--url", url("/ws/echo"), "-c", "2", "-d", "1", "--size", "64");
    expect(r.messages).toBe(0);
    expect(r.mismatched).toBeGreaterThan(100);
    expect(r.mismatched).toBe(r.sent);
    expect(r.latency_us.p50).toBeNull();
  }, 20_000);

  test("a server that closes each connection at its 4th message: counted, and the run ends", async () => {
    const { url } = serve((ws, message) => {
      if (ws.data.count === 4) ws.close(1001, "enough");
      else ws.send(message);
    });
    const r = await measure("echo", "--url", url("/ws/echo"), "-c", "3", "-d", "2", "--size", "16");
    expect(r.errors.closed_by_server).toBe(3);
    expect(r.messages).toBe(9);
    expect(r.sent).toBe(12);
    expect(r.duration_s).toBeLessThan(1);
  }, 20_000);

  test("a server that never answers: every wait ends at --timeout", async () => {
    const { url } = serve(() => {});
    const began = performance.now();
    const r = await measure(
      "echo",
      "--url",
      url("/ws/echo"),
      "-c",
      "3",
      "-d",
      "1",
      "--size",
      "8",
      "--timeout",
      "1",
    );
    expect(r.timeouts).toBe(3);
    expect(r.sent).toBe(3);
    expect(r.messages).toBe(0);
    expect((performance.now() - began) / 1000).toBeLessThan(4);
  }, 20_000);
});

describe.skipIf(SKIP)("ws-load broadcast", () => {
  test("Bun's publish/subscribe: every message reaches every subscriber, exactly once", async () => {
    const { url, seen } = serve((ws, message) => {
      ws.publish("t", message);
    });
    const r = await measure(
      "broadcast",
      "--url",
      url("/ws/broadcast"),
      "-c",
      "5",
      "-d",
      "1",
      "--size",
      "32",
      "-p",
      "2",
      "-t",
      "1",
    );
    expect(r).toMatchObject({ mode: "broadcast", connections: 5, connected: 5 });
    expect(r.messages).toBeGreaterThan(100);
    expect(r.timeouts).toBe(0);
    expect(r.mismatched).toBe(0);
    expect(r.errors).toEqual(NO_ERRORS);
    // The publisher waits for what is in flight at the end: with no time-out, exact.
    expect(r.sent).toBe(r.messages);
    expect(r.deliveries).toBe(r.messages * 5);
    expect(r.bytes_received).toBe(32 * r.deliveries);
    // The server got the window's messages and the warm-up's, all exactly 32 bytes.
    const warmUp = r.warm_up_messages ?? -1;
    expect(warmUp).toBeGreaterThanOrEqual(1);
    expect(seen.sizes).toEqual(new Map([[32, r.sent + warmUp]]));
    expectOrderedLatency(r.latency_us);
    expect(seen.closeCodes).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
  }, 20_000);

  test("a server that also sends the publisher its own message: self_delivery", async () => {
    const { url } = serve((_ws, message, server) => {
      server.publish("t", message);
    });
    const r = await measure(
      "broadcast",
      "--url",
      url("/ws/broadcast"),
      "-c",
      "3",
      "-d",
      "1",
      "--size",
      "32",
    );
    expect(r.errors.self_delivery).toBeGreaterThan(0);
    expect(r.mismatched).toBe(0);
    expect(r.messages).toBeGreaterThan(0);
    expect(r.deliveries).toBe(r.messages * 3);
  }, 20_000);
});

describe.skipIf(SKIP)("ws-load refuses and reports", () => {
  test("bad arguments: exit 2 with the usage, nothing on stdout", async () => {
    const url = "ws://127.0.0.1:9/ws/echo";
    const cases = [
      ["echo", "--url", url, "-c", "1", "-d", "1", "--size", "8", "--frobnicate"],
      ["echo", "-c", "1", "-d", "1", "--size", "8"],
      ["echo", "--url", url, "-c", "1", "-d", "1", "--size", "0"],
      ["echo", "--url", url, "-c", "0", "-d", "1", "--size", "8"],
      ["echo", "--url", "http://127.0.0.1:9/", "-c", "1", "-d", "1", "--size", "8"],
      ["echo", "--url", "ws://example.com/ws/echo", "-c", "1", "-d", "1", "--size", "8"],
      ["ping", "--url", url],
    ];
    for (const args of cases) {
      const run = await wsLoad(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("usage: ws-load echo");
    }
  }, 20_000);

  test("--help and --version", async () => {
    const help = await wsLoad("--help");
    expectExit(help, 0);
    expect(help.stdout).toContain("ws-load broadcast --url");
    const version = await wsLoad("--version");
    expect(version.stdout).toMatch(/^ws-load \d+\.\d+\.\d+\n$/);
  });

  test("a closed port: exit 1, the reason on stderr", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    const run = await wsLoad(
      "echo",
      "--url",
      `ws://127.0.0.1:${port}/`,
      "-c",
      "2",
      "-d",
      "1",
      "--size",
      "8",
    );
    expectExit(run, 1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/no connection could be opened: connect: .*refused/i);
  });

  test("a refused handshake: exit 1 with its HTTP status", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("no", { status: 404 }),
    });
    try {
      const run = await wsLoad(
        "echo",
        "--url",
        `ws://127.0.0.1:${server.port}/x`,
        "-c",
        "2",
        "-d",
        "1",
        "--size",
        "8",
      );
      expectExit(run, 1);
      expect(run.stderr).toContain("HTTP 404");
    } finally {
      server.stop(true);
    }
  });

  test("a server that accepts TCP but never answers the handshake: exit 1 at --timeout", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const run = await wsLoad(
        "echo",
        "--url",
        `ws://127.0.0.1:${listener.port}/ws/echo`,
        "-c",
        "2",
        "-d",
        "1",
        "--size",
        "8",
        "--timeout",
        "1",
      );
      expectExit(run, 1);
      expect(run.stderr).toContain("no 101 answer");
      expect(run.seconds).toBeLessThan(3);
    } finally {
      listener.stop(true);
    }
  }, 10_000);
});

describe.skipIf(SKIP)("ws-load handshake: a new TLS connection per request", () => {
  // Node's node:https, whose isSessionReused() is real: it answers /ok with 200 and JSON, any
  // other path 404, prints its port, and on SIGTERM how many handshakes were full and resumed.
  const SERVER = `
    const https = require("node:https");
    const fs = require("node:fs");
    const seen = { full: 0, resumed: 0 };
    const tls = { cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY) };
    const server = https.createServer(tls, (req, res) => {
      seen[req.socket.isSessionReused() ? "resumed" : "full"]++;
      res.writeHead(req.url === "/ok" ? 200 : 404, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));
    process.on("SIGTERM", () => { console.log(JSON.stringify(seen)); process.exit(0); });
  `;
  // Made when the tests run (a skipped describe makes none: it needs openssl).
  let certificate: RunCertificate;
  beforeAll(() => {
    certificate = makeCertificate();
  });
  afterAll(() => certificate?.remove());

  async function httpsServer() {
    const child = Bun.spawn(["node", "-e", SERVER], {
      stdout: "pipe",
      env: {
        ...process.env,
        CERT: certificate.env.BENCH_TLS_CERT,
        KEY: certificate.env.BENCH_TLS_KEY,
      },
    });
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the node:https server ended before it listened");
      text += new TextDecoder().decode(value);
    }
    const port = Number(text.trim());
    /** Stops the server and says what it saw. */
    const stop = async () => {
      child.kill("SIGTERM");
      let rest = text.slice(text.indexOf("\n") + 1);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      await child.exited;
      return JSON.parse(rest.trim()) as { full: number; resumed: number };
    };
    return { port, stop };
  }
  const ca = () => certificate.env.BENCH_TLS_CERT as string;

  test("every answer counted, and every handshake a full one (the server resumed none)", async () => {
    const server = await httpsServer();
    const url = `https://127.0.0.1:${server.port}/ok`;
    const r = await measure(
      "handshake",
      "--url",
      url,
      "--ca",
      ca(),
      "-c",
      "3",
      "-d",
      "1",
      "-t",
      "1",
    );
    const seen = await server.stop();
    expect(r.mode).toBe("handshake");
    expect(r.messages).toBeGreaterThan(10);
    expect(r.mismatched).toBe(0);
    expect(r.errors).toEqual(NO_ERRORS);
    expect(r.connected).toBe(3);
    expectOrderedLatency(r.latency_us);
    // Each request its own connection and a handshake the server did not resume.
    expect(seen).toEqual({ full: r.sent, resumed: 0 });
    expect(r.messages).toBe(r.sent);
  }, 20_000);

  test("an answer that is not 200 is mismatched, not counted", async () => {
    const server = await httpsServer();
    const url = `https://127.0.0.1:${server.port}/missing`;
    const run = await wsLoad("handshake", "--url", url, "--ca", ca(), "-c", "1", "-d", "0.5");
    await server.stop();
    expectExit(run, 0);
    const r = JSON.parse(run.stdout) as Result;
    expect(r.messages).toBe(0);
    expect(r.mismatched).toBe(r.sent);
    expect(r.mismatched).toBeGreaterThan(0);
  }, 20_000);

  test("a server whose certificate it was not given: every handshake fails, exit 1, the reason", async () => {
    const other = makeCertificate();
    const server = await httpsServer();
    try {
      const url = `https://127.0.0.1:${server.port}/ok`;
      const run = await wsLoad(
        "handshake",
        "--url",
        url,
        "--ca",
        other.env.BENCH_TLS_CERT as string,
        "-c",
        "1",
        "-d",
        "0.3",
      );
      expectExit(run, 1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("first failure: TLS handshake: invalid peer certificate");
      expect(run.stderr).toMatch(/no request was answered: 0 connect, [1-9]\d* TLS handshake/);
    } finally {
      await server.stop();
      other.remove();
    }
  }, 20_000);

  test("bad arguments: no --ca, a --size, a ws:// URL, a --ca that holds no certificate", async () => {
    const url = "https://127.0.0.1:9/ok";
    for (const args of [
      ["handshake", "--url", url, "-c", "1", "-d", "1"],
      ["handshake", "--url", url, "--ca", ca(), "-c", "1", "-d", "1", "--size", "8"],
      ["handshake", "--url", "ws://127.0.0.1:9/", "--ca", ca(), "-c", "1", "-d", "1"],
    ]) {
      const run = await wsLoad(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain("usage: ws-load echo");
    }
    const empty = await wsLoad(
      "handshake",
      "--url",
      url,
      "--ca",
      "/dev/null",
      "-c",
      "1",
      "-d",
      "1",
    );
    expectExit(empty, 1);
    expect(empty.stderr).toContain("--ca /dev/null: no certificate in the file");
  }, 20_000);
});
