import { afterAll, beforeAll, expect, test } from "bun:test";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { app } from "../src/app.ts";

// Served on a free port under the test's runtime (Bun); the end-to-end test runs deno-fastify on
// its own runtime.
let origin = "";
beforeAll(async () => {
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => app.close());

const underTest = { ...getApp("deno-fastify"), runtime: detectRuntime().name };

test("deno-fastify answers every contract case", async () => {
  expect(await checkCases((request) => fetch(request), underTest, origin, false)).toEqual([]);
});
