// The WebSocket side of the contract: the frame codec, the limits, and the probe against live
// stand-ins, each on a port the system gives (port 0), so that two runs at once (mutation
// testing's) never collide: bun-bare's own WebSocket handlers (which pass), servers that
// each break one rule (which must fail that rule's case and no other), and a raw server that
// answers the handshake or frames wrongly, as no library would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server as NetServer, type Socket } from "node:net";
import {
  APPS,
  findScenario,
  getApp,
  notSupported,
  SCENARIOS,
  type Scenario,
  STANDARD_SCENARIOS,
} from "@bench/contract";
import {
  textOverLimit,
  WS_BROADCAST_IN_FLIGHT,
  WS_CLOSE,
  WS_ERRORS,
  WS_JSON_TEXT,
  WS_MAX_MESSAGE_BYTES,
  WS_MESSAGE_SIZES,
  WS_ROUTES,
  WS_TEXT_REPARSED,
  WS_TOPIC,
  WS_UNSUPPORTED,
  wantsWebSocket,
} from "@bench/contract/ws";
import { checkWebSocket, WS_CASES } from "@bench/contract/ws-check";
import { validWebSocketKey } from "@bench/contract/ws-key";
import type { Server, ServerWebSocket } from "bun";
// From the repository root: the same path from the package and from a mutation sandbox.
import { webSocketRoutes, websocket } from "../../../apps/bun-bare/src/websocket.ts";
import {
  acceptOf,
  closeCode,
  closePayload,
  decodeFrame,
  encodeFrame,
  OP,
  openingRequest,
  WireConnection,
} from "../src/check/ws-wire.ts";
import { closedPort, listening } from "./support/ports.ts";

const HOST = "127.0.0.1";
const TIMEOUT_MS = 400;
const target = (port: number) => ({ host: HOST, port, timeoutMs: TIMEOUT_MS });
const failed = async (port: number) =>
  (await checkWebSocket(target(port))).map((violation) => violation.check);

