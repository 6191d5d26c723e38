// Reference Hono server for the fast-path check (packages/fast-path/README.md): no contract,
// only the shortest idiomatic echo, and the same echo behind hono/body-limit, to show what the
// contract's checks cost node-hono and what bodyLimit costs on @hono/node-server.

import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";

const app = new Hono();
app.get("/", (c) => c.text("ok"));
app.post("/echo", async (c) => c.json(await c.req.json()));
app.post("/echo-body-limit", bodyLimit({ maxSize: 1024 * 1024 }), async (c) =>
  c.json(await c.req.json()),
);

serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" });
