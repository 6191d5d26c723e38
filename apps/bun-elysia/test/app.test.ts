import { expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { app } from "../src/app.ts";

test("bun-elysia answers every contract case in-process", async () => {
  expect(await checkCases((request) => app.handle(request), getApp("bun-elysia"))).toEqual([]);
});
