import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases, checkMiddleware } from "@bench/contract/check";
import { createApp } from "../src/app.ts";

// A node:http handler has no in-process Request interface: serve it on a free port. This runs
// under Bun's node:http; the end-to-end test runs the same code on Node itself.
const server = createApp();
beforeAll(() => new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening)));
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

// In-process the code runs on the test's runtime (Bun); that a running node-bare is served by Node
// is the end-to-end test's to check.
const underTest = { ...getApp("node-bare"), runtime: detectRuntime().name };

test("node-bare answers every contract case", async () => {
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  expect(await checkCases((request) => fetch(request), underTest, origin, false)).toEqual([]);
});

// The raw-wire checks verify() runs (this server is fresh: the rate limit is not spent yet).
test("node-bare's middleware routes pass the contract's network checks", async () => {
  const { port } = server.address() as AddressInfo;
  expect(await checkMiddleware("127.0.0.1", port, underTest, 5000)).toEqual([]);
});