describe("frames", () => {
  test("a frame goes out masked and comes back whole, at each length encoding's edges", () => {
    for (const length of [0, 1, 125, 126, 65_535, 65_536, 70_000]) {
      const payload = Buffer.alloc(length, length % 251);
      const bytes = encodeFrame(OP.binary, payload);
      const headBytes = 2 + (length < 126 ? 0 : length < 65_536 ? 2 : 8) + 4;
      expect(bytes.length).toBe(headBytes + length);
      const decoded = decodeFrame(bytes);
      expect(decoded?.size).toBe(bytes.length);
      expect(decoded?.frame).toMatchObject({ fin: true, opcode: OP.binary, masked: true });
      expect(decoded?.frame.payload.equals(payload)).toBe(true);
      // One byte short is not a frame yet.
      expect(decodeFrame(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    }
  });

  test("FIN, the opcode and an unmasked frame are read as sent", () => {
    const fragment = encodeFrame(OP.continuation, Buffer.from("x"), false);
    expect(decodeFrame(fragment)?.frame).toMatchObject({ fin: false, opcode: 0 });
    const server = Buffer.from([0x81, 0x02, 0x68, 0x69, 0xff]); // "hi", then another frame's byte
    expect(decodeFrame(server)?.frame.payload.toString()).toBe("hi");
    expect(decodeFrame(server)).toMatchObject({ size: 4, frame: { masked: false } });
    expect(decodeFrame(Buffer.from([0x81]))).toBeUndefined();
    expect(decodeFrame(Buffer.from([0x82, 126, 0]))).toBeUndefined();
    expect(decodeFrame(Buffer.from([0x82, 127, 0, 0, 0]))).toBeUndefined();
  });

  test("the masking key changes from frame to frame, and the payload is masked with it", () => {
    const payload = Buffer.alloc(64, 0x61);
    const a = encodeFrame(OP.text, payload);
    const b = encodeFrame(OP.text, payload);
    expect(a.subarray(2, 6).equals(b.subarray(2, 6))).toBe(false);
    expect(a.subarray(6).equals(payload)).toBe(false);
  });

  test("close payloads, the accept key (RFC 6455's own example) and the opening request", () => {
    expect(closeCode(closePayload(1009, "too big"))).toBe(1009);
    expect(closePayload(1000, "bye").subarray(2).toString()).toBe("bye");
    expect(closeCode(Buffer.alloc(0))).toBeUndefined();
    expect(acceptOf("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    const request = openingRequest(HOST, 1, "/ws/echo", "k");
    expect(request).toStartWith("GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1:1\r\n");
    expect(request).toContain("Upgrade: websocket\r\nConnection: Upgrade\r\n");
    expect(request).toContain("Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: k\r\n\r\n");
    expect(openingRequest(HOST, 1, "/", undefined)).not.toContain("Sec-WebSocket-Key");
  });
});

describe("the limits", () => {
  test("text over the limit is counted in UTF-8 bytes, at the edges of the quick answers", () => {
    const limit = 12;
    expect(textOverLimit("a".repeat(12), limit)).toBe(false);
    expect(textOverLimit("a".repeat(13), limit)).toBe(true);
    expect(textOverLimit("é".repeat(6), limit)).toBe(false); // 12 bytes in 6 units
    expect(textOverLimit(`${"é".repeat(6)}a`, limit)).toBe(true);
    expect(textOverLimit("✓".repeat(4), limit)).toBe(false); // 3 bytes each: exactly 12
    expect(textOverLimit("a".repeat(WS_MAX_MESSAGE_BYTES))).toBe(false);
    expect(textOverLimit("a".repeat(WS_MAX_MESSAGE_BYTES + 1))).toBe(true);
  });

  test("an upgrade is asked for by Upgrade: websocket, in any case", () => {
    const ask = (upgrade?: string) =>
      wantsWebSocket(new Request("http://x/", upgrade ? { headers: { upgrade } } : {}));
    expect(ask("websocket")).toBe(true);
    expect(ask("WebSocket")).toBe(true);
    expect(ask("h2c")).toBe(false);
    expect(ask()).toBe(false);
  });

  test("a key is base64 of 16 bytes: 22 characters of the alphabet and ==, nothing else", () => {
    expect(validWebSocketKey("dGhlIHNhbXBsZSBub25jZQ==")).toBe(true); // RFC 6455's own
    expect(validWebSocketKey("+/+/+/+/+/+/+/+/+/+/+w==")).toBe(true);
    for (const key of [
      "dGhlIHNhbXBsZSBub25jZQ=", // 23: one = short
      "dGhlIHNhbXBsZSBub25jZQ===", // 25
      "xdGhlIHNhbXBsZSBub25jZQ==", // 23 before the padding
      "dGhlIHNhbXBsZSBub25jZ==", // 21 before it
      "dGhlIHNhbXBsZSBub25jZQ-=", // not padding
      "dGhlIHNhbXBsZSBub25j-Q==", // URL-safe base64 is another alphabet
      " dGhlIHNhbXBsZSBub25jZQ==",
      "dGhlIHNhbXBsZSBub25jZQ==\n",
      "a2V5a2V5a2V5a2V5a2V5a2V5", // 18 bytes, no padding
      "c2hvcnQ=",
      "",
      null,
      undefined,
    ]) {
      expect({ key, valid: validWebSocketKey(key) }).toEqual({ key, valid: false });
    }
  });
});

type Data = { readonly broadcast: boolean };
type Variant = {
  readonly fetch?: (request: Request, server: Server<Data>) => Response | undefined;
  readonly message?: (ws: ServerWebSocket<Data>, message: string | Buffer) => void;
  readonly maxPayloadLength?: number;
  readonly closeOnBackpressureLimit?: boolean;
};

/** bun-bare's routes and handlers, with one thing changed, on a port the system gives. */
function standIn(variant: Variant = {}) {
  const routes = webSocketRoutes;
  return Bun.serve<Data>({
    port: 0,
    hostname: HOST,
    fetch(request, server) {
      if (variant.fetch) return variant.fetch(request, server);
      const path = new URL(request.url).pathname as keyof typeof routes;
      return routes[path]?.GET(request, server) ?? new Response("no", { status: 404 });
    },
    websocket: {
      ...websocket,
      maxPayloadLength: variant.maxPayloadLength ?? WS_MAX_MESSAGE_BYTES,
      message: variant.message ?? websocket.message,
      closeOnBackpressureLimit: variant.closeOnBackpressureLimit ?? true,
    },
  });
}

type StandIn = "good" | "binaryAsText" | "noLimit" | "plain404" | "toAll" | "dropsSilently";
/** Each stand-in's port, the one the system gave it (known once beforeAll has run). */
const PORTS = {} as Record<StandIn, number>;

const servers: { stop(force: boolean): unknown }[] = [];
beforeAll(() => {
  const start = (name: StandIn, variant?: Variant) => {
    const server = standIn(variant);
    servers.push(server);
    PORTS[name] = server.port as number;
    return server;
  };
  start("good");
  start("binaryAsText", {
    message: (ws, m) => (ws.data.broadcast ? ws.publish(WS_TOPIC, m) : ws.send(String(m))),
  });
  start("noLimit", { maxPayloadLength: 1 << 24 });
  // Bun's default: past the backpressure limit, messages are dropped and the client kept.
  start("dropsSilently", { closeOnBackpressureLimit: false });
  start("plain404", {
    fetch: (request, server) =>
      server.upgrade(request, { data: { broadcast: request.url.endsWith(WS_ROUTES.broadcast) } })
        ? undefined
        : Response.json({ error: WS_ERRORS.upgradeRequired }, { status: 404 }),
  });
  // server.publish reaches every subscriber, the sender too (ws.publish leaves it out).
  let hub: Server<Data> | undefined;
  hub = start("toAll", {
    message: (ws, m) => (ws.data.broadcast ? hub?.publish(WS_TOPIC, m) : ws.send(m)),
  });
});
afterAll(() => {
  for (const server of servers) server.stop(true);
});

describe("the probe against stand-ins", () => {
  test("bun-bare's handlers pass every case", async () => {
    expect(await checkWebSocket(target(PORTS.good))).toEqual([]);
  }, 20_000);

  test("binary echoed as text fails the echo cases (and only those)", async () => {
    expect(await failed(PORTS.binaryAsText)).toEqual([
      "ws echo: text and binary messages",
      "ws echo: still serving",
    ]);
  }, 20_000);

  test("no size limit fails the limit's case", async () => {
    expect(await failed(PORTS.noLimit)).toEqual(["ws echo: a message over the limit"]);
  }, 20_000);

  test("a client that never reads, kept while its echoes are dropped, fails its case", async () => {
    const violations = await checkWebSocket(target(PORTS.dropsSilently));
    expect(violations).toEqual([
      {
        check: "ws echo: a client that never reads",
        detail: "a client that read nothing took all 64 MiB it sent and was not disconnected",
      },
    ]);
  }, 20_000);

  test("a GET without Upgrade answered 404 fails its case", async () => {
    const violations = await checkWebSocket(target(PORTS.plain404));
    expect(violations).toEqual([
      {
        check: "ws echo: a GET without Upgrade",
        detail: "a GET without Upgrade got 404, expected 426",
      },
    ]);
  }, 20_000);

  test("a broadcast that reaches its sender fails the broadcast case", async () => {
    const violations = await checkWebSocket(target(PORTS.toAll));
    expect(violations).toEqual([
      {
        check: "ws broadcast: to the others, not the sender",
        detail: "the sender got its own message back",
      },
    ]);
  }, 20_000);

  test("behind several processes the broadcast case is left out (a process's audience is its own)", async () => {
    // The stand-in whose broadcast reaches its sender (the test above) passes every other case.
    expect(await checkWebSocket({ ...target(PORTS.toAll), processes: 2 })).toEqual([]);
  }, 20_000);

  test("an app whose framework re-serializes JSON-like text must do so, and only that app", async () => {
    const asElysia = await checkWebSocket({ ...target(PORTS.good), app: "bun-elysia" });
    expect(asElysia).toEqual([
      {
        check: "ws echo: JSON-like text",
        detail: `the contract says bun-elysia re-serializes JSON-like text; ${WS_JSON_TEXT.sent} came back as ${WS_JSON_TEXT.sent}`,
      },
    ]);
    expect(await checkWebSocket({ ...target(PORTS.good), app: "bun-bare" })).toEqual([]);
    expect(WS_JSON_TEXT.reparsed).toBe(JSON.stringify(JSON.parse(WS_JSON_TEXT.sent)));
    expect(Object.keys(WS_TEXT_REPARSED)).toEqual(["bun-elysia"]);
  }, 20_000);

  test("nothing listening: every case fails, none throws", async () => {
    const violations = await checkWebSocket(target(await closedPort()));
    expect(violations.map((v) => v.check)).toEqual(Object.keys(WS_CASES));
    expect(violations[0]?.detail).toContain("ECONNREFUSED");
  }, 20_000);
});

/** What the raw stand-in does wrong, set per test. */
type Fault = "accept" | "masked" | "pong" | "close-code" | "no-close" | "200" | "silent";

/** A server of raw bytes: a handshake and frames, each with the fault of the moment. */
function rawServer(fault: () => Fault): NetServer {
  return createServer((socket: Socket) => {
    let buffer = Buffer.alloc(0);
    let open = false;
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!open) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        const key = /Sec-WebSocket-Key: (\S+)/.exec(buffer.toString("latin1"))?.[1] ?? "";
        buffer = buffer.subarray(end + 4);
        open = true;
        if (fault() === "silent") return;
        const accept = fault() === "accept" ? acceptOf(`${key}x`) : acceptOf(key);
        const status = fault() === "200" ? "200 OK" : "101 Switching Protocols";
        socket.write(
          `HTTP/1.1 ${status}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
        );
      }
      for (let d = decodeFrame(buffer); d; d = decodeFrame(buffer)) {
        buffer = buffer.subarray(d.size);
        answer(socket, d.frame.opcode, d.frame.payload, fault());
      }
    });
  });
}

/** A server's frame: unmasked, unless the fault is masking. */
function serverFrame(opcode: number, payload: Buffer, masked: boolean): Buffer {
  if (masked) return encodeFrame(opcode, payload);
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, payload.length]) : undefined;
  if (head) return Buffer.concat([head, payload]);
  const long = Buffer.alloc(payload.length < 65_536 ? 4 : 10);
  long[0] = 0x80 | opcode;
  long[1] = payload.length < 65_536 ? 126 : 127;
  if (payload.length < 65_536) long.writeUInt16BE(payload.length, 2);
  else long.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([long, payload]);
}

function answer(socket: Socket, opcode: number, payload: Buffer, fault: Fault): void {
  const send = (op: number, data: Buffer) =>
    socket.write(serverFrame(op, data, fault === "masked"));
  if (opcode === OP.ping) send(OP.pong, fault === "pong" ? Buffer.from("other") : payload);
  else if (opcode === OP.close) {
    if (fault === "no-close") return;
    send(OP.close, closePayload(fault === "close-code" ? 1001 : (closeCode(payload) ?? 1000)));
    socket.end();
  } else if (opcode === OP.text || opcode === OP.binary) send(opcode, payload);
}

describe("the probe against a raw server's faults", () => {
  let fault: Fault = "accept";
  let raw: NetServer;
  let rawPort: number;
  beforeAll(async () => {
    raw = rawServer(() => fault);
    rawPort = await listening(raw);
  });
  afterAll(() => raw.close());

  const run = async (now: Fault, check: keyof typeof WS_CASES) => {
    fault = now;
    return (await WS_CASES[check]?.(target(rawPort)).then(
      () => "passed",
      (error: Error) => error.message,
    )) as string;
  };

  test("a wrong Sec-WebSocket-Accept, a 200 and silence fail the handshake", async () => {
    expect(await run("accept", "ws echo: ping")).toStartWith("Sec-WebSocket-Accept is ");
    expect(await run("200", "ws echo: ping")).toBe(
      "the opening request on /ws/echo got status 200, expected 101",
    );
    expect(await run("silent", "ws echo: ping")).toBe(
      "the opening request on /ws/echo got no answer (timeout), expected 101",
    );
  }, 20_000);

  test("a masked frame from the server, and a pong with another payload, fail", async () => {
    expect(await run("masked", "ws echo: ping")).toBe(
      "the server masked a frame (RFC 6455 §5.1: a server must not)",
    );
    expect(await run("pong", "ws echo: ping")).toBe("a ping got no pong with the same payload");
    expect(await run("pong", "ws echo: a fragmented message with a ping between")).toBe(
      "a ping between fragments got no pong with its payload first",
    );
  }, 20_000);

  test("the close handshake: another code, or no close frame, fails", async () => {
    expect(await run("accept", "ws echo: the close handshake")).toStartWith("Sec-WebSocket");
    expect(await run("close-code", "ws echo: the close handshake")).toBe(
      "a close (1000) was answered with opcode 8, code 1001",
    );
    expect(await run("no-close", "ws echo: the close handshake")).toBe(
      "no frame came: the connection stayed silent",
    );
  }, 20_000);

  test("a server that echoes everything passes the echo cases but not the limits", async () => {
    // This raw server joins no fragments and checks nothing: each fragment comes back alone.
    expect(await run("close-code" as Fault, "ws echo: ping")).toBe("passed");
    expect(await run("pong", "ws echo: text and binary messages")).toBe("passed");
    expect(await run("pong", "ws echo: a message over the limit")).toBe(
      `a message 1 B over the limit: expected the connection to end (${WS_CLOSE.tooBig}), got opcode 2`,
    );
    expect(await run("pong", "ws echo: text that is not UTF-8")).toBe(
      "a text frame that is not UTF-8: expected the connection to end (1007), got opcode 1",
    );
  }, 20_000);
});

describe("the probe's reading of a close", () => {
  test("a connection ended without a close frame passes a limit's case; one left open fails", async () => {
    const ender = createServer((socket) => {
      socket.on("error", () => socket.destroy());
      socket.once("data", (head: Buffer) => {
        const key = /Sec-WebSocket-Key: (\S+)/.exec(head.toString("latin1"))?.[1] ?? "";
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptOf(key)}\r\n\r\n`,
        );
        socket.once("data", () => socket.destroy());
      });
    });
    const port = await listening(ender);
    try {
      const utf8 = WS_CASES["ws echo: text that is not UTF-8"];
      await utf8?.(target(port)); // resolves: the connection ended
      const wire = await WireConnection.open(HOST, port, TIMEOUT_MS);
      wire.write(openingRequest(HOST, port, "/", "a"));
      expect(await wire.head(TIMEOUT_MS)).toMatchObject({ status: 101 });
      wire.write("x");
      expect(await wire.closedWithin(TIMEOUT_MS)).toBe(true);
      expect(await wire.frame(10)).toBe("closed");
    } finally {
      ender.close();
    }
  }, 20_000);
});

