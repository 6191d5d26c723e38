import { afterAll, expect, test } from "bun:test";
import { detectRuntime, getApp } from "@bench/contract";
import { checkCases, checkMiddleware } from "@bench/contract/check";
import { handler } from "../src/app.ts";

// In-process the code runs on the test's runtime (Bun); that a running deno-bare is served by Deno
// is the end-to-end test's to check.
const underTest = { ...getApp("deno-bare"), runtime: detectRuntime().name };

/** What Deno.serve passes beside the request: here, a client at the given address. */
const infoFrom = (hostname: string): Deno.ServeHandlerInfo => ({
  remoteAddr: { transport: "tcp", hostname, port: 40000 },
  completed: Promise.resolve(),
});

test("deno-bare answers every contract case in-process", async () => {
  expect(
    await checkCases(async (request) => handler(request, infoFrom("127.0.0.1")), underTest),
  ).toEqual([]);
});

// The middleware checks read raw bytes off the wire (a gzip body, exact headers): the handler
// behind Bun.serve, with the socket's address passed as Deno.serve would pass it.
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request, server) => handler(request, infoFrom(server.requestIP(request)?.address ?? "")),
});
afterAll(() => server.stop(true));

test("deno-bare's middleware routes pass the contract's network checks", async () => {
  expect(await checkMiddleware("127.0.0.1", server.port as number, underTest, 5000)).toEqual([]);
});

test("the rate limit is per client address: another address still has its own 10", async () => {
  const request = () => new Request("http://localhost/api/limited");
  const statuses = async (address: string, n: number) => {
    const answers = [];
    for (let i = 0; i < n; i++) answers.push((await handler(request(), infoFrom(address))).status);
    return answers;
  };
  expect(await statuses("192.0.2.1", 11)).toEqual([...Array(10).fill(200), 429]);
  expect(await statuses("192.0.2.2", 1)).toEqual([200]);
});
