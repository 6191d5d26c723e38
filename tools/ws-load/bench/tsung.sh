#!/usr/bin/env bash
# tsung (Debian's, 1.7.0) on the echo ws-load's ceiling is measured on (README.md, "Why not
# tsung"): bench/echo-server.ts alone on core 0, tsung alone on core 1, 50 WebSocket
# connections each sending a SIZE-byte text message and waiting for its echo before the next
# (ws-load echo -c 50's closed loop). tsung's Erlang VM starts and stops around its load, so each
# run is made twice, SHORT and LONG seconds of load: the differences (messages, CPU) are the
# load's alone, without the start and the stop. A line per pair with echoes/s and both
# processes' CPU per echo and share of a core.
#
#   bash tools/ws-load/bench/tsung.sh [PORT]     (default port 9100; one load at a time)
# Environment: SHORT (default 4), LONG (default 14), REPEAT (default 2), SIZES (default "32").

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."

port=${1:-9100}
short=${SHORT:-4}
long=${LONG:-14}
repeat=${REPEAT:-2}
sizes=${SIZES:-32}
ticks=$(getconf CLK_TCK)

command -v tsung >/dev/null || {
  echo "no tsung: apt-get install tsung" >&2
  exit 1
}
command -v bun >/dev/null || {
  echo "no bun on PATH (export PATH=\$PWD/.cache/bun/node_modules/.bin:\$PATH)" >&2
  exit 1
}

work=$(mktemp -d)
# shellcheck source=tools/ws-load/bench/server.sh
source tools/ws-load/bench/server.sh
start_server "$port" bun tools/ws-load/bench/echo-server.ts

# tsung's configuration: 50 users start 10 ms apart (static users: an arrival phase of 50 a
# second launched 2 in a first try), each opens /ws/echo and sends its message 10 million times
# (a message waits for the server's frame before the next: tsung's default ack), until the
# load's duration ends the run.
config() { # seconds, size
  local message users=""
  message=$(head -c "$2" /dev/zero | tr '\0' x)
  for i in $(seq 50); do
    users+="<user session=\"echo\" start_time=\"$((10 * i))\" unit=\"millisecond\"/>"
  done
  cat <<EOF
<?xml version="1.0"?>
<!DOCTYPE tsung SYSTEM "/usr/share/tsung/tsung-1.0.dtd" []>
<tsung loglevel="warning" version="1.0">
  <clients><client host="localhost" use_controller_vm="true" maxusers="1000"/></clients>
  <servers><server host="127.0.0.1" port="$port" type="tcp"/></servers>
  <load duration="$1" unit="second">$users</load>
  <sessions>
    <session name="echo" probability="100" type="ts_websocket">
      <request><websocket type="connect" path="/ws/echo"></websocket></request>
      <for from="1" to="10000000" var="i">
        <request><websocket type="message">$message</websocket></request>
      </for>
    </session>
  </sessions>
</tsung>
EOF
}

# One tsung run of $1 seconds at $2 bytes: "messages tsung_ticks server_ticks" (the messages are
# the requests of tsung.log's dumps, each the count since the one before).
run() {
  config "$1" "$2" >"$work/tsung.xml"
  rm -rf "$work/log"
  local s0 s1
  s0=$(cpu_ticks "$server")
  /usr/bin/time -f '%U %S' -o "$work/time" taskset -c 1 tsung -n -f "$work/tsung.xml" \
    -l "$work/log" start >"$work/tsung.out" 2>&1 || {
    cat "$work/tsung.out" >&2
    exit 1
  }
  s1=$(cpu_ticks "$server")
  local messages
  messages=$(awk '$1 == "stats:" && $2 == "request" { n += $3 } END { print n + 0 }' \
    "$work"/log/*/tsung.log)
  read -r user sys <"$work/time"
  echo "$messages $(awk -v u="$user" -v s="$sys" -v t="$ticks" 'BEGIN { printf "%.0f", (u + s) * t }') $((s1 - s0))"
}

printf '%6s %3s %12s %16s %15s %11s %11s\n' bytes run echoes/s tsung_us/echo server_us/echo tsung_cpu server_cpu
for size in $sizes; do
  for pair in $(seq "$repeat"); do
    read -r m_short t_short s_short < <(run "$short" "$size")
    read -r m_long t_long s_long < <(run "$long" "$size")
    awk -v m="$((m_long - m_short))" -v t="$((t_long - t_short))" -v s="$((s_long - s_short))" \
      -v hz="$ticks" -v d="$((long - short))" -v size="$size" -v pair="$pair" 'BEGIN {
        if (m <= 0) { print "no messages counted between the runs" > "/dev/stderr"; exit 1 }
        printf "%6s %3s %12.0f %16.1f %15.1f %10.0f%% %10.0f%%\n", size, pair, m / d,
          1e6 * t / hz / m, 1e6 * s / hz / m, 100 * t / hz / d, 100 * s / hz / d
      }'
  done
done
