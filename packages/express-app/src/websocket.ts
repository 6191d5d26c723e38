// The WebSocket routes, Express's way: Express has no WebSocket of its own, and its users put
// the ws package on the app's HTTP server (@bench/contract/ws-node, which node-bare shares: ws
// loaded on the first upgrade, the routes' upgrades only). Express itself answers a GET that
// asks for no upgrade: 426, and what to upgrade to.

import { errorBody } from "@bench/contract";
import { WS_ERRORS, WS_ROUTES } from "@bench/contract/ws";
import type { Express, Request, Response } from "express";

export function webSocketRoutes(app: Express): void {
  const upgradeRequired = (_req: Request, res: Response) => {
    res.status(426).set("upgrade", "websocket").json(errorBody(WS_ERRORS.upgradeRequired));
  };
  app.get([WS_ROUTES.echo, WS_ROUTES.broadcast], upgradeRequired);
}
