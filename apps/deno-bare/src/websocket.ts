// The WebSocket routes on Deno.serve, as Deno's docs write them: Deno.upgradeWebSocket turns
// the request into a socket and the answer that completes the handshake. Deno has no message
// size option: a message is checked once it has arrived, and one over the contract's limit
// closes the connection with 1009; nor does it check Sec-WebSocket-Key, which is checked first.
// The broadcast route's audience is a Set of its open sockets.

import {
  textOverLimit,
  WS_CLOSE,
  WS_MAX_BUFFERED_BYTES,
  WS_MAX_MESSAGE_BYTES,
} from "@bench/contract/ws";
import { validWebSocketKey } from "@bench/contract/ws-key";
import { notUpgraded } from "@bench/fetch-bare/websocket";

/** The broadcast route's open sockets (one Deno.serve per process, so one audience). */
const audience = new Set<WebSocket>();

const tooBig = (data: string | ArrayBuffer) =>
  typeof data === "string" ? textOverLimit(data) : data.byteLength > WS_MAX_MESSAGE_BYTES;

/**
 * Sends, and ends a connection whose client reads nothing: Deno keeps every unsent message,
 * so past WS_MAX_BUFFERED_BYTES the socket is closed (Deno then drops what it held).
 */
function send(socket: WebSocket, data: string | ArrayBuffer): void {
  socket.send(data);
  if (socket.bufferedAmount > WS_MAX_BUFFERED_BYTES) socket.close();
}

/** The upgrade of a WebSocket route's request; 426 or 400 when it asks for none or is bad. */
export function webSocket(request: Request, broadcast: boolean): Response {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return notUpgraded(request);
  // Deno.upgradeWebSocket takes any key, even one that is not base64 of 16 bytes: checked here.
  if (!validWebSocketKey(request.headers.get("sec-websocket-key"))) return notUpgraded(request);
  let upgraded: ReturnType<typeof Deno.upgradeWebSocket>;
  try {
    upgraded = Deno.upgradeWebSocket(request);
  } catch {
    // Another header the handshake needs is missing or wrong (Deno throws a TypeError).
    return notUpgraded(request);
  }
  const { socket, response } = upgraded;
  socket.binaryType = "arraybuffer";
  if (broadcast) {
    socket.onopen = () => audience.add(socket);
    socket.onclose = () => audience.delete(socket);
  }
  socket.onmessage = ({ data }: MessageEvent<string | ArrayBuffer>) => {
    if (tooBig(data)) socket.close(WS_CLOSE.tooBig);
    else if (!broadcast) send(socket, data);
    else for (const peer of audience) if (peer !== socket) send(peer, data);
  };
  return response;
}
