// The WebSocket routes on node:http with no framework: the ws package on the server (Node has
// no WebSocket server of its own), from @bench/contract/ws-node, which the Express apps share;
// here the answer to a WebSocket route's request that asks for no upgrade.

import type { ServerResponse } from "node:http";
import { errorBody } from "@bench/contract";
import { WS_ERRORS } from "@bench/contract/ws";
import { isWebSocketRoute } from "@bench/contract/ws-node";

/** 426 for a WebSocket route's request that asks for no upgrade; false for any other path. */
export function upgradeRequired(res: ServerResponse, path: string): boolean {
  if (!isWebSocketRoute(path)) return false;
  const body = JSON.stringify(errorBody(WS_ERRORS.upgradeRequired));
  res.writeHead(426, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    upgrade: "websocket",
  });
  res.end(body);
  return true;
}
