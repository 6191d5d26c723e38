// The WebSocket probe (spec/websocket.ts): hidden cases sent frame by frame (ws-wire.ts), so an
// app that echoes only what a library's client sends, or forgets a rule of RFC 6455, fails.
// Echo: text of 32 B and 4 KiB, binary, a message in fragments with a ping between them, a
// ping alone, the close handshake, and the limits (a message one byte over WS_MAX_MESSAGE_BYTES,
// a text frame that is not UTF-8, an opening request without its key or with a malformed one, a
// GET without Upgrade, a client that never reads).
// Broadcast: a message reaches every other connection of the process and not its sender.

import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { AppName } from "../spec/registry.ts";
import {
  WS_CLOSE,
  WS_ERRORS,
  WS_JSON_TEXT,
  WS_MAX_MESSAGE_BYTES,
  WS_ROUTES,
  WS_TEXT_REPARSED,
  WS_UNSUPPORTED,
} from "../spec/websocket.ts";
import { neverReads } from "./abuse.ts";
import { describeError } from "./payloads.ts";
import type { Violation } from "./violation.ts";
import {
  acceptOf,
  closeCode,
  closePayload,
  type Frame,
  type NoFrame,
  newKey,
  OP,
  openingRequest,
  WireConnection,
} from "./ws-wire.ts";

/** RFC 6455 §7.4.1: a text message that is not UTF-8. */
const INVALID_DATA = 1007;

export interface WsTarget {
  readonly host: string;
  readonly port: number;
  /** How long any one answer may take. */
  readonly timeoutMs: number;
  /** The app, for what the contract says of it (WS_UNSUPPORTED, WS_TEXT_REPARSED). */
  readonly app?: AppName;
  /**
   * Server processes behind the port (1 when absent). With more, the broadcast case is left out:
   * a process's connections are its broadcast's audience, and the probe's may land on several.
   */
  readonly processes?: number;
}

/** A case's failure: what it expected, as one line. */
class Broken extends Error {}

/** A WebSocket on `path`, its handshake checked; throws Broken when it is refused or wrong. */
async function openSocket(target: WsTarget, path: string): Promise<WireConnection> {
  const wire = await WireConnection.open(target.host, target.port, target.timeoutMs);
  const key = newKey();
  wire.write(openingRequest(target.host, target.port, path, key));
  const head = await wire.head(target.timeoutMs);
  if (typeof head === "string" || head.status !== 101) {
    wire.destroy();
    const got = typeof head === "string" ? `no answer (${head})` : `status ${head.status}`;
    throw new Broken(`the opening request on ${path} got ${got}, expected 101`);
  }
  if (head.headers.get("sec-websocket-accept") !== acceptOf(key)) {
    wire.destroy();
    throw new Broken(`Sec-WebSocket-Accept is ${head.headers.get("sec-websocket-accept")}`);
  }
  return wire;
}

/** The next frame the server sends, which must not be masked. */
async function nextFrame(wire: WireConnection, timeoutMs: number): Promise<Frame> {
  const frame = await wire.frame(timeoutMs);
  if (typeof frame === "string") throw new Broken(`no frame came: the connection ${said(frame)}`);
  if (!frame.masked) return frame;
  throw new Broken("the server masked a frame (RFC 6455 §5.1: a server must not)");
}

const said = (why: NoFrame) => (why === "closed" ? "was closed" : "stayed silent");

/** The next whole message: its opcode and its fragments joined. */
async function nextMessage(wire: WireConnection, timeoutMs: number): Promise<Frame> {
  const first = await nextFrame(wire, timeoutMs);
  if (first.opcode !== OP.text && first.opcode !== OP.binary) {
    throw new Broken(`expected a message, got a frame of opcode ${first.opcode}`);
  }
  const parts = [first.payload];
  for (let last = first; !last.fin; ) {
    last = await nextFrame(wire, timeoutMs);
    if (last.opcode !== OP.continuation) throw new Broken("a fragmented message was interrupted");
    parts.push(last.payload);
  }
  return { ...first, fin: true, payload: Buffer.concat(parts) };
}

const kind = (opcode: number) => (opcode === OP.text ? "text" : "binary");

