// A HEAD answer made from GET's, for Deno.serve: over HTTP/1.1 it leaves the body of a HEAD
// answer off the wire itself, but over HTTP/2 (Deno 2.9.6) it sends it as DATA frames, which
// clients reject as a protocol error (curl exits 92; Node's client resets the stream).

/**
 * GET's status and headers with no body, its length as Content-Length: Deno.serve sends that
 * length as given (a body-less Response without one went out as Content-Length: 0). GET's body
 * is read to count it when GET's answer names no length: HEAD is on no measured path.
 */
export async function headAnswer(get: Response): Promise<Response> {
  if (get.body === null) return get;
  const named = get.headers.get("content-length");
  let length: string;
  if (named === null) length = String((await get.arrayBuffer()).byteLength);
  else {
    length = named;
    await get.body.cancel();
  }
  const headers = new Headers(get.headers);
  headers.set("content-length", length);
  return new Response(null, { status: get.status, statusText: get.statusText, headers });
}
