// Reference Elysia server on @elysiajs/node for the fast-path check
// (packages/fast-path/README.md): no contract, only the framework's own paths. The user update
// is validated with node-elysia's very schema, once with Elysia's default body handling and
// once with `parse: "json"`, Elysia's direct path for a JSON body; the same two paths without
// the schema, and node-elysia's own parser without it, tell the schema's cost from the path's.

import { updatedUser } from "@bench/contract";
import { parseJsonObject, userUpdate } from "@bench/elysia-app";
import { node } from "@elysiajs/node";
import { Elysia } from "elysia";

type Update = Parameters<typeof updatedUser>[0];

new Elysia({ adapter: node() })
  .get("/", () => "ok")
  .post("/echo", ({ body }) => body, { parse: "json" })
  .post("/validate", ({ body }) => updatedUser(body), { body: userUpdate })
  .post("/validate-json", ({ body }) => updatedUser(body), { body: userUpdate, parse: "json" })
  .post("/update-json", ({ body }) => updatedUser(body as Update), { parse: "json" })
  .post("/update-app-parser", ({ body }) => updatedUser(body as Update), {
    parse: parseJsonObject,
  })
  .listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });
