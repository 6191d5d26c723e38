import { expect, test } from "bun:test";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { app } from "../src/app.ts";

// In-process the code runs on the test's runtime (Bun); that a running deno-elysia is served by Deno
// is the end-to-end test's to check.
const underTest = { ...getApp("deno-elysia"), runtime: detectRuntime().name };

test("deno-elysia answers every contract case in-process", async () => {
  expect(await checkCases((request) => app.handle(request), underTest)).toEqual([]);
});
