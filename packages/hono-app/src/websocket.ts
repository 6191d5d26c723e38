// The WebSocket routes (issue 48) as Hono's WebSocket helper writes them: a route is the
// runtime adapter's upgradeWebSocket (hono/bun, hono/deno, @hono/node-server) with the route's
// events. What differs by runtime (the adapter, where the limits are kept, how the broadcast
// reaches the others) is each app's src/websocket.ts; the routes, their refusals and the
// broadcast where the runtime has no publish/subscribe of its own are here.

import { errorBody } from "@bench/contract";
import { WS_ERRORS, WS_ROUTES, wantsWebSocket } from "@bench/contract/ws";
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { WSContext, WSEvents } from "hono/ws";

/** Each route's handler: the runtime adapter's upgradeWebSocket(() => events). */
export interface WebSocketRoutes {
  readonly echo: MiddlewareHandler;
  readonly broadcast: MiddlewareHandler;
}

/**
 * A message as the adapters hand it over: text as a string, binary as an ArrayBuffer (Hono's
 * WSContext.binaryType; a Blob never comes). Sent back as it is, text stays text.
 */
export type Message = string | ArrayBuffer;

/** Sends on a socket the runtime's way, which ends a connection whose client reads nothing. */
export type Send = (ws: WSContext, data: Message) => void;

/** The echo route's events: each message back to its sender. */
export const echoEvents = (send: Send): WSEvents => ({
  onMessage: ({ data }, ws) => send(ws, data as Message),
});

/**
 * The broadcast route's events where the runtime has no publish/subscribe (Node, Deno): a Set
 * of the route's open sockets, which a message goes to but its sender. The adapters give each
 * connection one WSContext, the same in every event, so the Set holds those.
 */
export function audienceEvents(send: Send): WSEvents {
  const audience = new Set<WSContext>();
  return {
    onOpen: (_, ws) => audience.add(ws),
    onClose: (_, ws) => audience.delete(ws),
    onMessage: ({ data }, ws) => {
      for (const peer of audience) if (peer !== ws) send(peer, data as Message);
    },
  };
}

const badHandshake = (c: Context) => c.json(errorBody(WS_ERRORS.badHandshake), 400);

/**
 * A WebSocket route's request that was not upgraded: upgradeWebSocket calls next when it asks
 * for none (426, with the protocol to ask for, RFC 9110 §15.5.22), and hono/bun's does too when
 * Bun refuses the opening request (no Sec-WebSocket-Key, say: 400).
 */
export const notUpgraded = (c: Context): Response =>
  wantsWebSocket(c.req.raw)
    ? badHandshake(c)
    : c.json(errorBody(WS_ERRORS.upgradeRequired), 426, { upgrade: "websocket" });

/**
 * app.onError's answer to an opening request the runtime threw on, or undefined for any other
 * error: hono/deno calls Deno.upgradeWebSocket, which throws a TypeError when Sec-WebSocket-Key
 * (or another header the handshake needs) is missing. The client's mistake: 400, not 500.
 */
export function refusedOpening(error: unknown, c: Context): Response | undefined {
  const onRoute = c.req.path === WS_ROUTES.echo || c.req.path === WS_ROUTES.broadcast;
  if (error instanceof TypeError && onRoute && wantsWebSocket(c.req.raw)) return badHandshake(c);
  return undefined;
}

export function addWebSocketRoutes(app: Hono, routes: WebSocketRoutes): void {
  app.get(WS_ROUTES.echo, routes.echo, notUpgraded);
  app.get(WS_ROUTES.broadcast, routes.broadcast, notUpgraded);
}
