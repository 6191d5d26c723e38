// The protocols' bad-input cases (issue 48): a TLS client that stalls mid-handshake, an HTTP/2
// stream reset storm ("rapid reset", CVE-2023-44487) and a WebSocket client that never reads.
// Each is bounded (a count of connections, streams or bytes; loopback only) and leaves the
// judging to its caller: whether the app served others meanwhile, and what its memory did
// (appRssBytes). An app must close or refuse such a client, serve the others, and not grow
// without bound.

import { readFileSync } from "node:fs";
import { type ClientHttp2Session, constants } from "node:http2";
import type { Socket } from "node:net";
import { WS_ROUTES } from "../spec/websocket.ts";
import { descendantsOf } from "./proc.ts";
import {
  connectWithin,
  encodeFrame,
  newKey,
  OP,
  openingRequest,
  WireConnection,
} from "./ws-wire.ts";

/** Bad clients held open until release(). */
export interface Held {
  readonly opened: number;
  release(): void;
}

/**
 * The first bytes of a ClientHello: a handshake record announcing 512 bytes, its ClientHello
 * header, the protocol version, and nothing more. A server waits for the rest.
 */
export const PARTIAL_CLIENT_HELLO = Buffer.from([
  0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
]);

/** `count` connections to a TLS port, each stalled after the first bytes of its handshake. */
export async function stallTlsHandshakes(
  host: string,
  tlsPort: number,
  count: number,
  timeoutMs: number,
): Promise<Held & { readonly closedByServer: () => number }> {
  const sockets: Socket[] = [];
  let closed = 0;
  try {
    for (let i = 0; i < count; i++) {
      const socket = await connectWithin(host, tlsPort, timeoutMs);
      socket.on("error", () => {});
      socket.on("close", () => closed++);
      socket.write(PARTIAL_CLIENT_HELLO);
      sockets.push(socket);
    }
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    throw error;
  }
  return {
    opened: sockets.length,
    closedByServer: () => closed,
    release: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

export interface ResetStorm {
  /** Streams opened and at once cancelled before the session ended. */
  readonly reset: number;
  /** Whether the server ended the session (GOAWAY, or closed the connection). */
  readonly ended: boolean;
}

/**
 * `streams` requests for `path` on `session`, each cancelled (RST_STREAM, CANCEL) as soon as
 * it is sent, in batches of 100, until all are sent or the server ends the session.
 */
export async function resetStorm(
  session: ClientHttp2Session,
  path: string,
  streams: number,
): Promise<ResetStorm> {
  let ended = false;
  session.on("goaway", () => {
    ended = true;
  });
  session.on("close", () => {
    ended = true;
  });
  session.on("error", () => {
    ended = true;
  });
  let reset = 0;
  while (reset < streams && !ended && !session.destroyed) {
    for (let i = 0; i < 100 && reset < streams; i++, reset++) {
      const stream = session.request({ ":path": path });
      stream.on("error", () => {});
      stream.close(constants.NGHTTP2_CANCEL);
    }
    await new Promise((next) => setImmediate(next));
  }
  return { reset, ended };
}

/** What a never-reading client saw. */
export interface Flood extends Held {
  /** What it sent before it stopped (all, or up to where the server stopped taking it). */
  readonly sentBytes: number;
  /** Whether the server stopped reading from it: its sends waited `timeoutMs` in vain. */
  readonly stalled: boolean;
  /** Whether the server has ended the connection (so far). */
  endedByServer(): boolean;
  /**
   * Reads again, throwing away what comes, until the server ends the connection or `timeoutMs`
   * passes; whether it ended. A paused socket may not see the server's end (Bun's node:net
   * reports neither the FIN nor a reset while nothing reads), so a client that stopped reading
   * learns it this way.
   */
  readToEnd(timeoutMs: number): Promise<boolean>;
}

/**
 * A WebSocket on the echo route that sends `messages` binary messages of `bytes` each and never
 * reads an echo: the server's answers pile up wherever it keeps what it cannot send, unless it
 * ends the connection or stops reading from it (then the sends stall, which ends the flood).
 */
export async function neverReads(
  host: string,
  port: number,
  messages: number,
  bytes: number,
  timeoutMs: number,
): Promise<Flood> {
  const wire = await WireConnection.open(host, port, timeoutMs);
  wire.write(openingRequest(host, port, WS_ROUTES.echo, newKey()));
  const head = await wire.head(timeoutMs);
  if (typeof head === "string" || head.status !== 101) {
    wire.destroy();
    throw new Error(
      `the echo route did not upgrade (${typeof head === "string" ? head : head.status})`,
    );
  }
  wire.socket.pause(); // read nothing more: the server's echoes fill the kernel's buffers, then its own
  let ended = false;
  wire.socket.on("close", () => {
    ended = true;
  });
  // One frame, sent again and again: masking 64 MiB afresh would cost more than the server's part.
  const frame = encodeFrame(OP.binary, Buffer.alloc(bytes, 0x5a));
  let sent = 0;
  let stalled = false;
  for (let i = 0; i < messages && !ended && !stalled; i++) {
    wire.write(frame);
    sent += bytes;
    // Let the kernel take what it will; a server that stopped reading stops us too.
    if (wire.socket.writableLength > 4 * bytes) {
      await Promise.race([
        new Promise((drained) => wire.socket.once("drain", drained)),
        new Promise((later) => setTimeout(later, timeoutMs)),
      ]);
      stalled = !ended && wire.socket.writableLength > 4 * bytes;
    }
  }
  return {
    opened: 1,
    sentBytes: sent,
    stalled,
    endedByServer: () => ended,
    readToEnd: async (ms) => {
      wire.socket.resume();
      return ended || (await wire.closedWithin(ms));
    },
    release: () => wire.destroy(),
  };
}

/** The resident memory of a process and its descendants, in bytes (0 for those gone). */
export function appRssBytes(pid: number): number {
  let total = 0;
  for (const one of [pid, ...descendantsOf(pid)]) {
    try {
      const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${one}/status`, "utf8"))?.[1];
      total += Number(kib ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
