// A WebSocket client at the level of frames (RFC 6455), for the probe (ws-checks.ts): it must
// send what no library's client sends on purpose (a message in fragments, a ping in between,
// an oversized message, a handshake without its key) and see every frame the server sends,
// pings and close frames included. The client masks every frame it sends, as §5.3 requires.

import { createHash, randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** The Sec-WebSocket-Accept a server must answer `key` with (§4.2.2). */
export const acceptOf = (key: string): string =>
  createHash("sha1").update(`${key}${GUID}`).digest("base64");

export const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

export interface Frame {
  readonly fin: boolean;
  readonly opcode: number;
  readonly masked: boolean;
  readonly payload: Buffer;
}

/** One frame as the client sends it: masked with a fresh key. */
export function encodeFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes + 4);
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = 0x80 | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) head.writeUInt16BE(length, 2);
  if (lengthBytes === 8) head.writeBigUInt64BE(BigInt(length), 2);
  const mask = randomBytes(4);
  mask.copy(head, 2 + lengthBytes);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([head, masked]);
}

/** The first whole frame in `buffer` and the bytes it took; undefined while it is incomplete. */
export function decodeFrame(buffer: Buffer): { frame: Frame; size: number } | undefined {
  if (buffer.length < 2) return undefined;
  const first = buffer[0] as number;
  const second = buffer[1] as number;
  const masked = (second & 0x80) !== 0;
  let length = second & 0x7f;
  let at = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    at = 10;
  }
  const maskAt = at;
  if (masked) at += 4;
  if (buffer.length < at + length) return undefined;
  const payload = Buffer.from(buffer.subarray(at, at + length));
  if (masked) {
    for (let i = 0; i < length; i++) {
      payload[i] = (payload[i] as number) ^ (buffer[maskAt + (i % 4)] as number);
    }
  }
  const frame = { fin: (first & 0x80) !== 0, opcode: first & 0x0f, masked, payload };
  return { frame, size: at + length };
}

/** The close frame's payload: a status code and a reason. */
export function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}

/** The status code of a close frame's payload; undefined when it has none. */
export const closeCode = (payload: Buffer): number | undefined =>
  payload.length >= 2 ? payload.readUInt16BE(0) : undefined;

/** What the server answered the opening request with (a 101 for a WebSocket). */
export interface Handshake {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  /** What came after the head: a refusal's body, or the first frames. */
  readonly rest: Buffer;
}

/** The head's end, and the head parsed; undefined until it has all arrived. */
function parseHead(buffer: Buffer): Handshake | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine = "", ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  return { status, headers, rest: buffer.subarray(end + 4) };
}

/** A TCP connection to host:port; rejects when it cannot be made within `timeoutMs`. */
export function connectWithin(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** What a read ends with when no frame comes: the server closed, or it said nothing in time. */
export type NoFrame = "closed" | "timeout";

/** One TCP connection, read frame by frame. */
export class WireConnection {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | undefined;
  readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  }

  /** A connection to host:port; rejects when it cannot be made within `timeoutMs`. */
  static async open(host: string, port: number, timeoutMs: number): Promise<WireConnection> {
    const socket = await connectWithin(host, port, timeoutMs);
    socket.setNoDelay(true);
    return new WireConnection(socket);
  }

  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  send(opcode: number, payload: Buffer, fin = true): void {
    this.socket.write(encodeFrame(opcode, payload, fin));
  }

  /** Waits until `take` finds what it needs in the buffer, the peer ends, or the time is up. */
  private async until<T>(take: () => T | undefined, timeoutMs: number): Promise<T | NoFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const taken = take();
      if (taken !== undefined) return taken;
      if (this.ended) return "closed";
      const left = deadline - Date.now();
      if (left <= 0) return "timeout";
      await new Promise<void>((resume) => {
        const timer = setTimeout(resume, left);
        this.wake = () => {
          clearTimeout(timer);
          resume();
        };
      });
      this.wake = undefined;
    }
  }

  /** The answer's head to the opening request written before. */
  head(timeoutMs: number): Promise<Handshake | NoFrame> {
    return this.until(() => {
      const head = parseHead(this.buffer);
      if (head) this.buffer = Buffer.from(head.rest);
      return head;
    }, timeoutMs);
  }

  /** The next frame the server sends. */
  frame(timeoutMs: number): Promise<Frame | NoFrame> {
    return this.until(() => {
      const decoded = decodeFrame(this.buffer);
      if (decoded) this.buffer = this.buffer.subarray(decoded.size);
      return decoded?.frame;
    }, timeoutMs);
  }

  /** Whatever the server has sent that is not read yet, waiting up to `timeoutMs` for the end. */
  async rest(timeoutMs: number): Promise<Buffer> {
    await this.until(() => undefined, timeoutMs);
    const rest = this.buffer;
    this.buffer = Buffer.alloc(0);
    return rest;
  }

  /** Whether the server has closed the TCP connection within `timeoutMs`. */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    return (await this.until(() => undefined, timeoutMs)) === "closed";
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The opening request of a WebSocket on `path`, with `key` unless it is to be missing. */
export function openingRequest(
  host: string,
  port: number,
  path: string,
  key: string | undefined,
): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Version: 13",
    ...(key === undefined ? [] : [`Sec-WebSocket-Key: ${key}`]),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** A fresh Sec-WebSocket-Key: 16 random bytes in base64. */
export const newKey = (): string => randomBytes(16).toString("base64");
