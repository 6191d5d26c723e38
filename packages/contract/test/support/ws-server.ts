// A WebSocket server of raw frames for the probe's tests: a correct echo and broadcast by
// default (fragments joined, pings answered, the close handshake, the size limit, UTF-8), each
// behaviour replaceable, so one test can break exactly one rule of RFC 6455 or the contract.

import { createServer, type Server, type Socket } from "node:net";
import { acceptOf, closeCode, closePayload, decodeFrame, OP } from "../../src/check/ws-wire.ts";
import { WS_CLOSE, WS_MAX_MESSAGE_BYTES, WS_ROUTES } from "../../src/spec/websocket.ts";
import { validWebSocketKey } from "../../src/spec/ws-key.ts";

/** A server's frame: unmasked (RFC 6455 §5.1), FIN set unless `fin` is false. */
export function serverFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const bit = fin ? 0x80 : 0;
  if (payload.length < 126) {
    return Buffer.concat([Buffer.from([bit | opcode, payload.length]), payload]);
  }
  const long = Buffer.alloc(payload.length < 65_536 ? 4 : 10);
  long[0] = bit | opcode;
  long[1] = payload.length < 65_536 ? 126 : 127;
  if (payload.length < 65_536) long.writeUInt16BE(payload.length, 2);
  else long.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([long, payload]);
}

/** One client connection of the scripted server. */
export interface Peer {
  readonly socket: Socket;
  readonly path: string;
  send(opcode: number, payload: Buffer, fin?: boolean): void;
}

/** What the server does; each member replaces the correct behaviour it names. */
export interface Script {
  /**
   * The answer's head to an opening request; `key` is undefined when it had none. By default a
   * 400 when the key is missing or malformed (then no frame is read), else 101.
   */
  readonly head?: (key: string | undefined, socket: Socket) => void;
  /** A whole message (fragments joined) from `peer`: by default echoed, or broadcast. */
  readonly message?: (opcode: number, payload: Buffer, peer: Peer, others: Peer[]) => void;
  /** A close frame from the client: by default the same code back, then the end. */
  readonly close?: (payload: Buffer, peer: Peer) => void;
  /** A message over the limit or a text that is not UTF-8: by default close with `code`, end. */
  readonly fail?: (code: number, peer: Peer) => void;
  /**
   * After the handshake, read every byte and throw it away, no frame decoded: a server that
   * takes all and answers nothing, as fast as it reads (decoding 64 MiB of masked frames in
   * JavaScript, instrumented by mutation testing, took longer than the test may).
   */
  readonly discard?: true;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

const isUtf8 = (payload: Buffer) => {
  try {
    UTF8.decode(payload);
    return true;
  } catch {
    return false;
  }
};

function defaultHead(key: string | undefined, socket: Socket): void {
  if (key === undefined || !validWebSocketKey(key)) {
    socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptOf(key)}\r\n\r\n`,
  );
}

function defaultMessage(opcode: number, payload: Buffer, peer: Peer, others: Peer[]): void {
  if (peer.path !== WS_ROUTES.broadcast) peer.send(opcode, payload);
  else for (const other of others) other.send(opcode, payload);
}

function defaultFail(code: number, peer: Peer): void {
  peer.send(OP.close, closePayload(code));
  peer.socket.end();
}

/** The frames of one connection after its handshake, as `script` says to answer them. */
function serveFrames(peer: Peer, script: Script, others: () => Peer[]) {
  let parts: Buffer[] = [];
  let opcode: number = OP.text;
  return (frame: { fin: boolean; opcode: number; payload: Buffer }) => {
    if (frame.opcode === OP.ping) return peer.send(OP.pong, frame.payload);
    if (frame.opcode === OP.pong) return;
    if (frame.opcode === OP.close) {
      if (script.close) return script.close(frame.payload, peer);
      peer.send(OP.close, closePayload(closeCode(frame.payload) ?? WS_CLOSE.normal));
      return peer.socket.end();
    }
    if (frame.opcode !== OP.continuation) opcode = frame.opcode;
    parts.push(frame.payload);
    if (!frame.fin) return;
    const payload = Buffer.concat(parts);
    parts = [];
    const bad =
      payload.length > WS_MAX_MESSAGE_BYTES
        ? WS_CLOSE.tooBig
        : opcode === OP.text && !isUtf8(payload)
          ? 1007
          : undefined;
    if (bad !== undefined) return (script.fail ?? defaultFail)(bad, peer);
    (script.message ?? defaultMessage)(opcode, payload, peer, others());
  };
}

/** The server; the peers on the broadcast route hear each other. */
export function scriptedServer(script: Script = {}): Server {
  const peers = new Set<Peer>();
  return createServer((socket) => {
    let buffer = Buffer.alloc(0);
    let onFrame: ReturnType<typeof serveFrames> | undefined;
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      for (const peer of peers) if (peer.socket === socket) peers.delete(peer);
    });
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (onFrame === undefined) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = buffer.subarray(0, end).toString("latin1");
        buffer = buffer.subarray(end + 4);
        const key = /\r\nSec-WebSocket-Key: ([^\r]+)/i.exec(head)?.[1];
        const path = /^GET (\S+)/.exec(head)?.[1] ?? "/";
        (script.head ?? defaultHead)(key, socket);
        if (key === undefined) return;
        const send = (opcode: number, payload: Buffer, fin = true) =>
          socket.write(serverFrame(opcode, payload, fin));
        const peer: Peer = { socket, path, send };
        if (path === WS_ROUTES.broadcast) peers.add(peer);
        onFrame = serveFrames(peer, script, () =>
          [...peers].filter((p) => p !== peer && p.path === path),
        );
      }
      if (script.discard) {
        buffer = Buffer.alloc(0);
        return;
      }
      for (let d = decodeFrame(buffer); d && onFrame; d = decodeFrame(buffer)) {
        buffer = buffer.subarray(d.size);
        onFrame(d.frame);
      }
    });
  });
}
