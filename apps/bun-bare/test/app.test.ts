import { afterAll, expect, test } from "bun:test";
import { getApp } from "@bench/contract";
import { checkCases, checkMiddleware } from "@bench/contract/check";
import { serveOptions } from "../src/app.ts";

// Bun's route table only exists inside Bun.serve: serve it on a free port in this process.
const server = Bun.serve({ ...serveOptions, port: 0, hostname: "127.0.0.1" });
afterAll(() => server.stop(true));

test("bun-bare answers every contract case", async () => {
  const origin = `http://127.0.0.1:${server.port}`;
  expect(await checkCases((request) => fetch(request), getApp("bun-bare"), origin, false)).toEqual(
    [],
  );
});

// The raw-wire checks verify() runs (this server is fresh: the rate limit is not spent yet).
test("bun-bare's middleware routes pass the contract's network checks", async () => {
  expect(
    await checkMiddleware("127.0.0.1", server.port as number, getApp("bun-bare"), 5000),
  ).toEqual([]);
});
