// The shortest idiomatic server of each framework, on whichever runtime runs this file: what an
// app of that framework is measured against on the same runtime (packages/fast-path/README.md).
// No contract: GET /api/test answers the identity payload, POST /echo the JSON body it got, each
// the way that framework's own documentation writes it, with its defaults.
//
//   FRAMEWORK=hono|elysia|express|fastify PORT=N node|bun|deno src/refs.ts

import { createServer } from "node:http";
import { apiPayload, type Framework } from "@bench/contract";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { runtime, serveFetch } from "./serve.ts";

const port = Number(process.env.PORT);
const hostname = "127.0.0.1";

async function hono() {
  const app = new Hono();
  app.get("/", (c) => c.text("ok"));
  app.get("/api/test", (c) => c.json(apiPayload("hono")));
  app.post("/echo", async (c) => c.json(await c.req.json()));
  await serveFetch(app.fetch, port, hostname);
}

async function elysia() {
  const { Elysia } = await import("elysia");
  // On Node through the official adapter; on Bun and Deno as their guides write it.
  const adapter = runtime === "node" ? { adapter: (await import("@elysiajs/node")).node() } : {};
  const app = new Elysia(adapter)
    .get("/", () => "ok")
    .get("/api/test", () => apiPayload("elysia"))
    .post("/echo", ({ body }) => body, { parse: "json" });
  if (runtime === "deno") Deno.serve({ port, hostname }, app.fetch);
  else app.listen({ port, hostname });
}

function expressRef() {
  const app = express();
  app.use(express.json());
  app.get("/", (_req, res) => void res.send("ok"));
  app.get("/api/test", (_req, res) => void res.json(apiPayload("express")));
  app.post("/echo", (req, res) => void res.json(req.body));
  createServer(app).listen(port, hostname);
}

function fastify() {
  const app = Fastify();
  app.get("/", () => "ok");
  app.get("/api/test", () => apiPayload("fastify"));
  app.post("/echo", (req) => req.body);
  app.listen({ port, host: hostname });
}

const REFS: Record<Exclude<Framework, "bare">, () => unknown> = {
  hono,
  elysia,
  express: expressRef,
  fastify,
};

const framework = process.env.FRAMEWORK as keyof typeof REFS;
if (!REFS[framework]) throw new Error(`FRAMEWORK must be one of ${Object.keys(REFS).join(", ")}`);
await REFS[framework]();
