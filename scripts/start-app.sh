#!/usr/bin/env bash
# `bun run start` in apps/<name> runs this: it starts the app on the runtime the lockfile pins,
# or stops at once with one line saying what to run. Without it, a fresh clone (no
# node_modules yet) ran a node-* app on whatever Node the machine has, which died with a stack
# trace, or a bun-* app on whatever Bun started it.
#
#   scripts/start-app.sh node|bun ENTRY
#
# BENCH_NODE / BENCH_BUN point at another build on purpose (the verifier still checks which
# runtime answers). exec: the runtime replaces this shell, so nothing is left between the
# harness and the server.

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
  *) die "start-app.sh: unknown runtime '$runtime' (node or bun)" ;;
esac

# BENCH_PROFILE=/dir/name.cpuprofile (./benchmark.sh --profile): the runtime's own CPU profiler,
# written at exit in the DevTools format; profile-exit.mjs makes SIGTERM an exit that writes it.
flags=()
if [[ -n "${BENCH_PROFILE:-}" ]]; then
  flags=(--cpu-prof --cpu-prof-interval=1000 "--cpu-prof-dir=$(dirname "$BENCH_PROFILE")"
    "--cpu-prof-name=$(basename "$BENCH_PROFILE")" "$preload" "$root/scripts/profile-exit.mjs")
fi
[[ -z "$override" ]] || exec "$override" "${flags[@]}" "$entry"

# The app's own package.json pins the runtime package: "node": "24.21.0" or "bun": "1.4.5".
pinned=$(sed -n "s/^ *\"$runtime\": *\"\([0-9][^\"]*\)\".*/\1/p" package.json | head -n 1)
[[ -n "$pinned" ]] || die "package.json pins no \"$runtime\" version"
bin="$PWD/node_modules/.bin/$runtime"
[[ -x "$bin" ]] ||
  die "$runtime $pinned (pinned) is not installed yet: run 'bun install' in $root, then 'bun run start' again"
have=$("$bin" --version 2>/dev/null) || have="none"
have=${have#v}
[[ "$have" == "$pinned" ]] ||
  die "node_modules has $runtime $have but the lockfile pins $pinned: run 'bun install' in $root"
exec "$bin" "${flags[@]}" "$entry"
