#!/usr/bin/env bash
# benchmark.sh: Bun vs Node vs Deno, Hono vs Elysia, measured so the numbers can be trusted.
#
# For every app: refuse a taken port, start it, check it against the contract (an app that
# fails is reported and not measured), warm it up unrecorded, measure it, stop it and make
# sure nothing of it is left running. Trials are interleaved across apps, the server and the
# load generator are pinned to separate CPUs, and every trial records both processes' CPU so a
# result limited by the load generator is flagged as the lower bound it is.
#
# This script prepares the machine and hands over: it installs the pinned Bun and the locked
# dependencies when they are missing (scripts/bootstrap.sh), then runs the harness
# (packages/harness/src/run/run.ts), which owns the command line: every flag, its default,
# its checks and --help are defined once, in packages/harness/src/run/flags.ts.

set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly ROOT

main() {
  # Paths on the command line are the user's: the harness takes them relative to BENCH_CWD.
  local here=$PWD
  cd "$ROOT"
  # shellcheck source=scripts/bootstrap.sh
  source scripts/bootstrap.sh
  bootstrap

  # exec: Ctrl-C then reaches the harness itself, which stops the running app, keeps the
  # finished trials and exits 130; there is nothing left in this shell to clean up.
  BENCH_CWD=$here exec "$BUN" packages/harness/src/run/run.ts "$@"
}

main "$@"
