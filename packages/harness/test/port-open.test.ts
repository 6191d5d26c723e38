import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { portOpen } from "../src/apps/port-open.ts";

test("a port that accepts: true at once; one that never opens: false after the bound", async () => {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  expect(await portOpen("127.0.0.1", port, 1000)).toBe(true);
  await new Promise<void>((closed) => server.close(() => closed()));
  const started = Date.now();
  expect(await portOpen("127.0.0.1", port, 50)).toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(50);
});

test("a port that opens while it is asked: true", async () => {
  const server = createServer((socket) => socket.destroy());
  const probe = createServer();
  await new Promise<void>((listening) => probe.listen(0, "127.0.0.1", listening));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((closed) => probe.close(() => closed()));
  setTimeout(() => server.listen(port, "127.0.0.1"), 30);
  expect(await portOpen("127.0.0.1", port, 5000)).toBe(true);
  server.close();
});
