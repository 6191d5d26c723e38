// "@bench/contract/listen": an app's plain port, and its TLS port when the run gave it a
// certificate (spec/tls.ts), opened by the app's own server code and announced alike.

import { tlsPort } from "../spec/tls.ts";
import { listeningAfter, type TlsPem, tlsPem } from "./tls-pem.ts";

/** Starts one server on `port` (HTTPS with `tls`), and calls `done` once it listens. */
export type Open = (port: number, tls: TlsPem | undefined, done: () => void) => void;

/**
 * Opens `port` over plain HTTP, and port + 1000 over HTTPS when BENCH_TLS_CERT and
 * BENCH_TLS_KEY are set; prints a line for each as it listens and calls `listening` once all do.
 */
export function listenPlainAndTls(
  name: string,
  host: string,
  port: number,
  listening: () => void,
  open: Open,
): void {
  const tls = tlsPem();
  const listened = listeningAfter(tls ? 2 : 1, listening);
  const announce = (url: string) => () => {
    console.log(`${name} listening on ${url}`);
    listened();
  };
  open(port, undefined, announce(`http://${host}:${port}`));
  if (tls) open(tlsPort(port), tls, announce(`https://${host}:${tlsPort(port)}`));
}
