// The WebSocket probe's cases, each against a raw server (support/ws-server.ts) that breaks one
// rule and no other: every case must name what it saw, in its own words. The servers listen on
// ports the system gives, so two runs at once (mutation testing's) never collide.
import { afterAll, describe, expect, test } from "bun:test";
import type { Server } from "node:net";
import { WS_CLOSE, WS_ERRORS, WS_MAX_MESSAGE_BYTES } from "@bench/contract/ws";
import { MALFORMED_KEYS, WS_CASES } from "@bench/contract/ws-check";
import { validWebSocketKey } from "@bench/contract/ws-key";
import { acceptOf, closePayload, decodeFrame, OP, WireConnection } from "../src/check/ws-wire.ts";
import { listening } from "./support/ports.ts";
import { type Script, scriptedServer, serverFrame } from "./support/ws-server.ts";

const HOST = "127.0.0.1";
const TIMEOUT_MS = 400;
const target = (port: number, timeoutMs = TIMEOUT_MS) => ({ host: HOST, port, timeoutMs });

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A scripted server's port, closed when the file is done. */
async function serve(script: Script = {}): Promise<number> {
  const server = scriptedServer(script);
  servers.push(server);
  return listening(server);
}

/** One case against a server: "passed", or what the case said was wrong. */
async function outcome(
  name: keyof typeof WS_CASES,
  script: Script = {},
  timeoutMs = TIMEOUT_MS,
): Promise<string> {
  const port = await serve(script);
  const run = WS_CASES[name];
  if (!run) throw new Error(`no case ${name}`);
  return run(target(port, timeoutMs)).then(
    () => "passed",
    (error: Error) => error.message,
  );
}

const ECHO = "ws echo: text and binary messages";
const FRAGMENTS = "ws echo: a fragmented message with a ping between";
const CLOSING = "ws echo: the close handshake";
const TOO_BIG = "ws echo: a message over the limit";
const NOT_UTF8 = "ws echo: text that is not UTF-8";
const NO_KEY = "ws echo: an opening request without its key";
const BAD_KEY = "ws echo: an opening request with a malformed key";
const BROADCAST = "ws broadcast: to the others, not the sender";

describe("the scripted server keeps every rule", () => {
  test("each frame-level case passes against it", async () => {
    for (const name of [ECHO, FRAGMENTS, CLOSING, TOO_BIG, NOT_UTF8, NO_KEY, BAD_KEY, BROADCAST]) {
      expect({ name, outcome: await outcome(name as never) }).toEqual({ name, outcome: "passed" });
    }
  }, 20_000);
});

describe("an echo, message by message", () => {
  test("an echo sent back in fragments is one message: it passes", async () => {
    const fragmenting: Script = {
      message: (opcode, payload, peer) => {
        const half = Math.floor(payload.length / 2);
        peer.send(opcode, payload.subarray(0, half), false);
        peer.send(OP.continuation, payload.subarray(half), true);
      },
    };
    expect(await outcome(ECHO, fragmenting)).toBe("passed");
  }, 20_000);

  test("another type, or other bytes, is named with the message's type and size", async () => {
    const flipped: Script = {
      message: (opcode, payload, peer) =>
        peer.send(opcode === OP.text ? OP.binary : OP.text, payload),
    };
    expect(await outcome(ECHO, flipped)).toBe("a text message came back as binary");
    const changed: Script = {
      message: (opcode, payload, peer) => peer.send(opcode, Buffer.concat([payload, payload])),
    };
    expect(await outcome(ECHO, changed)).toBe("a text message of 32 B came back changed");
    const binaryChanged: Script = {
      message: (opcode, payload, peer) =>
        peer.send(opcode, opcode === OP.text ? payload : payload.subarray(1)),
    };
    expect(await outcome(ECHO, binaryChanged)).toBe("a binary message of 4096 B came back changed");
  }, 20_000);

  test("a fragmented answer interrupted by another message, or a frame that is no message", async () => {
    const interrupted: Script = {
      message: (opcode, payload, peer) => {
        peer.send(opcode, payload.subarray(0, 1), false);
        peer.send(opcode, payload.subarray(1), true);
      },
    };
    expect(await outcome(ECHO, interrupted)).toBe("a fragmented message was interrupted");
    const pongFirst: Script = {
      message: (opcode, payload, peer) => {
        peer.send(OP.pong, Buffer.alloc(0));
        peer.send(opcode, payload);
      },
    };
    expect(await outcome(ECHO, pongFirst)).toBe(
      `expected a message, got a frame of opcode ${OP.pong}`,
    );
  }, 20_000);

  test("three fragments that come back as another type or cut are not whole", async () => {
    const lastOnly: Script = {
      message: (opcode, payload, peer) => peer.send(opcode, payload.subarray(30)),
    };
    expect(await outcome(FRAGMENTS, lastOnly)).toBe(
      "a text message sent in three fragments did not come back whole",
    );
    const asBinary: Script = { message: (_, payload, peer) => peer.send(OP.binary, payload) };
    expect(await outcome(FRAGMENTS, asBinary)).toBe(
      "a text message sent in three fragments did not come back whole",
    );
  }, 20_000);
});

