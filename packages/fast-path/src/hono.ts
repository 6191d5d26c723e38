// Reference Hono server for the fast-path check (packages/fast-path/README.md): no contract,
// only the shortest idiomatic echo, the contract's checks one at a time, and the same echo
// behind hono/body-limit, to show what the checks cost the Hono apps and what bodyLimit costs on
// @hono/node-server. Served by the runtime that runs it (serve.ts): Node, Bun or Deno.

import {
  ERRORS,
  errorBody,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
} from "@bench/contract";
import { createApp } from "@bench/hono-app";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { serveFetch } from "./serve.ts";

const app = new Hono();
app.get("/", (c) => c.text("ok"));
app.post("/echo", async (c) => c.json(await c.req.json()));
// bodyLimit's web streams grow the heap of the process they run in, which changes how often
// it collects garbage: they get a process of their own (LIMIT=1), so the others are not skewed.
if (process.env.LIMIT === "1") {
  app.post("/echo-body-limit", bodyLimit({ maxSize: 1024 * 1024 }), async (c) =>
    c.json(await c.req.json()),
  );
}

// node-hono's checks (media type, declared length, syntax, document shape) in one handler, no
// middleware: how much of the app's distance to /echo is the checks, how much their composition.
app.post("/echo-checked", async (c) => {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return c.json(errorBody(ERRORS.notJson), 415);
  }
  if (Number(c.req.header("content-length")) > MAX_BODY_BYTES) {
    return c.json(errorBody(ERRORS.tooLarge), 413);
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json(errorBody(ERRORS.malformedJson), 400);
  }
  const refused = jsonDocumentError(body);
  return refused ? c.json(errorBody(refused), 400) : c.json(body as object);
});

// Each of the checks alone, to tell their costs apart.
app.post("/echo-content-type", async (c) => {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return c.json(errorBody(ERRORS.notJson), 415);
  }
  return c.json(await c.req.json());
});
app.post("/echo-document", async (c) => {
  const body: unknown = await c.req.json();
  const refused = jsonDocumentError(body);
  return refused ? c.json(errorBody(refused), 400) : c.json(body as object);
});

// node-hono's very app, mounted here: its code in this process, to tell what its code costs
// from what its process does (heap, routes).
app.route("/app", createApp());

await serveFetch(app.fetch, Number(process.env.PORT));
