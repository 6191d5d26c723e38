# shellcheck shell=bash
# Sourced by ceiling.sh and tsung.sh: the server under load, alone on core 0, and the CPU time
# of a process.

# start_server PORT COMMAND...: runs `COMMAND... PORT` on core 0 (its stderr in $work/server.log;
# $work must exist), sets $server to its pid, stops it and removes $work when the script exits,
# and waits until it says it is listening (at most 5 s; else its log, and exit 1).
# shellcheck disable=SC2154 # $work is the caller's
start_server() {
  local port=$1
  shift
  taskset -c 0 "$@" "$port" 2>"$work/server.log" &
  server=$!
  trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
  for _ in $(seq 50); do
    grep -q listening "$work/server.log" 2>/dev/null && return 0
    sleep 0.1
  done
  cat "$work/server.log" >&2
  exit 1
}

# utime + stime of a process, in clock ticks (the fields after the command's closing paren).
cpu_ticks() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  # shellcheck disable=SC2086 # split into fields on purpose
  set -- $stat
  echo $((${12} + ${13}))
}
