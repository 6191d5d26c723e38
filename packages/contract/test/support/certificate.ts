// A certificate for 127.0.0.1, made as the harness makes the run's (apps/certificate.ts), for
// the tests that serve HTTPS. Where openssl is not installed those tests are skipped (bun test
// lists them), except in CI, where they must run.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SKIP_WITHOUT_OPENSSL =
  spawnSync("openssl", ["version"]).status !== 0 && process.env.CI !== "true";

export interface TestCertificate {
  /** The folder of the two files: the caller removes it. */
  readonly dir: string;
  /** The PEM files' paths. */
  readonly cert: string;
  readonly key: string;
}

export function testCertificate(prefix: string): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
  const made = spawnSync("openssl", [
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-days", "1", "-subj", "/CN=localhost"],
    ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
  ]);
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr?.toString()}`);
  return { dir, cert, key };
}

/** The two PEM texts. */
export const pemOf = (made: TestCertificate) => ({
  cert: readFileSync(made.cert, "utf8"),
  key: readFileSync(made.key, "utf8"),
});
