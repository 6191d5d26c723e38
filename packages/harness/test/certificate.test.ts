import { expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { TLS_ENV } from "@bench/contract";
import { CertificateError, makeCertificate, opensslArgs } from "../src/apps/certificate.ts";
import { SKIP_WITHOUT_OPENSSL } from "./support/openssl.ts";

test.skipIf(SKIP_WITHOUT_OPENSSL)(
  "the run's certificate: P-256, for 127.0.0.1, localhost and the addresses asked, a day long; removed after",
  () => {
    const made = makeCertificate(["127.0.0.2"]);
    const certFile = made.env[TLS_ENV.cert] as string;
    const keyFile = made.env[TLS_ENV.key] as string;
    try {
      expect(readFileSync(certFile, "utf8")).toBe(made.pem);
      expect(readFileSync(keyFile, "utf8")).toStartWith("-----BEGIN PRIVATE KEY-----");
      const x509 = new X509Certificate(made.pem);
      expect(x509.subjectAltName).toBe("IP Address:127.0.0.1, DNS:localhost, IP Address:127.0.0.2");
      expect(x509.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
      const days = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / 86_400_000;
      expect(days).toBe(1);
      expect(dirname(certFile)).toMatch(new RegExp(`bench-tls-${process.pid}-`));
    } finally {
      made.remove();
    }
    expect(existsSync(dirname(certFile))).toBe(false);
  },
);

test("without openssl: a CertificateError saying how to install it, and no folder left", () => {
  let error: unknown;
  try {
    makeCertificate([], "/nonexistent/openssl");
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(CertificateError);
  expect((error as Error).message).toContain("apt-get install openssl");
  expect((error as Error).message).toContain("ENOENT");
  const left = readdirSync(tmpdir()).filter((n) => n.startsWith(`bench-tls-${process.pid}-`));
  expect(left).toEqual([]);
});

test("openssl's own refusal is quoted by its last line", () => {
  // `false` exits 1 with nothing to say: the reason is then empty, the hint still there.
  expect(() => makeCertificate([], "/bin/false")).toThrow(
    /failed \(\); Debian\/Ubuntu: apt-get install openssl/,
  );
});

test("the key and certificate go into the folder given; the names: 127.0.0.1, localhost, those asked", () => {
  const args = opensslArgs("/x");
  expect(args.slice(-4)).toEqual(["-keyout", "/x/key.pem", "-out", "/x/cert.pem"]);
  expect(args).toContain("subjectAltName=IP:127.0.0.1,DNS:localhost");
  expect(opensslArgs("/x", ["127.0.0.2"])).toContain(
    "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:127.0.0.2",
  );
});
