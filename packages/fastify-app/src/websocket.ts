// The WebSocket routes (issue 48), @fastify/websocket's way: the plugin (the ws package's
// WebSocketServer, noServer, on the server's 'upgrade' event, which it routes through Fastify)
// and each route with both a `handler`, for a request that asks for no upgrade (426), and a
// `wsHandler`, which gets the upgraded ws socket. ws checks the size (maxPayload: 1009) and the
// UTF-8 of text (1007): it sends the close frame with that code, then emits 'error', which the
// plugin gives every socket a listener for (its default errorHandler terminates the connection:
// the close frame is already written, seen on all three runtimes), so bad input never ends the
// process. ws refuses an opening request without its key with a 400.
//
// The plugin is wrapped in fastify-plugin and adds an onRequest and an onResponse hook: it is
// registered in a child context with the two routes (as middleware.ts does its plugins), so
// the plain routes keep their hook-free path. Fastify registers plugins up front, so the plugin
// and ws are loaded at start, not on the first upgrade: the plain instance ready about 20 ms
// later on Node and 8 ms on Bun, with 1.4 MiB more RSS (medians of 10 fresh processes).

import { errorBody } from "@bench/contract";
import {
  WS_ERRORS,
  WS_MAX_BUFFERED_BYTES,
  WS_MAX_MESSAGE_BYTES,
  WS_ROUTES,
} from "@bench/contract/ws";
import websocket, { type WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** A message as ws hands it over: a Buffer (binaryType "nodebuffer"), text or binary alike. */
type Data = Buffer;

/**
 * Sends, and ends a connection whose client reads nothing: ws (through the socket) keeps every
 * unsent message, so past WS_MAX_BUFFERED_BYTES the connection is dropped (a close frame would
 * wait behind what the client does not read). The bytes go back as they came, text as text.
 */
function send(socket: WebSocket, data: Data, isBinary: boolean): void {
  socket.send(data, { binary: isBinary });
  if (socket.bufferedAmount > WS_MAX_BUFFERED_BYTES) socket.terminate();
}

function echo(socket: WebSocket): void {
  socket.on("message", (data: Data, isBinary: boolean) => send(socket, data, isBinary));
}

/** The broadcast route's open sockets (one Set per process: its audience). */
const audience = new Set<WebSocket>();

function broadcast(socket: WebSocket): void {
  audience.add(socket);
  socket.on("close", () => audience.delete(socket));
  socket.on("message", (data: Data, isBinary: boolean) => {
    for (const peer of audience) if (peer !== socket) send(peer, data, isBinary);
  });
}

/** A WebSocket route's request that asks for no upgrade: 426, and what to upgrade to. */
const upgradeRequired = (_req: FastifyRequest, reply: FastifyReply) =>
  reply.code(426).header("upgrade", "websocket").send(errorBody(WS_ERRORS.upgradeRequired));

/**
 * Adds the WebSocket routes to `app`, to be served over plain HTTP by a server created with
 * @bench/contract/ws-node's shouldUpgradeCallback (createApp's `http` option): only these
 * routes' upgrades reach the plugin's 'upgrade' listener.
 */
export function webSocketRoutes(app: FastifyInstance): void {
  app.register(async (scope) => {
    await scope.register(websocket, { options: { maxPayload: WS_MAX_MESSAGE_BYTES } });
    // The plugin's full declaration: `handler` for HTTP, `wsHandler` for the upgraded socket.
    for (const [url, wsHandler] of [
      [WS_ROUTES.echo, echo],
      [WS_ROUTES.broadcast, broadcast],
    ] as const) {
      scope.route({ method: "GET", url, handler: upgradeRequired, wsHandler });
    }
  });
}