/** Sends a message and expects it back unchanged. */
async function expectEcho(wire: WireConnection, opcode: number, payload: Buffer, ms: number) {
  wire.send(opcode, payload);
  const back = await nextMessage(wire, ms);
  if (back.opcode !== opcode) {
    throw new Broken(`a ${kind(opcode)} message came back as ${kind(back.opcode)}`);
  }
  if (!back.payload.equals(payload)) {
    throw new Broken(`a ${kind(opcode)} message of ${payload.length} B came back changed`);
  }
}

/**
 * Expects the connection failed (RFC 6455 §7.1.7): it must end, and a close frame before the
 * end, which the RFC asks for (SHOULD), must carry `code`. Deno.serve ends the connection
 * without one on a text frame that is not UTF-8.
 */
async function expectFailed(wire: WireConnection, code: number, why: string, ms: number) {
  const frame = await wire.frame(ms);
  if (frame === "closed") return;
  if (frame === "timeout") throw new Broken(`${why}: the connection stayed open`);
  if (frame.opcode !== OP.close) {
    throw new Broken(
      `${why}: expected the connection to end (${code}), got opcode ${frame.opcode}`,
    );
  }
  if (closeCode(frame.payload) !== code) {
    throw new Broken(`${why}: the close frame's code is ${closeCode(frame.payload)}, not ${code}`);
  }
  wire.send(OP.close, closePayload(code));
  if (!(await wire.closedWithin(ms))) throw new Broken(`${why}: the connection stayed open`);
}

/** Text of `n` ASCII bytes that differs each time. */
const text = (n: number) =>
  Buffer.from(
    randomBytes(Math.ceil(n / 2))
      .toString("hex")
      .slice(0, n),
    "latin1",
  );

type Case = (target: WsTarget) => Promise<void>;

const messages: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    await expectEcho(wire, OP.text, text(32), target.timeoutMs);
    await expectEcho(wire, OP.text, text(4096), target.timeoutMs);
    await expectEcho(wire, OP.text, Buffer.from("é ✓ 🎉", "utf8"), target.timeoutMs);
    await expectEcho(wire, OP.binary, randomBytes(4096), target.timeoutMs);
    await expectEcho(wire, OP.binary, randomBytes(WS_MAX_MESSAGE_BYTES), target.timeoutMs);
  } finally {
    wire.destroy();
  }
};

/** Text that looks like JSON: unchanged, or re-serialized where the contract says so. */
const jsonText: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    wire.send(OP.text, Buffer.from(WS_JSON_TEXT.sent));
    const back = await nextMessage(wire, target.timeoutMs);
    const reparsed = target.app !== undefined && WS_TEXT_REPARSED[target.app] !== undefined;
    const expected = reparsed ? WS_JSON_TEXT.reparsed : WS_JSON_TEXT.sent;
    const got = back.payload.toString();
    if (back.opcode === OP.text && got === expected) return;
    throw new Broken(
      reparsed
        ? `the contract says ${target.app} re-serializes JSON-like text; ${WS_JSON_TEXT.sent} came back as ${got}`
        : `JSON-like text ${WS_JSON_TEXT.sent} came back as ${got}`,
    );
  } finally {
    wire.destroy();
  }
};

/** Three fragments with a ping between the second and third (§5.4: control frames may). */
const fragments: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    const parts = [text(10), text(20), text(30)];
    wire.send(OP.text, parts[0] as Buffer, false);
    wire.send(OP.continuation, parts[1] as Buffer, false);
    wire.send(OP.ping, Buffer.from("between"));
    wire.send(OP.continuation, parts[2] as Buffer, true);
    const pong = await nextFrame(wire, target.timeoutMs);
    if (pong.opcode !== OP.pong || pong.payload.toString() !== "between") {
      throw new Broken("a ping between fragments got no pong with its payload first");
    }
    const back = await nextMessage(wire, target.timeoutMs);
    if (back.opcode !== OP.text || !back.payload.equals(Buffer.concat(parts))) {
      throw new Broken("a text message sent in three fragments did not come back whole");
    }
  } finally {
    wire.destroy();
  }
};

const ping: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    const payload = randomBytes(16);
    wire.send(OP.ping, payload);
    const pong = await nextFrame(wire, target.timeoutMs);
    if (pong.opcode !== OP.pong || !pong.payload.equals(payload)) {
      throw new Broken("a ping got no pong with the same payload");
    }
  } finally {
    wire.destroy();
  }
};

