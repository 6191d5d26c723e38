import { expect, test } from "bun:test";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { honoApp } from "../src/app.ts";

const app = honoApp();

// In-process the code runs on the test's runtime (Bun); that a running deno-hono is served by Deno
// is the end-to-end test's to check.
const underTest = { ...getApp("deno-hono"), runtime: detectRuntime().name };

test("deno-hono answers every contract case in-process", async () => {
  expect(await checkCases((request) => app.fetch(request), underTest)).toEqual([]);
});
