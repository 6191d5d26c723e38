#!/usr/bin/env bash
# Mutation testing of every module that computes a number, a verdict, a plan or a verification
# (packages/harness/mutation/groups.ts). StrykerJS changes one thing at a time in them (a < into
# <=, a constant, a condition) and runs the unit tests of the module's group against each mutant
# (bun test, through Stryker's command runner); a mutant no test notices is a gap in the tests or
# a change nothing can observe (docs/mutation-survivors.md says which).
# Usage: mutation.sh [--all] [--record] [--survivors] [group ...]: only the groups whose code or
# tests changed since their scores were recorded (packages/harness/mutation/recorded.json) run;
# --all runs every one, --record writes the new scores there.
# MUTATION_CONCURRENCY=N: N test processes at once (default 2), fewer on a machine busy already.
# Exit status: 0 every module at least at the bar (90%), 1 one below it or Stryker failed,
# 2 usage or environment error. Not part of every `npm test`: CI runs it.

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh
bootstrap

# Stryker 10 needs Node >= 22: the harness's pinned Node (from the lockfile) runs it, and the
# command runner finds the project's Bun first on the PATH.
PATH="$(dirname "$BUN"):$PATH"
export PATH
exec "$BUN" packages/harness/mutation/run.ts "$@"
