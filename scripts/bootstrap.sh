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

# Runs "$@" with its output in a file, saying after 5 s what it is waiting for and every 15 s
# that it still is, and stops it after LIMIT seconds (no network: bun install and npm retry for
# minutes in silence). Ctrl-C or TERM stops it too; nothing is left running.
#   bootstrap_run LABEL LIMIT LOG command...
bootstrap_run() {
  local label=$1 limit=$2 log=$3 pid waited=0 status=0
  shift 3
  "$@" >"$log" 2>&1 &
  pid=$!
  # shellcheck disable=SC2064 # the pid is meant to be fixed now
  trap "kill $pid 2>/dev/null; exit 130" INT
  # shellcheck disable=SC2064
  trap "kill $pid 2>/dev/null; exit 143" TERM
  # Polled every tenth of a second: an install with nothing to do (most runs) takes
  # milliseconds, and a whole second's sleep would be most of what a refused flag costs.
  local tenths=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.1
    tenths=$((tenths + 1))
    ((tenths % 10 == 0)) || continue
    waited=$((tenths / 10))
    if ((waited == 5)); then
      printf 'bootstrap: %s (up to %d s)...\n' "$label" "$limit" >&2
    elif ((waited > 5 && waited % 15 == 0)); then
      printf 'bootstrap: still %s (%d s)...\n' "$label" "$waited" >&2
    fi
    if ((waited >= limit)); then
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      trap - INT TERM
      cat "$log" >&2
      bootstrap_die "$label: no result within $limit s; is the npm registry reachable? (offline, or a proxy: HTTPS_PROXY, npm_config_registry)"
    fi
  done
  wait "$pid" || status=$?
  trap - INT TERM
  return "$status"
}

# The one limit of every install a run makes, in seconds: this script's and the harness's
# (--node/--bun/--deno's runtimes, --against's checkout), which reads the same variable with
# the same default (INSTALL_LIMIT_SEC in packages/harness/src/runtimes/runtimes.ts; a test
# holds the two together).
install_limit() {
  local limit=${BENCH_INSTALL_TIMEOUT:-300}
  [[ "$limit" =~ ^[1-9][0-9]*$ ]] ||
    bootstrap_die "BENCH_INSTALL_TIMEOUT is the installs' limit in whole seconds, got '$limit'"
  printf '%s' "$limit"
}

pinned_bun_version() {
  sed -n 's/.*"packageManager": *"bun@\([^"]*\)".*/\1/p' package.json
}

# npm's own reason, in one line: "request to URL failed, reason: getaddrinfo EAI_AGAIN host"
# when the registry cannot be reached (the common first contact offline), else its error code.
#   npm_reason LOG
npm_reason() {
  local reason
  # the first match only, by sed itself (a pipe into head would die of SIGPIPE under pipefail)
  reason=$(sed -nE '/^npm (error|ERR!) (FetchError: )?request to .* failed, reason: /{s/^npm (error|ERR!) (FetchError: )?//p;q;}' "$1")
  [[ -n "$reason" ]] || reason=$(sed -nE '/^npm (error|ERR!) code /{s/^npm (error|ERR!) //p;q;}' "$1")
  printf '%s' "${reason:-see the output above}"
}

# npm failed to install the pinned Bun: say why in one line, and how to go on.
#   npm_failed VERSION LOG
npm_failed() {
  local want=$1 log=$2 reason
  reason=$(npm_reason "$log")
  if [[ "$reason" == "request to "* ]]; then
    rm -f "$log"
    bootstrap_die "cannot reach the npm registry to install Bun $want: $reason. Connect this machine to the network (behind a proxy: set HTTPS_PROXY; a mirror: npm_config_registry), or install Bun $want yourself (npm install -g bun@$want), and run again"
  fi
  cat "$log" >&2
  rm -f "$log"
  bootstrap_die "npm could not install bun@$want ($reason); install Bun $want yourself (npm install -g bun@$want) and run again"
}

# bun install failed. Offline it prints a line per package ("error: failed to download
# zod@4.6.7: DNSResolveFailed"): that becomes one line; anything else is shown as it came.
#   install_failed LOG
install_failed() {
  local log=$1 first count
  first=$(sed -n '/^error: failed to download /{s///p;q;}' "$log")
  if [[ -n "$first" ]]; then
    count=$(grep -c '^error: failed to download ' "$log")
    rm -f "$log"
    bootstrap_die "cannot reach the npm registry to install the dependencies: bun install could not download $count packages (the first: $first). Connect this machine to the network (behind a proxy: set HTTPS_PROXY; a mirror: BUN_CONFIG_REGISTRY), and run again"
  fi
  cat "$log" >&2
  rm -f "$log"
  bootstrap_die "'bun install --frozen-lockfile' failed (see above)"
}

bootstrap() {
  local want have local_bun limit
  limit=$(install_limit) || exit 2
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
    local npm_log npm_flags=(--loglevel=error --no-audit --no-fund --prefix .cache/bun)
    npm_log=$(mktemp)
    # npm's cache first, without the network: offline, npm otherwise waits out its timeouts
    # on every package before it falls back to that cache (4 min 40 s measured).
    bootstrap_run "installing Bun $want from npm's cache (npm install --offline)" "$limit" \
      "$npm_log" npm install --offline "${npm_flags[@]}" "bun@$want" ||
      bootstrap_run "installing Bun $want (npm install)" "$limit" "$npm_log" \
        npm install --fetch-timeout=30000 --fetch-retries=1 "${npm_flags[@]}" "bun@$want" ||
      npm_failed "$want" "$npm_log"
    rm -f "$npm_log"
    BUN=$local_bun
  fi
  export BUN
  # Scripts started from here (an app's `bun run start`, the tests' stand-in apps) call `bun`
  # by name: on a machine whose only Bun is the one installed above, that must find it.
  PATH="$(dirname "$BUN"):$PATH"
  export PATH

  # Fast when nothing changed; --frozen-lockfile refuses to drift from bun.lock. Quiet unless
  # it takes long or fails: the output of a benchmark run is the benchmark.
  # The caches first, without the network (Bun's, and npm's for the `node` package's install
  # script, which runs npm: npm_config_offline); only what they lack is fetched.
  local install_log
  install_log=$(mktemp)
  bootstrap_run "installing the dependencies from the caches (bun install --offline)" "$limit" \
    "$install_log" env npm_config_offline=true "$BUN" install --frozen-lockfile --offline ||
    bootstrap_run "installing the dependencies (bun install)" "$limit" \
      "$install_log" "$BUN" install --frozen-lockfile ||
    install_failed "$install_log"
  rm -f "$install_log"
}
