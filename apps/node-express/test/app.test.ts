import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { app } from "../src/app.ts";

// An Express app has no in-process Request interface: serve it on a free port, under the test's
// runtime (Bun); the end-to-end test runs node-express on its own runtime.
const server = createServer(app);
beforeAll(() => new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening)));
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

const underTest = { ...getApp("node-express"), runtime: detectRuntime().name };

test("node-express answers every contract case", async () => {
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  expect(await checkCases((request) => fetch(request), underTest, origin, false)).toEqual([]);
});