describe("an app the contract says cannot serve WebSocket", () => {
  const reason = WS_UNSUPPORTED["node-elysia"] as string;
  /** A server that refuses WebSocket, on a port the system gives. */
  const refusing = (status: number, error: string, upgradeStatus = status) =>
    Bun.serve({
      port: 0,
      hostname: HOST,
      fetch: (request) =>
        Response.json({ error }, { status: wantsWebSocket(request) ? upgradeStatus : status }),
    });

  test("passes when both routes answer 501 with its reason, to an opening request too", async () => {
    const server = refusing(501, reason);
    const port = server.port as number;
    try {
      expect(await checkWebSocket({ ...target(port), app: "node-elysia" })).toEqual([]);
      // The same server, for an app that should serve WebSocket: the echo fails.
      expect(await failed(port)).toContain("ws echo: text and binary messages");
    } finally {
      server.stop(true);
    }
  }, 20_000);

  test("fails on another reason, another status, or an opening request answered otherwise", async () => {
    const check = "ws: not supported, as the contract says";
    for (const [status, error, upgradeStatus, detail] of [
      [
        501,
        "other",
        501,
        `GET /ws/echo got 501 {"error":"other"}, expected 501 with the contract's reason`,
      ],
      [404, reason, 404, "GET /ws/echo got 404"],
      [501, reason, 400, "an opening request on /ws/echo got 400, expected 501"],
    ] as const) {
      const server = refusing(status, error, upgradeStatus);
      try {
        const violations = await checkWebSocket({
          ...target(server.port as number),
          app: "node-elysia",
        });
        expect(violations.map((v) => v.check)).toEqual([check]);
        expect(violations[0]?.detail).toStartWith(detail);
      } finally {
        server.stop(true);
      }
    }
  }, 20_000);
});

