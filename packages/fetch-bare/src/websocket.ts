// The WebSocket routes' refusals for the servers of the fetch API (Bun.serve, Deno.serve): a
// request that asks for no upgrade gets 426, one the runtime cannot upgrade gets 400, each with
// the contract's JSON error. The upgrades themselves are each runtime's own (apps/*-bare).

import { WS_ERRORS, wantsWebSocket } from "@bench/contract/ws";
import { fail } from "./index.ts";

/** The answer to a WebSocket route's request that was not upgraded. */
export const notUpgraded = (request: Request): Response =>
  wantsWebSocket(request)
    ? fail(400, WS_ERRORS.badHandshake)
    : fail(426, WS_ERRORS.upgradeRequired, { upgrade: "websocket" });
