// The streamed answers (issue 48): server-sent events and a long byte stream, each sent while it
// is produced (chunked on HTTP/1.1, no Content-Length). The apps take the routes, the limits,
// the events' text and the chunk from here; the verifier builds the whole bodies it expects
// (check/streams.ts), which no app needs.

export const STREAM_ROUTES = {
  /** `text/event-stream` of `?events=N` events, `data: 1` to `data: N`, then the end. */
  sse: "/sse",
  /** `?bytes=N` bytes of STREAM_CHUNK repeated (the last chunk cut short), in chunks of it. */
  stream: "/stream",
} as const;

export const SSE_CONTENT_TYPE = "text/event-stream";
export const STREAM_CONTENT_TYPE = "application/octet-stream";

export const SSE_EVENTS_DEFAULT = 10;
export const SSE_EVENTS_MAX = 10_000;
/** The events per request the `sse` scenario asks for. */
export const SCENARIO_EVENTS = 100;

export const STREAM_CHUNK_BYTES = 16_384;
export const STREAM_BYTES_DEFAULT = 65_536;
export const STREAM_BYTES_MAX = 16_777_216;
/** The bytes per request the `stream` scenario asks for: 64 chunks. */
export const SCENARIO_BYTES = 1_048_576;

export const STREAM_ERRORS = {
  badEvents: `events must be an integer from 1 to ${SSE_EVENTS_MAX}`,
  badBytes: `bytes must be an integer from 1 to ${STREAM_BYTES_MAX}`,
} as const;

/** A decimal query value from 1 to `max`; absent means `absent`; anything else undefined. */
function parseCount(
  raw: string | null | undefined,
  absent: number,
  max: number,
): number | undefined {
  if (raw === null || raw === undefined) return absent;
  if (!/^\d{1,9}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= max ? n : undefined;
}

/** `?events=`: absent means SSE_EVENTS_DEFAULT; else a decimal from 1 to SSE_EVENTS_MAX. */
export const parseEventCount = (raw: string | null | undefined) =>
  parseCount(raw, SSE_EVENTS_DEFAULT, SSE_EVENTS_MAX);

/** `?bytes=`: absent means STREAM_BYTES_DEFAULT; else a decimal from 1 to STREAM_BYTES_MAX. */
export const parseByteCount = (raw: string | null | undefined) =>
  parseCount(raw, STREAM_BYTES_DEFAULT, STREAM_BYTES_MAX);

/** The data of event `i` (1-based): its number. A framework's SSE writer adds `data: ` and "\n\n". */
export const sseData = (i: number): string => String(i);

/** Event `i` as it goes on the wire, for apps that write the format themselves. */
export const sseEvent = (i: number): string => `data: ${i}\n\n`;

/** The events of one answer, one string each, written as they are produced. */
export function* sseEvents(count: number): Generator<string> {
  for (let i = 1; i <= count; i++) yield sseEvent(i);
}

/** 16 KiB of "a" to "z" over and over: every chunk of /stream is this, or its first part. */
export const STREAM_CHUNK: Uint8Array = Uint8Array.from(
  { length: STREAM_CHUNK_BYTES },
  (_, k) => 97 + (k % 26),
);

/** The chunks of a `bytes`-long answer: views of STREAM_CHUNK, never copies. */
export function* streamChunks(bytes: number): Generator<Uint8Array> {
  let left = bytes;
  for (; left >= STREAM_CHUNK_BYTES; left -= STREAM_CHUNK_BYTES) yield STREAM_CHUNK;
  if (left > 0) yield STREAM_CHUNK.subarray(0, left);
}
