# shellcheck shell=bash
# Sourced by test.sh and benchmark.sh: makes sure the project's pinned Bun and the locked
# dependencies are there, on a machine that may have nothing but Node.js and npm.
#
# Sets BUN to the Bun to use. The version is the one package.json's packageManager pins;
# a different `bun` on the PATH is left alone and a pinned copy is installed into
# .cache/bun instead (npm install --prefix), so results never depend on the machine's Bun.

bootstrap_die() {
  printf 'bootstrap: %s\n' "$1" >&2
  exit 2
}

pinned_bun_version() {
  sed -n 's/.*"packageManager": *"bun@\([^"]*\)".*/\1/p' package.json
}

bootstrap() {
  local want have local_bun
  want=$(pinned_bun_version)
  [[ -n "$want" ]] || bootstrap_die "package.json has no \"packageManager\": \"bun@<version>\""
  local_bun="$PWD/.cache/bun/node_modules/.bin/bun"

  if [[ -n "${BENCH_BUN:-}" ]]; then
    BUN=$BENCH_BUN
  elif have=$(bun --version 2>/dev/null) && [[ "$have" == "$want" ]]; then
    BUN=$(command -v bun)
  elif [[ -x "$local_bun" ]] && [[ "$("$local_bun" --version 2>/dev/null)" == "$want" ]]; then
    BUN=$local_bun
  else
    command -v npm >/dev/null ||
      bootstrap_die "Bun $want is needed and npm is not installed to fetch it: install Node.js (which brings npm), or Bun $want from https://bun.sh"
    printf 'bootstrap: installing Bun %s into .cache/bun (npm install)...\n' "$want" >&2
    npm install --silent --no-audit --no-fund --prefix .cache/bun "bun@$want" >&2 ||
      bootstrap_die "npm could not install bun@$want; install Bun $want yourself (npm install -g bun@$want) and run again"
    BUN=$local_bun
  fi
  export BUN
  # Scripts started from here (an app's `bun run start`, the tests' stand-in apps) call `bun`
  # by name: on a machine whose only Bun is the one installed above, that must find it.
  PATH="$(dirname "$BUN"):$PATH"
  export PATH

  # Fast when nothing changed; --frozen-lockfile refuses to drift from bun.lock. Quiet unless
  # it fails: the output of a benchmark run is the benchmark.
  local out
  out=$("$BUN" install --frozen-lockfile 2>&1) || {
    printf '%s\n' "$out" >&2
    bootstrap_die "'bun install --frozen-lockfile' failed (see above)"
  }
}
