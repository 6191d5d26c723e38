// The streamed routes on node:http with no framework: res.write for each piece as it is made,
// waiting for 'drain' when the socket's buffer is full (Node's backpressure), then res.end().
// Without a Content-Length, node:http sends the answer chunked.

import type { ServerResponse } from "node:http";
import {
  errorBody,
  parseByteCount,
  parseEventCount,
  SSE_CONTENT_TYPE,
  STREAM_CONTENT_TYPE,
  STREAM_ERRORS,
  STREAM_ROUTES,
  sseEvents,
  streamChunks,
} from "@bench/contract";

/** Writes every piece, pausing while the socket's buffer is full; then ends the answer. */
function writeAll(res: ServerResponse, pieces: Iterator<string | Uint8Array>): void {
  for (;;) {
    const next = pieces.next();
    if (next.done) {
      res.end();
      return;
    }
    if (!res.write(next.value)) {
      res.once("drain", () => writeAll(res, pieces));
      return;
    }
  }
}

function refuse(res: ServerResponse, message: string): void {
  const body = JSON.stringify(errorBody(message));
  res.writeHead(400, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** GET /sse and GET /stream; false when `path` is neither. */
export function streamRoute(
  res: ServerResponse,
  path: string,
  query: () => URLSearchParams,
): boolean {
  if (path === STREAM_ROUTES.sse) {
    const events = parseEventCount(query().get("events"));
    if (events === undefined) refuse(res, STREAM_ERRORS.badEvents);
    else {
      res.writeHead(200, { "content-type": SSE_CONTENT_TYPE, "cache-control": "no-cache" });
      writeAll(res, sseEvents(events));
    }
    return true;
  }
  if (path === STREAM_ROUTES.stream) {
    const bytes = parseByteCount(query().get("bytes"));
    if (bytes === undefined) refuse(res, STREAM_ERRORS.badBytes);
    else {
      res.writeHead(200, { "content-type": STREAM_CONTENT_TYPE });
      writeAll(res, streamChunks(bytes));
    }
    return true;
  }
  return false;
}
