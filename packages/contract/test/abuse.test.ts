// The protocols' bad clients (check/abuse.ts) against stand-ins that count what they receive:
// stalled TLS handshakes send exactly the first bytes of a ClientHello and hold on, a reset
// storm cancels every stream it opens and stops when the server ends the session, a client
// that never reads stalls or is ended, and the memory of a process tree is read from /proc.
// Each stand-in listens on a port the system gives (port 0), so that two runs at once
// (mutation testing's) never collide.
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import {
  connect as connectH2,
  createServer as createH2,
  type Http2Server,
  constants as h2constants,
} from "node:http2";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import {
  appRssBytes,
  neverReads,
  PARTIAL_CLIENT_HELLO,
  resetStorm,
  stallTlsHandshakes,
} from "../src/check/abuse.ts";
import { acceptOf, decodeFrame, OP } from "../src/check/ws-wire.ts";
import { closedPort } from "./support/ports.ts";

const HOST = "127.0.0.1";
let closeServer: (() => void) | undefined;
afterEach(() => {
  closeServer?.();
  closeServer = undefined;
});

/** Listens on a port the system gives, closed after the test, and says which. */
async function listen(server: Server | Http2Server): Promise<number> {
  await new Promise<void>((listening) => server.listen(0, HOST, listening));
  closeServer = () => server.close();
  return (server.address() as AddressInfo).port;
}

describe("stalled TLS handshakes", () => {
  test("each connection sends the first 11 bytes of a ClientHello and holds on until released", async () => {
    const received: Buffer[] = [];
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on("data", (data: Buffer) => received.push(data));
      socket.on("error", () => {});
    });
    const port = await listen(server);
    const stall = await stallTlsHandshakes(HOST, port, 5, 1000);
    await Bun.sleep(100);
    expect(stall.opened).toBe(5);
    expect(Buffer.concat(received).equals(Buffer.concat(Array(5).fill(PARTIAL_CLIENT_HELLO)))).toBe(
      true,
    );
    expect(PARTIAL_CLIENT_HELLO.subarray(0, 1)[0]).toBe(0x16); // a handshake record
    expect(stall.closedByServer()).toBe(0);
    sockets[0]?.destroy();
    sockets[1]?.destroy();
    await Bun.sleep(100);
    expect(stall.closedByServer()).toBe(2);
    stall.release();
    await Bun.sleep(100);
    expect(sockets.every((s) => s.destroyed || s.readableEnded)).toBe(true);
  });

  test("a port that refuses: an error, nothing left open", async () => {
    await expect(stallTlsHandshakes(HOST, await closedPort(), 3, 500)).rejects.toThrow(
      "ECONNREFUSED",
    );
  });
});

describe("a reset storm", () => {
  async function h2Server(goawayAfter?: number): Promise<{ port: number; streams: () => number }> {
    let streams = 0;
    const server = createH2();
    server.on("stream", (stream) => {
      stream.on("error", () => {});
      streams++;
      if (streams === goawayAfter) stream.session?.goaway();
    });
    const port = await listen(server);
    return { port, streams: () => streams };
  }

  test("every stream is opened and cancelled; the session stays", async () => {
    const seen = await h2Server();
    const session = connectH2(`http://${HOST}:${seen.port}`);
    const storm = await resetStorm(session, "/api/test", 1000);
    session.destroy();
    expect(storm).toEqual({ reset: 1000, ended: false });
    expect(seen.streams()).toBeGreaterThan(0);
    expect(seen.streams()).toBeLessThanOrEqual(1000);
  });

  test("each stream asks for the path and is cancelled with CANCEL, as the server sees it", async () => {
    const seen: { path: unknown; code: number }[] = [];
    const server = createH2();
    server.on("stream", (stream, headers) => {
      stream.on("error", () => {});
      stream.on("close", () => seen.push({ path: headers[":path"], code: stream.rstCode }));
    });
    const port = await listen(server);
    const session = connectH2(`http://${HOST}:${port}`);
    await resetStorm(session, "/api/test", 50);
    await Bun.sleep(200);
    session.destroy();
    expect(seen.length).toBeGreaterThan(0);
    for (const stream of seen) {
      expect(stream).toEqual({ path: "/api/test", code: h2constants.NGHTTP2_CANCEL });
    }
  });

  test("a session already gone sends nothing; a server that drops the connection ends it", async () => {
    const gone = connectH2(`http://${HOST}:${await closedPort()}`);
    gone.on("error", () => {});
    gone.destroy();
    expect(await resetStorm(gone, "/api/test", 100)).toEqual({ reset: 0, ended: false });
    let streams = 0;
    const dropping = createH2();
    dropping.on("stream", (stream) => {
      stream.on("error", () => {});
      if (++streams === 10) stream.session?.destroy();
    });
    const port = await listen(dropping);
    const session = connectH2(`http://${HOST}:${port}`);
    const storm = await resetStorm(session, "/api/test", 100_000);
    session.destroy();
    expect(storm.ended).toBe(true);
    expect(storm.reset).toBeLessThan(100_000);
  });

  test("a server that ends the session ends the storm", async () => {
    const { port } = await h2Server(10);
    const session = connectH2(`http://${HOST}:${port}`);
    const storm = await resetStorm(session, "/api/test", 100_000);
    session.destroy();
    expect(storm.ended).toBe(true);
    expect(storm.reset).toBeLessThan(100_000);
  });
});

