#!/usr/bin/env bash
# Mutation testing of the modules where a silent change means a wrong published number: the
# judgement, the statistics (stats.ts, estimate.ts), the analysis every view renders, the
# summary, the parsers and the run comparison. StrykerJS changes
# one thing at a time in them (a < into <=, a constant, a condition) and runs their unit tests
# (bun test, through Stryker's command runner); a mutant no test notices is a gap in the tests.
# Exit status: 0 the score is at least the bar (stryker.config.json's thresholds.break),
# 1 below it or Stryker failed, 2 environment error. Not part of every `npm test`: CI runs it.

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh
bootstrap

# Stryker 10 needs Node >= 22: the harness's pinned Node (from the lockfile) runs it, and the
# command runner finds the project's Bun first on the PATH.
node=packages/harness/node_modules/.bin/node
[[ -x "$node" ]] || { printf 'mutation.sh: %s is missing (bun install)\n' "$node" >&2; exit 2; }
bun_dir=$(dirname "$BUN")
export PATH="$bun_dir:$PATH"
cd packages/harness
exec "../../$node" ../../node_modules/@stryker-mutator/core/bin/stryker.js run
