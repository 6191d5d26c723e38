// The tls scenario's certificate is made by openssl: where it is not installed, the tests that
// need one are skipped (visibly, as bun test lists them), except in CI, where they must run.

import { spawnSync } from "node:child_process";

export const HAS_OPENSSL = spawnSync("openssl", ["version"]).status === 0;

/** Skip a test that needs a certificate: no openssl here, and not CI. */
export const SKIP_WITHOUT_OPENSSL = !HAS_OPENSSL && process.env.CI !== "true";
