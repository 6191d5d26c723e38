// Reading a request body without ever holding more than the contract allows. Used by the apps
// whose framework has no body-limit facility of its own (the bare apps and Elysia).

import { ERRORS, isJsonContentType, MAX_BODY_BYTES } from "../spec/endpoints.ts";

export const TOO_LARGE: unique symbol = Symbol("body too large");

/**
 * The body as text, or TOO_LARGE as soon as more than `limit` bytes are declared or have
 * arrived; reading stops there, so a client streaming gigabytes costs at most `limit` bytes.
 */
export async function readBodyText(
  request: Request,
  limit: number = MAX_BODY_BYTES,
): Promise<string | typeof TOO_LARGE> {
  const header = request.headers.get("content-length");
  const declared = Number(header);
  if (declared > limit) return TOO_LARGE;
  // A declared length within the limit is enforced by the HTTP parser (it never delivers more),
  // so the runtime's own, faster read is safe; only a body of unknown length (chunked) is read
  // chunk by chunk. hono/body-limit makes the same distinction; reading every body as a stream
  // made bun-bare slower on echo than bun-hono.
  if (header !== null && Number.isInteger(declared) && !request.headers.has("transfer-encoding")) {
    return request.text();
  }
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received).toString("utf8");
}

/** Why a JSON body was refused, in the contract's words; each app turns it into its response. */
export interface BodyRefusal {
  readonly status: 400 | 413 | 415;
  readonly message: string;
  /** The rest of the body was left unread: the connection cannot carry another request. */
  readonly closeConnection: boolean;
}

/** A JSON body, checked in the contract's order: media type (415), size (413), syntax (400). */
export async function readJsonBody(
  request: Request,
): Promise<{ readonly value: unknown } | { readonly refusal: BodyRefusal }> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return { refusal: { status: 415, message: ERRORS.notJson, closeConnection: false } };
  }
  let text: string | typeof TOO_LARGE;
  try {
    text = await readBodyText(request);
  } catch {
    // The client went away mid-body (or sent a broken chunked framing): Bun throws an
    // AbortError, Deno BadResource, Node "aborted". A 400, not an internal error with a stack
    // trace in the server's log; the connection is done either way.
    return { refusal: { status: 400, message: ERRORS.bodyUnreadable, closeConnection: true } };
  }
  if (text === TOO_LARGE) {
    return { refusal: { status: 413, message: ERRORS.tooLarge, closeConnection: true } };
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { refusal: { status: 400, message: ERRORS.malformedJson, closeConnection: false } };
  }
}

/**
 * Whether reading a request body failed because the client went away mid-body: Bun's
 * AbortError ("The connection was closed."), Deno's BadResource, Node's "aborted"
 * (ECONNRESET). For frameworks that read the body themselves; an app answers these 400
 * (ERRORS.bodyUnreadable) without logging them as its own failure.
 */
export function isClientGone(error: unknown): boolean {
  if (!(error instanceof Error) && !(error instanceof DOMException)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === "AbortError" ||
    error.name === "BadResource" ||
    code === "ECONNRESET" ||
    error.message === "aborted"
  );
}
