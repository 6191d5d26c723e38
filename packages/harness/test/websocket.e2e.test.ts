// End to end: every app serves the WebSocket routes (issue 48) as a real process on its real
// port, one process (the broadcast reaches the connections of its process), and passes the
// contract's probe: text and binary echoes, fragments with a ping between, the close
// handshake, the limits, an opening request without its key or with a malformed one, a GET
// without Upgrade, the broadcast to the others; then it still serves, its log clean, and stops
// cleanly. An app the
// contract says cannot serve WebSocket (WS_UNSUPPORTED) must answer both routes 501 with why.
import { describe, expect, test } from "bun:test";
import { APPS } from "@bench/contract";
import { WS_UNSUPPORTED } from "@bench/contract/ws";
import { checkWebSocket } from "@bench/contract/ws-check";
import { portHolder, startApp } from "../src/index.ts";

describe("every app over WebSocket", () => {
  for (const app of APPS) {
    const what = WS_UNSUPPORTED[app.name]
      ? "refuses WebSocket with its reason"
      : "passes the WebSocket probe";
    test(`${app.name} ${what} on ${app.port}`, async () => {
      const running = await startApp(app, { workers: 1 });
      try {
        const target = { host: "127.0.0.1", port: app.port, timeoutMs: 3000, app: app.name };
        expect(await checkWebSocket(target)).toEqual([]);
        expect(running.hasExited()).toBe(false);
        expect(running.output()).not.toMatch(/Error|Exception|^\s+at /m);
      } finally {
        await running.stop(900);
      }
      expect(await portHolder(app.port)).toBeUndefined();
    }, 60_000);
  }
});
