#!/usr/bin/env bash
# `bun run start` in apps/<name> runs this: it starts the app on the runtime the lockfile pins,
# or stops at once with one line saying what to run. Without it, a fresh clone (no
# node_modules yet) ran a node-* app on whatever Node the machine has, which died with a stack
# trace, or a bun-* app on whatever Bun started it.
#
#   scripts/start-app.sh node|bun|deno ENTRY
#
# BENCH_NODE / BENCH_BUN / BENCH_DENO point at another build on purpose (the verifier still
# checks which runtime answers). exec: the runtime replaces this shell, so nothing is left
# between the harness and the server.

set -o errexit -o nounset -o pipefail

runtime=$1
entry=$2
app=$(basename "$PWD")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
  printf '%s: %s\n' "$app" "$1" >&2
  exit 1
}

case $runtime in
  node) override=${BENCH_NODE:-} preload=--import ;;
  bun) override=${BENCH_BUN:-} preload=--preload ;;
  deno) override=${BENCH_DENO:-} preload=--preload ;;
  *) die "start-app.sh: unknown runtime '$runtime' (node, bun or deno)" ;;
esac

# Deno runs with the permissions the app needs and no more: the network on its own address, the
# environment variables it reads, and (with workers) starting its own binary once per worker.
# The workers get the same flags without --allow-run (BENCH_DENO_FLAGS, one per line). Elysia
# reads NODE_ENV, ENV and ELYSIA_AOT at import; @fastify/compress loads readable-stream, which
# reads READABLE_STREAM; Deno throws on a read it was not allowed.
PG_VARIABLES=PGPASSWORD,PGAPPNAME,PGTARGETSESSIONATTRS,PGSSL,PGSSLNEGOTIATION,PGIDLE_TIMEOUT
PG_VARIABLES+=,PGCONNECT_TIMEOUT,PGMAX_LIFETIME,PGMAX_PIPELINE,PGBACKOFF,PGKEEP_ALIVE,PGPREPARE
PG_VARIABLES+=,PGDEBUG,PGFETCH_TYPES,PGPUBLICATIONS,PGTARGET_SESSION_ATTRS
deno_flags() {
  local port
  port=$(sed -n "s/.*name: \"$app\".*port: \([0-9]*\).*/\1/p" "$root/packages/contract/src/spec/registry.ts")
  [[ -n "$port" ]] || die "packages/contract/src/spec/registry.ts names no port for $app"
  local env="--allow-env=BENCH_WORKERS,BENCH_DENO_WORKER,BENCH_DENO_FLAGS,BENCH_LISTEN,BENCH_DB,BENCH_PG,BENCH_TLS_CERT,BENCH_TLS_KEY,NODE_ENV,ENV,ELYSIA_AOT,READABLE_STREAM,WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE"
  # Express, and elysia-rate-limit on deno-elysia, load `debug`, which lists every variable
  # (Object.keys(process.env)) at import for its DEBUG_* settings: no list of names can allow
  # that, only the whole environment.
  [[ $app != deno-express && $app != deno-elysia ]] || env=--allow-env
  # BENCH_LISTEN: the address the harness names for a run across two hosts (--server-host).
  local net="${BENCH_LISTEN:-127.0.0.1}:$port"
  # BENCH_TLS_CERT and BENCH_TLS_KEY: the run's certificate; the app serves HTTPS on port + 1000.
  local reads=()
  if [[ -n "${BENCH_TLS_CERT:-}" ]]; then
    net+=",${BENCH_LISTEN:-127.0.0.1}:$((port + 1000))"
    reads+=("$BENCH_TLS_CERT" "${BENCH_TLS_KEY:-}")
  fi
  # BENCH_PG (postgres://bench@127.0.0.1:PORT/app_N): the database server's address too, and the
  # variables postgres.js reads for what the URL leaves out (PG + each option's name).
  if [[ -n "${BENCH_PG:-}" ]]; then
    local server=${BENCH_PG#*@}
    net+=",${server%%/*}"
    [[ $env == --allow-env ]] || env+=",$PG_VARIABLES"
  fi
  local own=(--no-prompt "--allow-net=$net" "$env")
  # BENCH_DB: the app's own SQLite file, with the journal files SQLite keeps beside it.
  if [[ -n "${BENCH_DB:-}" ]]; then
    local files="$BENCH_DB,$BENCH_DB-wal,$BENCH_DB-shm,$BENCH_DB-journal"
    reads+=("$files")
    own+=("--allow-write=$files")
  fi
  if ((${#reads[@]} > 0)); then
    own+=("--allow-read=$(
      IFS=,
      echo "${reads[*]}"
    )")
  fi
  if [[ "${BENCH_WORKERS:-1}" != 1 ]]; then
    own+=(--unstable-net)
    BENCH_DENO_FLAGS=$(printf '%s\n' "${own[@]}")
    export BENCH_DENO_FLAGS
    # node:child_process (the primary's IPC channel to its workers) reads NODE_V8_COVERAGE.
    own+=("--allow-run=$(realpath "$bin")")
    [[ $env == --allow-env ]] || own+=(--allow-env=NODE_V8_COVERAGE)
  fi
  flags+=("${own[@]}")
}

# BENCH_PROFILE=/dir/name.cpuprofile (./benchmark.sh --profile): the runtime's own CPU profiler,
# written at exit in the DevTools format; profile-exit.mjs makes SIGTERM an exit that writes it.
flags=()
[[ $runtime != deno ]] || flags=(run)
if [[ -n "${BENCH_PROFILE:-}" ]]; then
  flags+=(--cpu-prof --cpu-prof-interval=1000 "--cpu-prof-dir=$(dirname "$BENCH_PROFILE")"
    "--cpu-prof-name=$(basename "$BENCH_PROFILE")" "$preload" "$root/scripts/profile-exit.mjs")
fi

# The app's own package.json pins the runtime package: "node": "24.21.0", "bun": "1.4.5" or
# "deno": "2.9.6". Deno's package installs its binary as node_modules/deno/deno (its .bin entry
# is a Node wrapper that starts slower, as Deno's docs warn).
bin="$PWD/node_modules/.bin/$runtime"
[[ $runtime != deno ]] || bin="$PWD/node_modules/deno/deno"
if [[ -n "$override" ]]; then
  bin=$override
else
  pinned=$(sed -n "s/^ *\"$runtime\": *\"\([0-9][^\"]*\)\".*/\1/p" package.json | head -n 1)
  [[ -n "$pinned" ]] || die "package.json pins no \"$runtime\" version"
  [[ -x "$bin" ]] ||
    die "$runtime $pinned (pinned) is not installed yet: run 'bun install' in $root, then 'bun run start' again"
  have=$("$bin" --version 2>/dev/null) || have="none"
  have=${have#v}
  have=${have#deno } # "deno 2.9.6 (stable, release, ...)" and two more lines
  have=${have%% *}
  [[ "$have" == "$pinned" ]] ||
    die "node_modules has $runtime $have but the lockfile pins $pinned: run 'bun install' in $root"
fi
[[ $runtime != deno ]] || deno_flags
# BENCH_EXEC_STAMP (the harness): the wall-clock time of the exec below, so start-up time counts
# from the runtime's start on every row, without this wrapper and its version check (which the
# --node/--bun/--deno rows skip). $EPOCHREALTIME is a builtin: no process, no delay of its own.
[[ -z "${BENCH_EXEC_STAMP:-}" ]] || printf '%s\n' "${EPOCHREALTIME:-}" >"$BENCH_EXEC_STAMP"
exec "$bin" "${flags[@]}" "$entry"