describe("the WebSocket scenarios", () => {
  test("each is a WebSocket route of the contract, at its sizes, run on request only", () => {
    const ws = SCENARIOS.filter((s) => "websocket" in s);
    expect(ws.map((s) => [s.name, s.path, s.websocket])).toEqual([
      ["ws-echo", WS_ROUTES.echo, { mode: "echo", bytes: WS_MESSAGE_SIZES[0] }],
      ["ws-echo-4k", WS_ROUTES.echo, { mode: "echo", bytes: WS_MESSAGE_SIZES[1] }],
      [
        "ws-broadcast",
        WS_ROUTES.broadcast,
        { mode: "broadcast", bytes: WS_MESSAGE_SIZES[0], inFlight: WS_BROADCAST_IN_FLIGHT },
      ],
    ]);
    for (const s of ws) expect(STANDARD_SCENARIOS).not.toContain(s);
  });

  test("an app the contract says cannot serve WebSocket is not supported there, with its reason", () => {
    const echo = findScenario("ws-echo") as Scenario;
    const broadcast = findScenario("ws-broadcast") as Scenario;
    const cannot = APPS.filter((app) => notSupported(app, echo) !== undefined).map((a) => a.name);
    expect(cannot as string[]).toEqual(Object.keys(WS_UNSUPPORTED));
    expect(notSupported(getApp("node-elysia"), broadcast)).toBe(WS_UNSUPPORTED["node-elysia"]);
    // An app that cannot serve HTTP/2 serves WebSocket, and the other way round.
    expect(notSupported(getApp("bun-bare"), echo)).toBeUndefined();
    expect(notSupported(getApp("node-elysia"), findScenario("h2") as Scenario)).toBeUndefined();
    expect(notSupported(getApp("node-elysia"), findScenario("api") as Scenario)).toBeUndefined();
  });
});
