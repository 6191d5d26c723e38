#!/usr/bin/env bash
# ws-load's ceiling on a 2-core machine (README.md, "Ceiling"): bench/echo-server.ts alone on
# core 0, ws-load alone on core 1 with one thread, echo with 50 connections for 5 s at 32 B and
# 4096 B, 3 times each; a line per run with messages/s and both processes' CPU (from /proc).
# The server at ~100% while ws-load has room left means the server is what is measured.
#
#   bash tools/ws-load/bench/ceiling.sh [PORT]        (default port 9100; one load at a time)
# Environment: WS_LOAD (the binary; default tools/ws-load/target/release/ws-load),
# SECONDS_PER_RUN (default 5), REPEAT (default 3), SIZES (default "32 4096"), MODE (echo or
# broadcast: CONNECTIONS subscribers with -p IN_FLIGHT), CONNECTIONS (default 50; a default
# run's scenarios have 100), IN_FLIGHT (broadcast's messages in flight, default 1; the
# ws-broadcast scenario's is 4), SERVER (the server's command, given
# the port as its last argument; default: bun tools/ws-load/bench/echo-server.ts).

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."

port=${1:-9100}
bin=${WS_LOAD:-tools/ws-load/target/release/ws-load}
seconds=${SECONDS_PER_RUN:-5}
repeat=${REPEAT:-3}
sizes=${SIZES:-32 4096}
mode=${MODE:-echo}
in_flight=()
[[ $mode == broadcast ]] && in_flight=(-p "${IN_FLIGHT:-1}")
read -r -a server_cmd <<<"${SERVER:-bun tools/ws-load/bench/echo-server.ts}"
ticks=$(getconf CLK_TCK)

[[ -x $bin ]] || {
  echo "no $bin: cargo build --release --locked --manifest-path tools/ws-load/Cargo.toml" >&2
  exit 1
}
command -v "${server_cmd[0]}" >/dev/null || {
  echo "no ${server_cmd[0]} on PATH (Bun: export PATH=\$PWD/.cache/bun/node_modules/.bin:\$PATH)" >&2
  exit 1
}

work=$(mktemp -d)
# shellcheck source=tools/ws-load/bench/server.sh
source tools/ws-load/bench/server.sh
start_server "$port" "${server_cmd[@]}"

# busy and steal ticks of one core (the hypervisor's share: a run with much of it is not
# comparable with the others).
core_ticks() {
  awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8, $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

field() { grep -o "\"$1\":[0-9.]*" "$2" | head -1 | cut -d: -f2; }

printf '%-9s %6s %3s %12s %9s %11s %11s %9s %9s\n' mode bytes run messages/s p50_us ws-load_cpu server_cpu steal0/1 mismatch
for size in $sizes; do
  for run in $(seq "$repeat"); do
    s0=$(cpu_ticks "$server")
    read -r _ steal0_a all0_a < <(core_ticks 0)
    read -r _ steal1_a all1_a < <(core_ticks 1)
    t0=$(date +%s%N)
    /usr/bin/time -f '%e %U %S' -o "$work/time" taskset -c 1 "$bin" "$mode" \
      --url "ws://127.0.0.1:$port/ws/$mode" -c "${CONNECTIONS:-50}" -d "$seconds" --size "$size" -t 1 "${in_flight[@]}" \
      >"$work/out.json" 2>"$work/err" || {
      cat "$work/err" >&2
      exit 1
    }
    t1=$(date +%s%N)
    s1=$(cpu_ticks "$server")
    read -r _ steal0_b all0_b < <(core_ticks 0)
    read -r _ steal1_b all1_b < <(core_ticks 1)
    steal=$(awk -v a="$((steal0_b - steal0_a))" -v b="$((all0_b - all0_a))" \
      -v c="$((steal1_b - steal1_a))" -v d="$((all1_b - all1_a))" \
      'BEGIN { printf "%.0f/%.0f%%", 100 * a / (b > 0 ? b : 1), 100 * c / (d > 0 ? d : 1) }')
    read -r elapsed user sys <"$work/time"
    load_cpu=$(awk -v e="$elapsed" -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f%%", 100 * (u + s) / e }')
    server_cpu=$(awk -v d="$((s1 - s0))" -v t="$ticks" -v ns="$((t1 - t0))" \
      'BEGIN { printf "%.1f%%", 100 * d / t / (ns / 1e9) }')
    printf '%-9s %6s %3s %12s %9s %11s %11s %9s %9s\n' "$mode" "$size" "$run" \
      "$(field messages_per_s "$work/out.json")" "$(field p50 "$work/out.json")" \
      "$load_cpu" "$server_cpu" "$steal" "$(field mismatched "$work/out.json")"
    cp "$work/out.json" "$work/last.json"
  done
done
echo "last result: $(cat "$work/last.json")"
