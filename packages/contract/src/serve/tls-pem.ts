// The certificate an app serves HTTPS with, read from the files the harness names (spec/tls.ts).

import { readFileSync } from "node:fs";
import { TLS_ENV } from "../spec/tls.ts";

/** PEM text of the certificate and its private key. */
export interface TlsPem {
  readonly cert: string;
  readonly key: string;
}

/** The run's certificate, or undefined when the app is to serve plain HTTP only. */
export function tlsPem(env: NodeJS.ProcessEnv = process.env): TlsPem | undefined {
  const cert = env[TLS_ENV.cert];
  const key = env[TLS_ENV.key];
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new Error(`${TLS_ENV.cert} and ${TLS_ENV.key} are set together`);
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}

/**
 * `listening` once every one of `count` servers has said it listens: an app with TLS opens two
 * sockets, and the harness must not reach for the second before it is there.
 */
export function listeningAfter(count: number, listening: () => void): () => void {
  let left = count;
  return () => {
    left -= 1;
    if (left === 0) listening();
  };
}
