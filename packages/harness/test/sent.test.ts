// The etag scenario's If-None-Match is the app's own current ETag, read once it is verified.
import { afterEach, describe, expect, test } from "bun:test";
import { findScenario } from "@bench/contract";
import { scenarioAsSent } from "../src/load/sent.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

const serving = (etag: string | undefined) => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response("[]", etag ? { headers: { etag } } : {}),
  });
  return server.port as number;
};

describe("the scenario as sent", () => {
  test("etag: the route's current ETag becomes If-None-Match", async () => {
    const etag = findScenario("etag");
    if (!etag) throw new Error("no etag scenario");
    const sent = await scenarioAsSent(etag, serving('W/"16-abc"'));
    expect(sent).toEqual({ ...etag, headers: { "if-none-match": 'W/"16-abc"' } });
  });

  test("etag: a route without an ETag cannot be measured, and says why", async () => {
    const etag = findScenario("etag");
    if (!etag) throw new Error("no etag scenario");
    expect(await scenarioAsSent(etag, serving(undefined))).toBe(
      "/api/etag/items?count=100 answered without an ETag",
    );
  });

  test("any other scenario is sent as written, without a request", async () => {
    const stack = findScenario("stack");
    if (!stack) throw new Error("no stack scenario");
    expect(await scenarioAsSent(stack, 1)).toBe(stack); // port 1: nothing is asked
  });
});
