#!/usr/bin/env bash
# The project's test command (`npm test`): formatting and lint (Biome), shell scripts
# (shellcheck), types (tsc through Turborepo), then every test (bun test). Works on a fresh
# machine with only Node.js and npm: scripts/bootstrap.sh brings Bun and the dependencies.
# Every step runs even when an earlier one failed, so one run shows all that is wrong.
#
#   scripts/test.sh           everything (npm test)
#   scripts/test.sh --unit    the in-process tests alone (npm run test:unit): every *.test.ts but
#                             the *.e2e.test.ts, so no app, no load generator, no fixed port;
#                             the quick loop while working (about 30 s on two cores)
#
# Exit codes: 0 all passed, 1 something failed, 2 environment error or a bad argument.

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

unit=false
case ${1:-} in
  "") ;;
  --unit) unit=true ;;
  *)
    printf 'test.sh: unknown argument %s (none: every check; --unit: the in-process tests)\n' "$1" >&2
    exit 2
    ;;
esac

# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh
bootstrap

# The in-process tests: the test files of the apps and packages, less the end-to-end ones (the
# naming rule of docs/testing.md), as paths (bun test takes a bare word for a filter).
unit_tests() {
  find apps packages -name '*.test.ts' ! -name '*.e2e.test.ts' -not -path '*/node_modules/*' |
    sort | sed 's|^|./|'
}

if [[ $unit == true ]]; then
  mapfile -t files < <(unit_tests)
  exec "$BUN" test "${files[@]}"
fi

failed=0
step() {
  local name=$1 status=0
  shift
  printf '\n== %s\n' "$name" >&2
  "$@" || status=$?
  case $status in
    0) printf 'check: %s ok\n' "$name" ;;
    77) ;; # skipped (the automake convention): the step said so itself
    *)
      printf 'check: %s FAILED\n' "$name"
      failed=1
      ;;
  esac
}

# shellcheck disable=SC2317 # called through step()
shell_scripts() {
  git ls-files '*.sh' .ci/run 2>/dev/null || find . -name '*.sh' -not -path './node_modules/*'
}

# shellcheck disable=SC2317 # called through step()
run_shellcheck() {
  if ! command -v shellcheck >/dev/null; then
    printf 'shellcheck is not installed (Debian/Ubuntu: apt-get install shellcheck; macOS: brew install shellcheck)\n' >&2
    # CI must check the scripts; a machine with only Node.js and npm skips it, visibly.
    [[ "${CI:-}" == true ]] && return 1
    printf 'check: shellcheck SKIPPED (not installed)\n'
    return 77
  fi
  # shellcheck disable=SC2046 # one word per path is what we want
  shellcheck -x $(shell_scripts)
}

step "biome (format + lint)" node_modules/.bin/biome check --error-on-warnings .
step "shellcheck" run_shellcheck
step "tsc --noEmit (turbo run typecheck)" node_modules/.bin/turbo run typecheck --output-logs=errors-only
printf '\n== bun test\n' >&2
"$BUN" test || failed=1
exit "$failed"