/** The client closes with 1000: the server answers with a close frame of 1000 and hangs up. */
const closing: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    wire.send(OP.close, closePayload(WS_CLOSE.normal, "bye"));
    const frame = await nextFrame(wire, target.timeoutMs);
    if (frame.opcode !== OP.close || closeCode(frame.payload) !== WS_CLOSE.normal) {
      throw new Broken(
        `a close (1000) was answered with opcode ${frame.opcode}, code ${closeCode(frame.payload)}`,
      );
    }
    if (!(await wire.closedWithin(target.timeoutMs))) {
      throw new Broken("after the close handshake the connection stayed open");
    }
  } finally {
    wire.destroy();
  }
};

const tooBig: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    wire.send(OP.binary, randomBytes(WS_MAX_MESSAGE_BYTES + 1));
    await expectFailed(wire, WS_CLOSE.tooBig, "a message 1 B over the limit", target.timeoutMs);
  } finally {
    wire.destroy();
  }
};

const notUtf8: Case = async (target) => {
  const wire = await openSocket(target, WS_ROUTES.echo);
  try {
    wire.send(OP.text, Buffer.from([0x68, 0x69, 0xff, 0xfe]));
    await expectFailed(wire, INVALID_DATA, "a text frame that is not UTF-8", target.timeoutMs);
  } finally {
    wire.destroy();
  }
};

/** An opening request with `key` (none when undefined): refused with a 4xx, never upgraded. */
async function expectRefused(target: WsTarget, key: string | undefined, what: string) {
  const wire = await WireConnection.open(target.host, target.port, target.timeoutMs);
  try {
    wire.write(openingRequest(target.host, target.port, WS_ROUTES.echo, key));
    const head = await wire.head(target.timeoutMs);
    if (typeof head === "string") throw new Broken(`no answer to ${what} (${head})`);
    if (head.status < 400 || head.status > 499) {
      throw new Broken(`${what} got ${head.status}, expected a 4xx`);
    }
  } finally {
    wire.destroy();
  }
}

const noKey: Case = (target) =>
  expectRefused(target, undefined, "an opening request without Sec-WebSocket-Key");

/**
 * Keys RFC 6455 does not allow (§4.2.1: base64 of 16 bytes): too short, not base64, the right
 * length but not base64, base64 but too long. Hidden in check/, which no app imports, so an app
 * cannot refuse these and take others.
 */
export const MALFORMED_KEYS: readonly (readonly [key: string, what: string])[] = [
  ["c2hvcnQ=", "base64 of 5 bytes"],
  ["not base64 at all!", "not base64"],
  ["not-base64-at-all!!!!!==", "24 characters ending in == but not base64"],
  [Buffer.alloc(32, 7).toString("base64"), "base64 of 32 bytes"],
];

const malformedKey: Case = async (target) => {
  for (const [key, what] of MALFORMED_KEYS) {
    await expectRefused(target, key, `an opening request whose Sec-WebSocket-Key is ${what}`);
  }
};

/**
 * A client that sends 64 MiB of messages and reads no echo: the app must end the connection
 * once WS_MAX_BUFFERED_BYTES of echoes wait unsent (the kernel's buffers hold a few MiB more),
 * or stop reading from it (Deno.serve, once the socket is closing): either way it stops taking
 * in what it cannot send.
 */
const neverReading: Case = async (target) => {
  const flood = await neverReads(target.host, target.port, 1024, 65_536, target.timeoutMs);
  try {
    const deadline = Date.now() + target.timeoutMs;
    while (!flood.stalled && !flood.endedByServer() && Date.now() < deadline) await sleep(20);
    if (!flood.stalled && !(await flood.readToEnd(target.timeoutMs))) {
      throw new Broken(
        `a client that read nothing took all ${flood.sentBytes / 1_048_576} MiB it sent and was not disconnected`,
      );
    }
  } finally {
    flood.release();
  }
};

/** A plain GET on the route: 426 with the contract's JSON error. */
const plainGet: Case = async (target) => {
  const url = `http://${target.host}:${target.port}${WS_ROUTES.echo}`;
  const answer = await fetch(url, { signal: AbortSignal.timeout(target.timeoutMs) });
  const body = await answer.text();
  if (answer.status !== 426)
    throw new Broken(`a GET without Upgrade got ${answer.status}, expected 426`);
  let error: unknown;
  try {
    error = (JSON.parse(body) as { error?: unknown }).error;
  } catch {
    error = undefined;
  }
  if (error !== WS_ERRORS.upgradeRequired) {
    throw new Broken(
      `a GET without Upgrade: the body is ${body.slice(0, 120)}, not the contract's error`,
    );
  }
};

