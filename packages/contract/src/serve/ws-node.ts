// The WebSocket routes on a node:http server with the ws package, as ws's README puts it on a
// server it shares ("Multiple servers sharing a single HTTP/S server": a WebSocketServer with
// noServer, the server's 'upgrade' event calling handleUpgrade). What node-bare (no framework)
// and the Express apps (Express has no WebSocket of its own; its users put ws on its server)
// serve WebSocket with; each answers a GET that asks for no upgrade itself (426).
// "@bench/contract/ws-node": ws is loaded on the first upgrade, so a plain run never loads it.
// ws checks the size (maxPayload: 1009) and the UTF-8 of text (1007) and closes the connection
// itself; each socket's 'error' listener keeps that from ending the process (without one, ws's
// 'error' is unhandled and throws). On Bun, `import("ws")` is Bun's own ws (the same API, the
// upgraded socket handed to Bun's native WebSocket); on Deno, the package over node:http.

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { WS_MAX_BUFFERED_BYTES, WS_MAX_MESSAGE_BYTES, WS_ROUTES } from "../spec/websocket.ts";

const pathOf = (url = "/") => {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
};

/** Whether `path` (no query) is one of the WebSocket routes. */
export const isWebSocketRoute = (path: string) =>
  path === WS_ROUTES.echo || path === WS_ROUTES.broadcast;

/**
 * node:http's createServer option (Node 24.9; Bun 1.4 and Deno 2.9 honour it too): only the
 * WebSocket routes' upgrades reach 'upgrade'; any other request that asks to upgrade (h2c, say)
 * is served as a request, as it was before the server had an 'upgrade' listener.
 */
export const shouldUpgradeCallback = (req: IncomingMessage) => isWebSocketRoute(pathOf(req.url));

let wss: Promise<WebSocketServer> | undefined;
const loadServer = () =>
  (wss ??= import("ws").then(
    ({ WebSocketServer }) =>
      new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES }),
  ));

/** The broadcast route's open sockets (one per process: its audience). */
const audience = new Set<WebSocket>();

/**
 * Sends, and ends a connection whose client reads nothing: ws (through the socket) keeps every
 * unsent message, so past WS_MAX_BUFFERED_BYTES the connection is dropped (a close frame would
 * wait behind what the client does not read).
 */
function send(ws: WebSocket, data: unknown, binary: boolean): void {
  ws.send(data as Buffer, { binary });
  if (ws.bufferedAmount > WS_MAX_BUFFERED_BYTES) ws.terminate();
}

function serveSocket(ws: WebSocket, broadcast: boolean): void {
  ws.on("error", () => {}); // ws has closed the connection (1009, 1007): nothing more to do
  if (broadcast) {
    audience.add(ws);
    ws.on("close", () => audience.delete(ws));
  }
  ws.on("message", (data, isBinary) => {
    if (!broadcast) send(ws, data, isBinary);
    else for (const peer of audience) if (peer !== ws) send(peer, data, isBinary);
  });
}

/**
 * Upgrades the WebSocket routes' requests on `server` (created with shouldUpgradeCallback); ws
 * refuses a bad handshake with a 400 itself. Returns the server.
 */
export function acceptUpgrades<S extends Server>(server: S): S {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    loadServer().then((ws) =>
      ws.handleUpgrade(req, socket, head, (upgraded) =>
        serveSocket(upgraded, pathOf(req.url) === WS_ROUTES.broadcast),
      ),
    );
  });
  return server;
}
