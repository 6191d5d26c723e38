// The one rule of an opening request's key (RFC 6455 §4.2.1 item 5), for the apps whose runtime
// does not check it (Deno.upgradeWebSocket) and for the probe's tests. Its own module: the
// WebSocket spec (websocket.ts) is read by most of the harness, this by the probe and two apps.

/**
 * Whether `key` is a Sec-WebSocket-Key RFC 6455 allows: base64 of a 16-byte nonce, 22
 * characters and "==" (the rule the ws package checks). A server refuses any other with a 4xx;
 * Deno.upgradeWebSocket upgrades whatever it is given, so Deno.serve's apps ask this first.
 */
export function validWebSocketKey(key: string | null | undefined): boolean {
  return typeof key === "string" && /^[+/0-9A-Za-z]{22}==$/.test(key);
}
