import { expect, test } from "bun:test";
import { checkCases, detectRuntime, getApp } from "@bench/contract";
import { handler } from "../src/app.ts";

// In-process the code runs on the test's runtime (Bun); that a running deno-bare is served by Deno
// is the end-to-end test's to check.
const underTest = { ...getApp("deno-bare"), runtime: detectRuntime().name };

test("deno-bare answers every contract case in-process", async () => {
  expect(await checkCases(async (request) => handler(request), underTest)).toEqual([]);
});
