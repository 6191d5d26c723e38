// node:http with no framework: the baseline that node-hono and node-elysia are measured against.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  apiPayload,
  ERRORS,
  type ErrorMessage,
  errorBody,
  GREETING,
  isJsonContentType,
  jsonDocumentError,
  MAX_BODY_BYTES,
  ROUTES,
} from "@bench/contract";

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, message: ErrorMessage): void {
  sendJson(res, status, errorBody(message));
}

function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  // The rest of the body is never read: close the connection instead of draining it.
  res.setHeader("connection", "close");
  sendError(res, 413, ERRORS.tooLarge);
  req.resume();
}

function echo(req: IncomingMessage, res: ServerResponse): void {
  if (!isJsonContentType(req.headers["content-type"])) {
    sendError(res, 415, ERRORS.notJson);
    return;
  }
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) {
    refuseTooLarge(req, res);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_BODY_BYTES) {
      req.off("data", onData);
      req.off("end", onEnd);
      refuseTooLarge(req, res);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(chunks, received).toString("utf8"));
    } catch {
      sendError(res, 400, ERRORS.malformedJson);
      return;
    }
    const refused = jsonDocumentError(value);
    if (refused) {
      sendError(res, 400, refused);
      return;
    }
    sendJson(res, 200, value);
  };
  req.on("data", onData);
  req.on("end", () => guard(res, onEnd));
}

export function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  if (path === ROUTES.root && req.method === "GET") {
    res.writeHead(200, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": Buffer.byteLength(GREETING),
    });
    res.end(GREETING);
  } else if (path === ROUTES.api && req.method === "GET") {
    sendJson(res, 200, apiPayload("bare"));
  } else if (path === ROUTES.echo && req.method === "POST") {
    echo(req, res);
  } else {
    sendError(res, 404, ERRORS.notFound);
  }
}

/** Runs a handler step; a bug in it costs that request a 500, not the process. */
function guard(res: ServerResponse, step: () => void): void {
  try {
    step();
  } catch (error) {
    console.error(error);
    if (!res.headersSent) sendError(res, 500, ERRORS.internal);
  }
}

export function createApp(): Server {
  return createServer((req, res) => {
    // A client that vanishes mid-body must not take the server down with it.
    req.on("error", () => res.destroy());
    guard(res, () => handle(req, res));
  });
}