describe("a client that never reads", () => {
  /** A WebSocket handshake answered, then `then` with the socket; the server's port. */
  async function upgrading(then: (socket: Socket, head: Buffer) => void): Promise<number> {
    const server = createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", (head: Buffer) => {
        const key = /Sec-WebSocket-Key: (\S+)/.exec(head.toString("latin1"))?.[1] ?? "";
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptOf(key)}\r\n\r\n`,
        );
        then(socket, head);
      });
    });
    return listen(server);
  }

  test("a server that reads no more stalls it: not all is sent", async () => {
    const port = await upgrading((socket) => socket.pause());
    const flood = await neverReads(HOST, port, 1024, 65_536, 300);
    flood.release();
    expect(flood.stalled).toBe(true);
    expect(flood.endedByServer()).toBe(false);
    expect(flood.sentBytes).toBeLessThan(64 * 1024 * 1024);
    expect(flood.sentBytes % 65_536).toBe(0);
  });

  test("a server that reads everything takes it all", async () => {
    const port = await upgrading((socket) => socket.resume());
    const flood = await neverReads(HOST, port, 64, 65_536, 300);
    flood.release();
    expect(flood).toMatchObject({ stalled: false, sentBytes: 64 * 65_536, opened: 1 });
  });

  test("it asks the echo route, and sends binary messages of the size asked, masked", async () => {
    let request = "";
    let received = Buffer.alloc(0);
    const port = await upgrading((socket, head) => {
      request = head.toString("latin1").split("\r\n")[0] ?? "";
      socket.on("data", (data: Buffer) => {
        received = Buffer.concat([received, data]);
      });
    });
    const flood = await neverReads(HOST, port, 3, 1000, 300);
    await Bun.sleep(100);
    flood.release();
    expect(request).toBe("GET /ws/echo HTTP/1.1");
    const first = decodeFrame(received);
    expect(first?.frame).toMatchObject({ fin: true, opcode: OP.binary, masked: true });
    expect(first?.frame.payload.equals(Buffer.alloc(1000, 0x5a))).toBe(true);
    expect(received.length).toBe(3 * (first?.size ?? 0));
    expect(flood.sentBytes).toBe(3000);
  });

  test("its echoes pile up at the server: it does not read them", async () => {
    let pending = 0;
    const port = await upgrading((socket) => {
      socket.on("data", (data: Buffer) => {
        socket.write(data);
        pending = socket.writableLength;
      });
    });
    const flood = await neverReads(HOST, port, 512, 65_536, 300);
    await Bun.sleep(100);
    flood.release();
    expect(flood.stalled).toBe(false);
    // 32 MiB echoed: what the loopback's buffers cannot hold waits in the server.
    expect(pending).toBeGreaterThan(8 * 1024 * 1024);
  });

  test("a server that hangs up ends it: the flood stops, and is not taken for a stall", async () => {
    const port = await upgrading((socket) => socket.once("data", () => socket.destroy()));
    const flood = await neverReads(HOST, port, 1024, 65_536, 300);
    await Bun.sleep(100);
    flood.release();
    expect(flood.endedByServer()).toBe(true);
    expect(flood.stalled).toBe(false);
    expect(flood.sentBytes).toBeLessThan(1024 * 65_536);
  });

  test("readToEnd: the server's end seen once reading again; false while it holds on", async () => {
    let held: Socket | undefined;
    const port = await upgrading((socket) => {
      held = socket;
      socket.pause();
    });
    const flood = await neverReads(HOST, port, 1024, 65_536, 300);
    expect(flood.stalled).toBe(true);
    expect(await flood.readToEnd(100)).toBe(false);
    held?.destroy();
    expect(await flood.readToEnd(1000)).toBe(true);
    flood.release();
  });

  test("a route that says nothing: an error naming the timeout", async () => {
    const port = await listen(createServer((socket) => socket.on("error", () => {})));
    await expect(neverReads(HOST, port, 1, 1, 200)).rejects.toThrow(
      "the echo route did not upgrade (timeout)",
    );
  });

  test("a route that does not upgrade: an error", async () => {
    const server = createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"));
    });
    const port = await listen(server);
    await expect(neverReads(HOST, port, 1, 1, 300)).rejects.toThrow(
      "the echo route did not upgrade (404)",
    );
  });
});

describe("appRssBytes", () => {
  test("a process and its descendants: a shell with two sleeps holds more than one sleep; 0 for none", async () => {
    const shell = spawn("sh", ["-c", "sleep 5 & sleep 5; wait"]);
    await Bun.sleep(200);
    const { descendantsOf } = await import("../src/check/proc.ts");
    const sleeps = descendantsOf(shell.pid as number);
    expect(sleeps.length).toBe(2);
    const one = appRssBytes(sleeps[0] as number);
    expect(one).toBeGreaterThan(0);
    // Idle processes: their resident memory stays put while it is read.
    expect(appRssBytes(shell.pid as number)).toBeGreaterThan(2 * one);
    expect(appRssBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    shell.kill();
    for (const pid of sleeps) process.kill(pid);
    expect(appRssBytes(2 ** 22 + 1)).toBe(0);
  });
});
