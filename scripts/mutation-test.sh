#!/usr/bin/env bash
# One mutant's test run, for Stryker's command runner (packages/harness/mutation/run.ts):
# `bun test --bail FILES` with BENCH_MUTATION=1. It passes (the mutant survives) only when bun
# test's own summary says every file ran and none failed: an exit of 0 without that summary
# (seen once with two runs at once: no output at all) is run again, and when the second run says
# no more, the mutant is counted killed and the run is written to $MUTATION_ODD_LOG, which
# run.ts reports, rather than a mutant no test saw being counted a survivor.
# Usage: mutation-test.sh FILE...

set -o nounset -o pipefail
odd_log=${MUTATION_ODD_LOG:-/dev/null}
files=$#
# The run's temporary files in a folder of its own, removed when it ends: --bail stops at a
# mutant's first failure, before any test file's afterAll removes what it made (a recording of
# the groups once left over 40,000 folders in /tmp).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-mutant-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
for attempt in 1 2; do
  out=$(TMPDIR=$scratch BENCH_MUTATION=1 bun test --bail "$@" 2>&1)
  code=$?
  if ((code != 0)); then
    printf '%s\n' "$out"
    exit "$code"
  fi
  if grep -Eq "^Ran [0-9]+ tests? across $files files?\." <<<"$out" &&
    grep -Eq '^ +0 fail$' <<<"$out"; then
    exit 0
  fi
  printf 'mutant %s: bun test exited 0 without its summary (attempt %s); it printed %s bytes\n' \
    "${__STRYKER_ACTIVE_MUTANT__:-?}" "$attempt" "${#out}" >>"$odd_log"
done
exit 1
