// The run's TLS certificate (the `tls` scenario): a self-signed ECDSA P-256 certificate for
// 127.0.0.1 and localhost (and any other address the run's apps listen at), valid one day, made
// by openssl into a folder of the system's temporary folder when the run starts and removed when
// it ends. Never committed, never reused.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TLS_ENV } from "@bench/contract";

export interface RunCertificate {
  /** The variables an app is started with to serve HTTPS (TLS_ENV: the two files). */
  readonly env: Readonly<Record<string, string>>;
  /** The certificate's PEM text: what the verifier trusts. */
  readonly pem: string;
  readonly remove: () => void;
}

/** The openssl command line that makes the pair into `dir`, for `also` besides 127.0.0.1. */
export function opensslArgs(dir: string, also: readonly string[] = []): string[] {
  const names = ["IP:127.0.0.1", "DNS:localhost", ...also.map((address) => `IP:${address}`)];
  return [
    "req",
    "-x509",
    ...["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-days", "1", "-subj", "/CN=localhost"],
    ...["-addext", `subjectAltName=${names.join(",")}`],
    ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
  ];
}

/** Why a run that asked for TLS cannot have its certificate. */
export class CertificateError extends Error {}

/**
 * Makes the run's certificate, for `also` (IP addresses) besides 127.0.0.1 and localhost; a
 * CertificateError saying how to get openssl when it cannot.
 */
export function makeCertificate(also: readonly string[] = [], openssl = "openssl"): RunCertificate {
  const dir = mkdtempSync(join(tmpdir(), `bench-tls-${process.pid}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const made = spawnSync(openssl, opensslArgs(dir, also), { encoding: "utf8" });
  if (made.error || made.status !== 0) {
    remove();
    const why = made.error ? made.error.message : made.stderr.trim().split("\n").at(-1);
    throw new CertificateError(
      `the tls scenario needs a certificate, made with openssl, which failed (${why}); ` +
        "Debian/Ubuntu: apt-get install openssl",
    );
  }
  const cert = join(dir, "cert.pem");
  return {
    env: { [TLS_ENV.cert]: cert, [TLS_ENV.key]: join(dir, "key.pem") },
    pem: readFileSync(cert, "utf8"),
    remove,
  };
}
