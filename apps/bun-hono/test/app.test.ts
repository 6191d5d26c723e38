import { expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import { checkCases } from "@bench/contract/check";
import { honoApp } from "../src/app.ts";

const app = honoApp();

test("bun-hono answers every contract case in-process", async () => {
  expect(await checkCases((request) => app.fetch(request), getApp("bun-hono"))).toEqual([]);
});