describe("the close handshake and the failed connection", () => {
  test("a close answered without a code, or with the connection kept, fails", async () => {
    const noCode: Script = {
      close: (_, peer) => {
        peer.send(OP.close, Buffer.alloc(0));
        peer.socket.end();
      },
    };
    expect(await outcome(CLOSING, noCode)).toBe(
      "a close (1000) was answered with opcode 8, code undefined",
    );
    const kept: Script = { close: (payload, peer) => peer.send(OP.close, payload) };
    expect(await outcome(CLOSING, kept)).toBe(
      "after the close handshake the connection stayed open",
    );
  }, 20_000);

  test("over the limit: the end alone passes; another code, silence or a kept socket fail", async () => {
    const why = "a message 1 B over the limit";
    const endsOnly: Script = { fail: (_, peer) => peer.socket.end() };
    expect(await outcome(TOO_BIG, endsOnly)).toBe("passed");
    const normal: Script = {
      fail: (_, peer) => {
        peer.send(OP.close, closePayload(WS_CLOSE.normal));
        peer.socket.end();
      },
    };
    expect(await outcome(TOO_BIG, normal)).toBe(
      `${why}: the close frame's code is ${WS_CLOSE.normal}, not ${WS_CLOSE.tooBig}`,
    );
    expect(await outcome(TOO_BIG, { fail: () => {} })).toBe(`${why}: the connection stayed open`);
    const keeps: Script = {
      fail: (code, peer) => peer.send(OP.close, closePayload(code)),
      close: () => {},
    };
    expect(await outcome(TOO_BIG, keeps)).toBe(`${why}: the connection stayed open`);
  }, 20_000);

  test("a message exactly at the limit is no failure: it is echoed", async () => {
    const port = await serve();
    const wire = await WireConnection.open(HOST, port, TIMEOUT_MS);
    try {
      wire.write(
        "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      );
      expect(await wire.head(TIMEOUT_MS)).toMatchObject({ status: 101 });
      wire.send(OP.binary, Buffer.alloc(WS_MAX_MESSAGE_BYTES, 7));
      const back = await wire.frame(TIMEOUT_MS);
      expect(typeof back === "string" ? back : back.payload.length).toBe(WS_MAX_MESSAGE_BYTES);
    } finally {
      wire.destroy();
    }
  }, 20_000);

  test("text that is not UTF-8: 1007 passes; the limit's code does not", async () => {
    expect(await outcome(NOT_UTF8)).toBe("passed");
    const wrongCode: Script = {
      fail: (_, peer) => peer.send(OP.close, closePayload(WS_CLOSE.tooBig)),
    };
    expect(await outcome(NOT_UTF8, wrongCode)).toBe(
      `a text frame that is not UTF-8: the close frame's code is ${WS_CLOSE.tooBig}, not 1007`,
    );
  }, 20_000);
});

describe("an opening request without its key", () => {
  const answering = (status: number): Script => ({
    head: (key, socket) => {
      if (key !== undefined) return;
      socket.end(`HTTP/1.1 ${status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    },
  });

  test("any 4xx passes, at both ends of the range; 399, 500 and 101 fail", async () => {
    for (const status of [400, 426, 499]) {
      expect({ status, outcome: await outcome(NO_KEY, answering(status)) }).toEqual({
        status,
        outcome: "passed",
      });
    }
    for (const status of [101, 399, 500]) {
      expect(await outcome(NO_KEY, answering(status))).toBe(
        `an opening request without Sec-WebSocket-Key got ${status}, expected a 4xx`,
      );
    }
  }, 20_000);

  test("no answer at all is said so", async () => {
    expect(await outcome(NO_KEY, { head: () => {} })).toBe(
      "no answer to an opening request without Sec-WebSocket-Key (timeout)",
    );
    const hangsUp: Script = { head: (_, socket) => socket.end() };
    expect(await outcome(NO_KEY, hangsUp)).toBe(
      "no answer to an opening request without Sec-WebSocket-Key (closed)",
    );
  }, 20_000);
});

describe("an opening request with a malformed key", () => {
  /** Upgrades an opening request whose key `upgrades` accepts, refuses any other with 400. */
  const upgrading = (upgrades: (key: string) => boolean): Script => ({
    head: (key, socket) => {
      if (key !== undefined && upgrades(key)) {
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptOf(key)}\r\n\r\n`,
        );
      } else {
        socket.end("HTTP/1.1 400 X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      }
    },
  });

  test("a server that upgrades any key fails at the first, named", async () => {
    expect(
      await outcome(
        BAD_KEY,
        upgrading(() => true),
      ),
    ).toBe(
      "an opening request whose Sec-WebSocket-Key is base64 of 5 bytes got 101, expected a 4xx",
    );
  }, 20_000);

  test("each key is sent: a server that refuses one kind fails on the other", async () => {
    const base64 = (key: string) => /^[+/0-9A-Za-z]+=*$/.test(key);
    expect(await outcome(BAD_KEY, upgrading(base64))).toBe(
      "an opening request whose Sec-WebSocket-Key is base64 of 5 bytes got 101, expected a 4xx",
    );
    expect(
      await outcome(
        BAD_KEY,
        upgrading((key) => !base64(key)),
      ),
    ).toBe("an opening request whose Sec-WebSocket-Key is not base64 got 101, expected a 4xx");
    expect(
      await outcome(
        BAD_KEY,
        upgrading((key) => key.length === 24),
      ),
    ).toBe(
      "an opening request whose Sec-WebSocket-Key is 24 characters ending in == but not base64 got 101, expected a 4xx",
    );
    expect(
      await outcome(
        BAD_KEY,
        upgrading((key) => key.length > 24 && base64(key)),
      ),
    ).toBe(
      "an opening request whose Sec-WebSocket-Key is base64 of 32 bytes got 101, expected a 4xx",
    );
  }, 20_000);

  test("the keys are malformed, each whole on its header line, and a valid one is upgraded", async () => {
    for (const [key] of MALFORMED_KEYS) expect(validWebSocketKey(key)).toBe(false);
    const seen: (string | undefined)[] = [];
    const recording: Script = {
      head: (key, socket) => {
        seen.push(key);
        socket.end("HTTP/1.1 400 X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      },
    };
    expect(await outcome(BAD_KEY, recording)).toBe("passed");
    expect(seen).toEqual(MALFORMED_KEYS.map(([key]) => key));
    expect(await outcome("ws echo: ping", upgrading(validWebSocketKey))).toBe("passed");
  }, 20_000);
});

describe("the opening answer's head, as read", () => {
  /** An answer to the opening request: `lines` with {accept} the key's, then `after`. */
  const head101 = (lines: string, after: Buffer = Buffer.alloc(0)): Script => ({
    head: (key, socket) => {
      if (key === undefined) return;
      socket.write(Buffer.concat([Buffer.from(lines.replace("{accept}", acceptOf(key))), after]));
    },
  });

  test("header names in any case, values trimmed, lines without a name ignored", async () => {
    const odd = head101(
      "HTTP/1.1 101 Switching Protocols\r\n: junk\r\nno colon here\r\nUPGRADE: websocket\r\nConnection: Upgrade\r\nSEC-WEBSOCKET-ACCEPT:    {accept}   \r\n\r\n",
    );
    expect(await outcome("ws echo: ping", odd)).toBe("passed");
  }, 20_000);

  test("a status line that is not HTTP/1.1 is no 101", async () => {
    const old = head101(
      "HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n",
    );
    expect(await outcome("ws echo: ping", old)).toBe(
      "the opening request on /ws/echo got status NaN, expected 101",
    );
  }, 20_000);

  test("a frame in the same packet as the head is read as the first frame", async () => {
    const eager = head101(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n",
      serverFrame(OP.text, Buffer.from("first")),
    );
    const port = await serve(eager);
    const wire = await WireConnection.open(HOST, port, TIMEOUT_MS);
    try {
      wire.write(
        "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      );
      const head = await wire.head(TIMEOUT_MS);
      expect(typeof head === "string" ? head : head.status).toBe(101);
      const frame = await wire.frame(TIMEOUT_MS);
      expect(typeof frame === "string" ? frame : frame.payload.toString()).toBe("first");
    } finally {
      wire.destroy();
    }
  }, 20_000);
});

describe("frames at the edges of their length encodings", () => {
  test("a 16-bit or 64-bit length of zero is a whole frame once its length bytes are there", () => {
    expect(decodeFrame(Buffer.from([0x82, 126, 0, 0]))).toMatchObject({ size: 4 });
    expect(decodeFrame(Buffer.from([0x82, 127, 0, 0, 0, 0, 0, 0, 0, 0]))).toMatchObject({
      size: 10,
    });
    expect(decodeFrame(Buffer.from([0x82, 127, 0, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
  });

  test("a masked frame waits for its whole mask and unmasks every byte", () => {
    const masked = Buffer.from([0x81, 0x83, 1, 2, 3, 4, 0x61 ^ 1, 0x62 ^ 2, 0x63 ^ 3]);
    expect(decodeFrame(masked.subarray(0, 5))).toBeUndefined();
    expect(decodeFrame(masked)?.frame.payload.toString()).toBe("abc");
    expect(decodeFrame(masked)?.size).toBe(9);
    const five = Buffer.from([
      0x81,
      0x85,
      1,
      2,
      3,
      4,
      0x61 ^ 1,
      0x62 ^ 2,
      0x63 ^ 3,
      0x64 ^ 4,
      0x65 ^ 1,
    ]);
    expect(decodeFrame(five)?.frame.payload.toString()).toBe("abcde");
  });
});

describe("a broadcast", () => {
  test("a changed message, another type, or a missing receiver is named", async () => {
    const changed: Script = {
      message: (opcode, payload, _, others) => {
        for (const other of others) other.send(opcode, Buffer.concat([payload, Buffer.from("!")]));
      },
    };
    expect(await outcome(BROADCAST, changed)).toBe(
      "connection 2 got another message than connection 1 sent",
    );
    const asText: Script = {
      message: (_, payload, __, others) => {
        for (const other of others) other.send(OP.text, payload);
      },
    };
    expect(await outcome(BROADCAST, asText)).toBe(
      "connection 1 got another message than connection 3 sent",
    );
    const oneOnly: Script = {
      message: (opcode, payload, _, others) => others[0]?.send(opcode, payload),
    };
    expect(await outcome(BROADCAST, oneOnly)).toBe("no frame came: the connection stayed silent");
  }, 20_000);
});

describe("a client that never reads", () => {
  const NEVER_READS = "ws echo: a client that never reads";

  test("a server that stops reading from it, or ends it, passes; one that takes all and keeps it fails", async () => {
    expect(await outcome(NEVER_READS, { message: (_, __, peer) => peer.socket.pause() })).toBe(
      "passed",
    );
    expect(await outcome(NEVER_READS, { message: (_, __, peer) => peer.socket.destroy() })).toBe(
      "passed",
    );
    // The stand-in reads in this process: on a busy machine its reading can pause for longer
    // than 400 ms, which the case would take for a server that stopped reading. Seconds do not.
    expect(await outcome(NEVER_READS, { discard: true }, 3_000)).toBe(
      "a client that read nothing took all 64 MiB it sent and was not disconnected",
    );
  }, 40_000);
});

describe("a GET without Upgrade", () => {
  const answering = (status: number, body: string) => {
    const server = Bun.serve({
      port: 0,
      hostname: HOST,
      fetch: () => new Response(body, { status, headers: { "content-type": "application/json" } }),
    });
    return server;
  };
  const plainGet = WS_CASES["ws echo: a GET without Upgrade"];

  test("426 with the contract's error passes; another status, body or shape fails", async () => {
    const good = JSON.stringify({ error: WS_ERRORS.upgradeRequired });
    const long = `{"error":"${"x".repeat(200)}"}`;
    const cases: [number, string, string][] = [
      [426, good, "passed"],
      [400, good, "a GET without Upgrade got 400, expected 426"],
      [
        426,
        '{"error":"other"}',
        'a GET without Upgrade: the body is {"error":"other"}, not the contract\'s error',
      ],
      [426, "not json", "a GET without Upgrade: the body is not json, not the contract's error"],
      [426, "[]", "a GET without Upgrade: the body is [], not the contract's error"],
      [
        426,
        long,
        `a GET without Upgrade: the body is ${long.slice(0, 120)}, not the contract's error`,
      ],
    ];
    for (const [status, body, expected] of cases) {
      const server = answering(status, body);
      try {
        const got = await plainGet?.(target(server.port as number)).then(
          () => "passed",
          (error: Error) => error.message,
        );
        expect({ status, body, got }).toEqual({ status, body, got: expected });
      } finally {
        server.stop(true);
      }
    }
  }, 20_000);
});