/** One sends, the others receive it, the sender does not: twice, text then binary. */
const broadcast: Case = async (target) => {
  const wires: WireConnection[] = [];
  try {
    for (let i = 0; i < 3; i++) wires.push(await openSocket(target, WS_ROUTES.broadcast));
    for (const [from, opcode] of [
      [0, OP.text],
      [2, OP.binary],
    ] as const) {
      const payload = opcode === OP.text ? text(64) : randomBytes(64);
      (wires[from] as WireConnection).send(opcode, payload);
      for (const [i, wire] of wires.entries()) {
        if (i === from) continue;
        const got = await nextMessage(wire, target.timeoutMs);
        if (got.opcode !== opcode || !got.payload.equals(payload)) {
          throw new Broken(
            `connection ${i + 1} got another message than connection ${from + 1} sent`,
          );
        }
      }
      const own = await (wires[from] as WireConnection).frame(Math.min(200, target.timeoutMs));
      if (typeof own !== "string") throw new Broken("the sender got its own message back");
    }
  } finally {
    for (const wire of wires) wire.destroy();
  }
};

export const WS_CASES: Readonly<Record<string, Case>> = {
  "ws echo: text and binary messages": messages,
  "ws echo: JSON-like text": jsonText,
  "ws echo: a fragmented message with a ping between": fragments,
  "ws echo: ping": ping,
  "ws echo: the close handshake": closing,
  "ws echo: a message over the limit": tooBig,
  "ws echo: text that is not UTF-8": notUtf8,
  "ws echo: an opening request without its key": noKey,
  "ws echo: an opening request with a malformed key": malformedKey,
  "ws echo: a GET without Upgrade": plainGet,
  "ws echo: a client that never reads": neverReading,
  "ws broadcast: to the others, not the sender": broadcast,
  // Last: the app still serves after every bad input above.
  "ws echo: still serving": messages,
};

/** The cases for an app of `processes` server processes: broadcast only with one. */
function casesFor(processes: number): Readonly<Record<string, Case>> {
  if (processes <= 1) return WS_CASES;
  return Object.fromEntries(Object.entries(WS_CASES).filter(([, run]) => run !== broadcast));
}

/** An app that cannot serve WebSocket: 501 with its reason on both routes, never an upgrade. */
async function refusesWebSocket(target: WsTarget, reason: string): Promise<void> {
  for (const path of [WS_ROUTES.echo, WS_ROUTES.broadcast]) {
    const url = `http://${target.host}:${target.port}${path}`;
    const answer = await fetch(url, { signal: AbortSignal.timeout(target.timeoutMs) });
    const body = await answer.text();
    if (answer.status !== 501 || body !== JSON.stringify({ error: reason })) {
      throw new Broken(
        `GET ${path} got ${answer.status} ${body.slice(0, 120)}, expected 501 with the contract's reason`,
      );
    }
    const wire = await WireConnection.open(target.host, target.port, target.timeoutMs);
    try {
      wire.write(openingRequest(target.host, target.port, path, newKey()));
      const head = await wire.head(target.timeoutMs);
      const status = typeof head === "string" ? head : head.status;
      if (status !== 501)
        throw new Broken(`an opening request on ${path} got ${status}, expected 501`);
    } finally {
      wire.destroy();
    }
  }
}

/**
 * Every WebSocket case against the app at host:port; for an app the contract says cannot serve
 * WebSocket, that it refuses with its reason. The broadcast case assumes one server process
 * (a process's connections are its broadcast's audience).
 */
export async function checkWebSocket(target: WsTarget): Promise<Violation[]> {
  const reason = target.app === undefined ? undefined : WS_UNSUPPORTED[target.app];
  const cases: Readonly<Record<string, Case>> =
    reason === undefined
      ? casesFor(target.processes ?? 1)
      : { "ws: not supported, as the contract says": (t) => refusesWebSocket(t, reason) };
  const violations: Violation[] = [];
  for (const [check, run] of Object.entries(cases)) {
    try {
      await run(target);
    } catch (error) {
      violations.push({ check, detail: describeError(error) });
    }
  }
  return violations;
}
