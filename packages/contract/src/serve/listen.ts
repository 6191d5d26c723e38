// "@bench/contract/listen": an app's plain port, its TLS port when the run gave it a certificate
// (spec/tls.ts), and its cleartext HTTP/2 port when the run asks for h2c (spec/http2.ts), each
// opened by the app's own server code and announced alike.

import { H2C_ENV, H2C_PORT_OFFSET } from "../spec/http2.ts";
import { tlsPort } from "../spec/tls.ts";
import { listeningAfter, type TlsPem, tlsPem } from "./tls-pem.ts";

/** Starts one server on `port` (HTTPS with `tls`), and calls `done` once it listens. */
export type Open = (port: number, tls: TlsPem | undefined, done: () => void) => void;

/** Starts the app's cleartext HTTP/2 server (prior knowledge) on `port`; `done` once it listens. */
export type OpenH2c = (port: number, done: () => void) => void;

/** Whether the run asks for the h2c port: BENCH_H2C=1 (the harness sets it for the h2c scenario). */
export const h2cAsked = (env: NodeJS.ProcessEnv = process.env): boolean => env[H2C_ENV] === "1";

/**
 * Opens `port` over plain HTTP, port + 1000 over HTTPS when BENCH_TLS_CERT and BENCH_TLS_KEY are
 * set, and, given `openH2c`, port + 2000 over cleartext HTTP/2 when BENCH_H2C=1; prints a line for
 * each as it listens and calls `listening` once all do.
 */
export function listenPlainAndTls(
  name: string,
  host: string,
  port: number,
  listening: () => void,
  open: Open,
  openH2c?: OpenH2c,
): void {
  const tls = tlsPem();
  const h2c = openH2c !== undefined && h2cAsked();
  const listened = listeningAfter(1 + (tls ? 1 : 0) + (h2c ? 1 : 0), listening);
  const announce = (url: string) => () => {
    console.log(`${name} listening on ${url}`);
    listened();
  };
  open(port, undefined, announce(`http://${host}:${port}`));
  if (tls) open(tlsPort(port), tls, announce(`https://${host}:${tlsPort(port)}`));
  const cleartext = port + H2C_PORT_OFFSET;
  if (h2c) openH2c(cleartext, announce(`http://${host}:${cleartext} (h2c)`));
}
