import { expect, test } from "bun:test";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { honoApp } from "../src/app.ts";

const app = honoApp();

// In-process the code runs on the test's runtime (Bun); that a running node-hono is served by Node
// is the end-to-end test's to check.
const underTest = { ...getApp("node-hono"), runtime: detectRuntime().name };

test("node-hono answers every contract case in-process", async () => {
  expect(await checkCases((request) => app.fetch(request), underTest)).toEqual([]);
});
