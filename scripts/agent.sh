#!/usr/bin/env bash
# What ./benchmark.sh --server-host runs on the server host, over SSH, in the project's checkout
# there: the pinned Bun and the locked dependencies (bootstrap.sh, as a run on one machine does),
# then the agent (packages/harness/src/hosts/agent.ts), which starts, samples and stops the apps for
# the harness on the other host. Its stdout is the harness's channel: everything else goes to
# stderr, which the harness shows.

set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh
bootstrap >&2
exec "$BUN" packages/harness/src/hosts/agent.ts
