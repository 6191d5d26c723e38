// The per-connection view: how long each connection waits for its first answer.
import { describe, expect, test } from "bun:test";
import { firstResponses, takeResponses } from "../src/apps/first-response.ts";

describe("framing", () => {
  test("complete responses by Content-Length, the partial rest kept", () => {
    const one = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    expect(takeResponses(one + one)).toEqual({ count: 2, rest: "" });
    expect(takeResponses(`${one}HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab`)).toEqual({
      count: 1,
      rest: "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab",
    });
    expect(takeResponses("HTTP/1.1 204 No Content\r\n\r\n")).toEqual({ count: 1, rest: "" });
  });
});

describe("first answers per connection", () => {
  test("a server that never answers some connections: they are counted as unanswered", async () => {
    let seen = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      // the first three requests (three connections' first) are never answered
      fetch: () => (++seen <= 3 ? new Promise<Response>(() => {}) : new Response("ok")),
    });
    try {
      const r = await firstResponses(server.port as number, "/", "", 0.5, 8);
      expect(r.unanswered).toBe(3);
      expect(r.answers).toBeGreaterThan(5);
      expect(r.firstMsMax).toBeNull();
      expect(r.firstMsP50).not.toBeNull();
    } finally {
      server.stop(true);
    }
  });

  test("a server that answers everyone: no connection waits the whole window", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      const r = await firstResponses(server.port as number, "/", "", 0.5, 8);
      expect(r.unanswered).toBe(0);
      expect(r.firstMsMax).toBeLessThan(500);
    } finally {
      server.stop(true);
    }
  });
});
