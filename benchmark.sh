#!/usr/bin/env bash
# benchmark.sh: Bun vs Node vs Deno, Hono vs Elysia, measured so the numbers can be trusted.
#
# For every app: refuse a taken port, start it, check it against the contract (an app that
# fails is reported and not measured), warm it up unrecorded, measure it, stop it and make
# sure nothing of it is left running. Trials are interleaved across apps, the server and the
# load generator are pinned to separate CPUs, and every trial records both processes' CPU so a
# result limited by the load generator is flagged as the lower bound it is.
#
# This script owns the command line and the environment (flags, Bun and dependencies, which
# load generator); packages/harness/src/run/run.ts does the measuring and writes
# results/<timestamp>/results.json as trials finish, then prints the summary.

set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly ROOT
readonly DEFAULT_ROUNDS=20 DEFAULT_SAMPLES=3 DEFAULT_DURATION=1 DEFAULT_WARMUP=2 DEFAULT_CONNECTIONS=100
# --side-by-side: pairs of processes, each sample both apps at once, each generator its own
# connections (two × 50: the default's 100 in all). Between pairs of processes the ratio moves
# more than between samples of one pair (node-bare/bun-bare: 3.9% and 5.2% a 1 s sample), so
# many short pairs: 20 of 2 samples. 8 s of warm-up: sharing the core, Node's CPU per request
# was still 14-17% above its level from 8 s on in its third second, and up to 11-13% in its
# fifth to seventh (docs/side-by-side.md, "Warm-up"); about four minutes a comparison.
readonly SIDE_ROUNDS=20 SIDE_SAMPLES=2 SIDE_WARMUP=8 SIDE_CONNECTIONS=50

usage() {
  cat <<'USAGE'
Usage: ./benchmark.sh [options] [app ...]

Benchmarks the apps (default: all fifteen) on one or more scenarios and writes
results/<UTC timestamp>/results.json and summary.txt; prints the summary at the end.

A run is rounds: in each, every app is started afresh (one process), verified, warmed up,
then measured in a few short back-to-back samples; the apps take turns, in an order reversed
every round. Means and 95% confidence intervals are over the processes; every rank, tie and
comparison comes from one set of tests (a paired t-test on per-round log ratios where
two apps share 20 rounds or more, Welch's on process means below that; Holm over each
table), and a tie states the smallest difference the run could have detected.

Options:
  -a, --apps LIST        comma-separated app names, or "all" (default: all); app names
                         may also be given as arguments
  -s, --scenario LIST    comma-separated scenarios, or "all" (default: api);
                         --scenarios is the same flag. A middleware scenario (auth, cors,
                         gzip, etag, ratelimit, stack) brings api along when it is not
                         listed: the production tax is each stage against api
  -d, --duration SEC     measured seconds per sample (default: 1)
  -w, --warmup SEC       unrecorded warm-up of each process, per scenario, 0 for none
                         (default: 2)
  -c, --connections N    concurrent connections, kept open (keep-alive) (default: 100);
                         a list (1,10,50,100,400,1000) measures one trial per count: the
                         throughput curve (req/s and p99 against concurrency, each app's peak).
                         Beyond `ulimit -n` the soft limit is raised to what the count needs,
                         up to the hard limit
  -n, --rounds N         rounds: each app is started afresh once per round, apps
                         interleaved (default: 20); --trials is the same flag
      --samples K        back-to-back samples per process and scenario (default: 3)
      --precision PCT    add rounds (at least 3; side by side, 20) until every app's
                         mean and every comparison the summary makes has a 95% CI within
                         +-PCT percent, or until the next round would not fit in
                         --max-time
      --max-time DURATION
                         with --precision: the time the rounds may take, like 90s, 10m
                         or 1h (default: 10m)
      --calibrate        the statistics' known answer: bun-bare against itself (A/A) and
                         against itself with 2%, 5% and 10% more CPU per request (side
                         by side: 1%, 2% and 5%; BENCH_EXTRA_WORK, sized first); reports
                         the verdicts and how often subsamples of a default run's length
                         call each different.
                         Takes no apps; 40 rounds unless -n says otherwise
  -t, --tool NAME        load generator: wrk, oha or autocannon (default: the first
                         installed, in that order: wrk is the least likely to be the
                         bottleneck; autocannon is a project dependency, so there is
                         always one)
  -o, --output DIR       results directory (default: results/<UTC timestamp>)
      --no-pin           do not pin the server and the load generator to separate CPUs
  -q, --quick            smoke-run preset: 3 rounds of 2 x 1 s samples after 1 s warm-up,
                         50 connections (other flags still override it)
      --rates LIST       after each trial, one open-loop trial per rate at a constant
                         offered rate, latency counted from when each request was due (oha -q
                         --latency-correction; wrk and autocannon cannot, so this needs oha):
                         req/s ("5000") or shares of the app's closed-loop req/s in that same
                         trial ("50%"), comma-separated, e.g. 25%,50%,75%,90%.
                         "search": in the last round, find the capacity at the p99 budget
                         (bracket from the closed-loop req/s, bisect to 5%, three trials at
                         each end; a miss is checked against oha's own p99 at that rate
                         against a do-nothing server): the interval and every level tried
      --slo-p99 MS       the p99 budget for "capacity at a latency budget": the highest
                         offered rate whose p99 stayed within it (default: 10); requests
                         due but never sent count as over it
      --startup N        N more fresh starts per app, without load, for the start-up figures
                         (spawn to first correct answer, memory when ready and after 1 s
                         idle; every start of the run is measured anyway) (default: 0)
      --profile          after the measured rounds, one extra trial per app and scenario
                         with the runtime's CPU profiler on (node/bun/deno --cpu-prof); writes
                         profiles/<app>-<scenario>.cpuprofile (Chrome DevTools, speedscope)
                         and lists each profile's hottest functions in the reports.
                         Profiled trials never count in the results
      --workers N        serve each app's port from N processes (node:cluster; on Bun
                         and Deno every worker listens with reusePort), or "auto": one per CPU
                         but one, which the load generator keeps (default: 1). A list
                         (1,2,4) measures each app at each count, interleaved, and adds
                         a scaling table. The server gets the first N CPUs and the load
                         generator the CPUs above the largest N; with none left over,
                         nothing is pinned and the report says so. At most 4 per CPU.
                         Not with --profile
      --node LIST        run each Node app on each of these Node versions, interleaved in
      --bun LIST         the same rounds (--node 22,24,26 --bun 1.3,1.4 --deno 2.9): a
      --deno LIST        major or major.minor means its newest release, an exact version
                         is taken as given. Each version is installed once into
                         .cache/runtimes from the npm registry (node, bun and deno
                         packages) and checked with --version; every row is named
                         app@version and the reports add a version comparison. Without
                         them, the versions the lockfile pins
      --side-by-side     measure two apps at the same moment: both servers on the server's
                         CPU, each loaded by its own load generator on the generator's CPU,
                         started together; the figure is each server's CPU time per request
                         (schedstat of all its threads / the requests answered), relative to
                         a reference. Noise that moves both cancels in the ratio: on this
                         VM, in about four minutes, +-0.4% for an app against itself,
                         +-2% for two Node frameworks, +-3-6% for Bun against Node
                         (whom the machine's noise moves unalike). Pairs of fresh
                         processes, their positions (address, start order) alternated.
                         Several apps: each against --reference; one app: against itself
                         (A/A); with --node/--bun/--deno, each app's versions against its
                         first (every app needs two or more). Defaults: 20 rounds (pairs) of
                         2 x 1 s samples after 8 s of warm-up, 50 connections per app. Needs
                         taskset and 2 cores; not with --no-pin, --workers, --rates,
                         --profile, a list of --connections or --server-host
      --reference APP    with --side-by-side: the app every other is measured against
                         (default: the first named)
      --against GIT_REF  the named apps at another commit (a git worktree of it in
                         .cache/against, its locked dependencies installed there) side by
                         side with this checkout's: slower / faster / no change beyond
                         --threshold (default 2, a change in CPU per request) /
                         inconclusive per app and scenario; exit 1 if an app is slower.
                         Implies --side-by-side; not with --apps-root
      --db ENGINE        the database scenarios' engine: sqlite (default: each app process
                         its own seeded file, the runtime's own driver) or postgres: a
                         throwaway server from this machine's PostgreSQL (initdb into a
                         temporary folder, 127.0.0.1, pinned to the server's CPU), a seeded
                         copy per app start (its workers share it), Bun.sql on Bun and
                         postgres.js on Node and Deno, 8 connections per process; stopped
                         and removed however the run ends. Needs a database scenario
                         (-s db,queries,fortunes,updates); one --workers count; not with
                         --side-by-side, --against or --server-host
      --export bmf FILE  write the run's figures in Bencher Metric Format (throughput,
                         latency, cpu-per-request, cost-ratio; the 95% interval where the
                         run has one) for a continuous-benchmarking service (bencher run
                         --adapter json); after a finished run, or with --report
      --apps-root DIR    take apps from DIR/apps/<name> instead of this checkout
                         (for testing the harness with stand-in apps)
      --server-host [USER@]HOST[:PORT]
                         run the apps on that machine, reached over SSH (key login, no
                         password prompt), and the load generator here. The project must
                         be checked out there at this checkout's commit (--server-dir);
                         Bun and the dependencies are installed there as here. The apps
                         listen on the address SSH reached (127.0.0.1 otherwise), so the
                         firewall there must let this machine reach ports 3000-3014. CPU,
                         memory, steal, pinning and start-up are measured there, over one
                         SSH connection; the manifest records both machines and the round
                         trip between them. Not with --calibrate, --rates search,
                         --node/--bun/--deno, --apps-root or --workers auto
      --server-dir DIR   the checkout on the server host (default: this checkout's path)
      --ssh-config FILE  ssh's -F: the config file to use (keys, known hosts, jump hosts)
  -h, --help             this text

Reports (every run writes report.md and report.html next to its results.json):
      --report FILE      regenerate summary.txt, report.md and report.html from a
                         results.json (or the run folder holding it): a later analysis of an
                         earlier run
      --compare BASE NEW compare two results.json files: req/s and p99 per app and
                         scenario, and the smallest change each pair could have detected;
                         exit 1 if any app is slower by more than the threshold and
                         significantly so (one-sided Welch's t-test on process means,
                         Holm over the pairs, family-wise 5%), or failed, went unmeasured
                         or is missing in the new run; "no change" only where an
                         equivalence test (TOST) shows it; exit 2 if the runs differ in
                         tool, connections, server processes, samples per process,
                         duration, warm-up, keep-alive, pinning or machine
      --threshold PCT    regression threshold for --compare, in percent (default: 5), or
                         for --against (default: 2)
      --allow-mismatch   with --compare: compare runs whose setups differ anyway; the
                         output's first line lists the differences
      --update-readme FILE
                         replace README.md's results section with this run's report and
                         Mermaid charts

Exit status: 0 every app measured and every sample valid; 1 an app failed (start, contract,
crash) or a sample was invalid (or --compare found a regression or a failed, unmeasured or
missing app, or --against an app slower than at the commit, or --export could not write);
2 bad flags, an app or scenario given twice, a missing tool, a runtime version that cannot
be had, an unusable --output, -c beyond the open-file limit or the local ports
(all before anything is measured), a --server-host that cannot be reached or lacks the
project at this commit, an --against commit that cannot be checked out or installed,
--side-by-side without pinning, BENCH_EXTRA_WORK set outside --calibrate, or an unreadable
results.json; 130 interrupted (Ctrl-C), with the finished samples kept. A connection to the
--server-host lost mid-run: 1, with the finished samples kept.
USAGE
  contract_lists
}

# The app and scenario lists come from the contract, never retyped here; they need Bun and
# the dependencies, which the first real run installs.
contract_lists() {
  local bun=${BENCH_BUN:-}
  [[ -n "$bun" ]] || bun=$(command -v bun 2>/dev/null) || bun="$ROOT/.cache/bun/node_modules/.bin/bun"
  if [[ -x "$bun" && -d "$ROOT/node_modules" ]]; then
    printf '\nApps:\n'
    "$bun" "$ROOT/packages/contract/src/cli.ts" registry-help | sed 's/^/  /'
    printf '\nScenarios:\n'
    "$bun" "$ROOT/packages/contract/src/cli.ts" scenario-help | sed 's/^/  /'
  else
    printf '\n(App and scenario lists: run once so that Bun and the dependencies are installed.)\n'
  fi
}

# One line with the cause, one pointing at the flags: the full usage would scroll the cause away.
die_usage() {
  printf 'benchmark.sh: %s\n' "$1" >&2
  printf "Run './benchmark.sh --help' for the flags.\n" >&2
  exit 2
}

die_env() {
  printf 'benchmark.sh: %s\n' "$1" >&2
  exit 2
}

# Paths given on the command line are relative to where the user is, not to this script.
abspath() {
  if [[ "$1" == /* ]]; then printf '%s\n' "$1"; else printf '%s/%s\n' "$PWD" "$1"; fi
}

# Requires a value after a flag: `--duration` at the end of the line is a usage error.
need_value() {
  [[ $# -ge 2 && -n "$2" ]] || die_usage "$1 needs a value"
}

check_int() {
  local flag=$1 value=$2 min=$3
  if ! [[ "$value" =~ ^[0-9]{1,9}$ ]] || ((10#$value < min)); then
    die_usage "$flag must be a whole number >= $min, got '$value'"
  fi
}

find_oha() {
  command -v oha 2>/dev/null && return 0
  [[ -x "$HOME/.cargo/bin/oha" ]] && printf '%s\n' "$HOME/.cargo/bin/oha" && return 0
  return 1
}

find_wrk() {
  command -v wrk 2>/dev/null
}

install_hint() {
  case $1 in
    oha) printf 'install it with: cargo install --locked oha   (or: brew install oha)' ;;
    wrk) printf 'install it with: apt-get install wrk   (or: brew install wrk)' ;;
    autocannon) printf "it is a project dependency: run 'bun install' in %s" "$ROOT" ;;
  esac
}

# Prints the chosen tool's name and path; exit 2 if an explicitly chosen tool is missing.
# The default is the tool least likely to be the bottleneck: on two cores wrk reached ~110k
# req/s at 75-87% of its core where oha saturated at ~60k (design.md), then oha, then the
# embedded autocannon, which saturates first.
choose_tool() {
  local wanted=$1 path
  if [[ -z "$wanted" || "$wanted" == wrk ]]; then
    if path=$(find_wrk); then
      printf 'wrk %s\n' "$path"
      return 0
    fi
    [[ -z "$wanted" ]] || die_env "wrk is not installed; $(install_hint wrk)"
  fi
  if [[ -z "$wanted" || "$wanted" == oha ]]; then
    if path=$(find_oha); then
      # oha's JSON output replaced its old -j flag; an oha without it cannot be parsed.
      if "$path" --help 2>/dev/null | grep -q -- '--output-format'; then
        printf 'oha %s\n' "$path"
        return 0
      fi
      [[ -z "$wanted" ]] || die_env "oha at $path is too old (no --output-format json); $(install_hint oha)"
      printf 'benchmark.sh: oha at %s is too old (no --output-format json); using autocannon\n' "$path" >&2
    elif [[ -n "$wanted" ]]; then
      die_env "oha is not installed; $(install_hint oha)"
    fi
  fi
  path="$ROOT/packages/harness/node_modules/autocannon/autocannon.js"
  [[ -f "$path" ]] || die_env "autocannon is missing; $(install_hint autocannon)"
  printf 'autocannon %s\n' "$path"
}

# Checks each comma-separated name against the contract's list; "all" means the whole list.
resolve_names() {
  local kind=$1 given=$2 known=$3 name out=()
  if [[ "$given" == all ]]; then
    paste -sd, <<<"$known"
    return 0
  fi
  IFS=, read -r -a names <<<"$given"
  for name in "${names[@]}"; do
    [[ -n "$name" ]] || continue
    grep -qxF -- "$name" <<<"$known" ||
      die_usage "unknown $kind '$name' (known: $(paste -sd' ' <<<"$known"), all)"
    # Twice would be measured twice: two rows, or back-to-back samples counted as processes.
    [[ " ${out[*]} " != *" $name "* ]] || die_usage "$kind '$name' is given twice"
    out+=("$name")
  done
  [[ ${#out[@]} -gt 0 ]] || die_usage "no $kind given"
  (IFS=,; printf '%s\n' "${out[*]}")
}

# --node/--bun/--deno: versions like 22, 22.18 or 22.18.0, comma-separated, none twice. Whether
# they exist (and are new enough for the apps) the harness asks the npm registry.
check_versions() {
  local flag=$1 list=$2
  [[ -n "$list" ]] || return 0
  [[ "$list" =~ ^[0-9]+(\.[0-9]+){0,2}(,[0-9]+(\.[0-9]+){0,2})*$ ]] ||
    die_usage "$flag takes versions like 22, 22.18 or 22.18.0, comma-separated, got '$list'"
  [[ -z "$(tr , '\n' <<<"$list" | sort | uniq -d)" ]] ||
    die_usage "$flag lists a version twice, got '$list'"
}

# --output: a folder that exists or can be made, and can be written, checked before anything
# runs (a file there, or /proc/x, gave a stack trace after the bootstrap).
check_output() {
  local dir=$1
  [[ ! -e "$dir" || -d "$dir" ]] || die_env "--output $dir is a file, not a folder; choose another --output"
  mkdir -p -- "$dir" 2>/dev/null || die_env "cannot create the --output folder $dir; choose another --output"
  [[ -w "$dir" ]] || die_env "cannot write to the --output folder $dir; choose another --output"
}

# --server-host and its companions, before anything starts: the form of the address, ssh
# installed, the config file there. Whether the host answers and has the project at this
# commit, and the flags a remote run does not take, the harness checks (one line if not).
check_server() {
  local host=$1 dir=$2 config=$3 workers=$4
  if [[ -z "$host" ]]; then
    [[ -z "$dir" ]] || die_usage "--server-dir goes with --server-host"
    [[ -z "$config" ]] || die_usage "--ssh-config goes with --server-host"
    return 0
  fi
  [[ "$host" =~ ^([A-Za-z0-9._][A-Za-z0-9._-]*@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$ ]] ||
    die_usage "--server-host takes [user@]host[:port], got '$host'"
  [[ -z "$dir" || "$dir" == /* ]] || die_usage "--server-dir takes an absolute path, got '$dir'"
  [[ -z "$config" || -f "$config" ]] || die_usage "--ssh-config $config does not exist"
  [[ "$workers" != auto ]] || die_usage "--workers auto counts this machine's CPUs: give --server-host a number of workers"
  command -v ssh >/dev/null || die_env "--server-host needs ssh: install it (apt-get install openssh-client, or your system's OpenSSH)"
}

# --side-by-side runs one process per app, at one connection count, in closed loop, on this
# machine, pinned; --against needs git and names a commit (the harness resolves it) of this
# repository's apps.
check_side() {
  local workers=$1 rates=$2 profile=$3 connections=$4 server_host=$5 against=$6 pin=$7 apps_root=$8
  [[ $pin -eq 1 ]] || die_usage "--side-by-side does not go with --no-pin"
  [[ "$workers" == 1 ]] || die_usage "--side-by-side does not go with --workers other than 1"
  [[ -z "$rates" ]] || die_usage "--side-by-side does not go with --rates"
  [[ $profile -eq 0 ]] || die_usage "--side-by-side does not go with --profile"
  [[ "$connections" != *,* ]] || die_usage "--side-by-side does not go with a list of --connections"
  [[ -z "$server_host" ]] || die_usage "--side-by-side does not go with --server-host"
  if [[ -n "$against" ]]; then
    [[ "$against" != -* ]] || die_usage "--against takes a git commit, branch or tag, got '$against'"
    [[ -z "$apps_root" ]] || die_usage "--against checks out this repository's apps at the commit: not with --apps-root"
    command -v git >/dev/null || die_env "--against needs git: install it (apt-get install git)"
  fi
}

# Sanity bounds, before anything starts. Workers: more than 4 per CPU only measure the
# scheduler (--workers 999 forked 186 Bun processes, about 4 GB, before failing).
# Connections: each needs a descriptor in the load generator and one in the server, and a local
# port; past `ulimit -n` every connection failed and the run said only "100% socket errors".
check_bounds() {
  local workers=$1 connections=$2 cores most limit hard needed ports
  cores=$(nproc 2>/dev/null || echo 1)
  most=$(tr , '\n' <<<"$workers" | sort -n | tail -n 1)
  if [[ "$most" != auto ]] && ((10#$most > 4 * cores)); then
    die_usage "--workers $most is more than 4 per CPU ($((4 * cores)) on this machine's $cores): they would only measure the scheduler"
  fi
  most=$(tr , '\n' <<<"$connections" | sort -n | tail -n 1)
  needed=$((10#$most + 256))
  limit=$(ulimit -n)
  if [[ "$limit" != unlimited ]] && ((needed > limit)); then
    hard=$(ulimit -H -n)
    # Raise the soft limit as far as the hard one allows; the apps and the generator inherit it.
    if [[ "$hard" == unlimited ]] || ((needed <= hard)); then
      ulimit -n "$needed"
    else
      die_env "-c $most needs about $needed open files per process, but the limit is $limit (hard limit $hard): raise it (ulimit -n $needed, as root or in /etc/security/limits.conf) or use fewer connections"
    fi
  fi
  if [[ -r /proc/sys/net/ipv4/ip_local_port_range ]]; then
    read -r low high </proc/sys/net/ipv4/ip_local_port_range
    ports=$((high - low + 1))
    ((10#$most <= ports)) ||
      die_env "-c $most is more connections than the $ports local ports one address has (net.ipv4.ip_local_port_range); use fewer connections"
  fi
}

main() {
  local original_args=("$@")
  local apps="" scenario="" duration="" warmup="" connections="" trials="" tool=""
  local output="" pin=1 quick=0 profile=0 startup=0 rates="" slo="" apps_root="" positional=()
  local samples="" precision="" max_time="" calibrate=0
  local workers=1 node_versions="" bun_versions="" deno_versions=""
  local report_cmd=() threshold="" allow_mismatch=0
  local server_host="" server_dir="" ssh_config=""
  local side=0 reference="" against="" export_bmf="" db=""

  while [[ $# -gt 0 ]]; do
    case $1 in
      -h | --help) usage; exit 0 ;;
      -a | --apps) need_value "$@"; apps=${apps:+$apps,}$2; shift 2 ;;
      -s | --scenario | --scenarios) need_value "$@"; scenario=$2; shift 2 ;;
      -d | --duration) need_value "$@"; duration=$2; shift 2 ;;
      -w | --warmup) need_value "$@"; warmup=$2; shift 2 ;;
      -c | --connections) need_value "$@"; connections=$2; shift 2 ;;
      -n | --trials | --rounds) need_value "$@"; trials=$2; shift 2 ;;
      --samples) need_value "$@"; samples=$2; shift 2 ;;
      --precision) need_value "$@"; precision=$2; shift 2 ;;
      --max-time) need_value "$@"; max_time=$2; shift 2 ;;
      --calibrate) calibrate=1; shift ;;
      -t | --tool) need_value "$@"; tool=$2; shift 2 ;;
      -o | --output) need_value "$@"; output=$(abspath "$2"); shift 2 ;;
      --apps-root) need_value "$@"; apps_root=$(abspath "$2"); shift 2 ;;
      --no-pin) pin=0; shift ;;
      --profile) profile=1; shift ;;
      --startup) need_value "$@"; startup=$2; shift 2 ;;
      --rates) need_value "$@"; rates=$2; shift 2 ;;
      --slo-p99) need_value "$@"; slo=$2; shift 2 ;;
      --workers) need_value "$@"; workers=$2; shift 2 ;;
      --node) need_value "$@"; node_versions=$2; shift 2 ;;
      --bun) need_value "$@"; bun_versions=$2; shift 2 ;;
      --deno) need_value "$@"; deno_versions=$2; shift 2 ;;
      --server-host) need_value "$@"; server_host=$2; shift 2 ;;
      --server-dir) need_value "$@"; server_dir=$2; shift 2 ;;
      --ssh-config) need_value "$@"; ssh_config=$(abspath "$2"); shift 2 ;;
      --side-by-side) side=1; shift ;;
      --reference) need_value "$@"; reference=$2; shift 2 ;;
      --db) need_value "$@"; db=$2; shift 2 ;;
      --against) need_value "$@"; against=$2; side=1; shift 2 ;;
      --export)
        [[ $# -ge 3 && -n "$2" && -n "$3" ]] || die_usage "--export needs a format and a file: bmf FILE"
        [[ "$2" == bmf ]] || die_usage "--export knows one format, bmf (Bencher Metric Format), got '$2'"
        export_bmf=$(abspath "$3")
        shift 3
        ;;
      --report) need_value "$@"; report_cmd=(report "$(abspath "$2")"); shift 2 ;;
      --update-readme) need_value "$@"; report_cmd=(readme "$(abspath "$2")"); shift 2 ;;
      --compare)
        [[ $# -ge 3 && -n "$2" && -n "$3" ]] || die_usage "--compare needs two files: BASE NEW"
        report_cmd=(compare "$(abspath "$2")" "$(abspath "$3")")
        shift 3
        ;;
      --threshold) need_value "$@"; threshold=$2; shift 2 ;;
      --allow-mismatch) allow_mismatch=1; shift ;;
      -q | --quick) quick=1; shift ;;
      --) shift; positional+=("$@"); break ;;
      -*) die_usage "unknown option '$1'" ;;
      *) positional+=("$1"); shift ;;
    esac
  done
  if [[ ${#positional[@]} -gt 0 ]]; then
    apps=${apps:+$apps,}$(IFS=,; printf '%s' "${positional[*]}")
  fi

  if [[ -n "$threshold" ]]; then
    [[ "$threshold" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "--threshold must be a percentage, got '$threshold'"
    [[ "${report_cmd[0]:-}" == compare || -n "$against" ]] || die_usage "--threshold goes with --compare or --against"
    if [[ "${report_cmd[0]:-}" == compare ]]; then report_cmd+=(--threshold "$threshold"); fi
  fi
  if [[ $allow_mismatch -eq 1 ]]; then
    [[ "${report_cmd[0]:-}" == compare ]] || die_usage "--allow-mismatch goes with --compare"
    report_cmd+=(--allow-mismatch)
  fi
  if [[ -n "$export_bmf" ]]; then
    [[ "${report_cmd[0]:-report}" == report ]] || die_usage "--export goes with a run or --report, not --${report_cmd[0]/readme/update-readme}"
    [[ -d "$(dirname "$export_bmf")" && -w "$(dirname "$export_bmf")" ]] ||
      die_usage "--export bmf $export_bmf: cannot write in $(dirname "$export_bmf")"
    if [[ ${#report_cmd[@]} -gt 0 ]]; then report_cmd+=(--export-bmf "$export_bmf"); fi
  fi
  if [[ ${#report_cmd[@]} -gt 0 ]]; then
    cd "$ROOT"
    # shellcheck source=scripts/bootstrap.sh
    source scripts/bootstrap.sh
    bootstrap
    exec "$BUN" packages/harness/src/report/cli.ts "${report_cmd[@]}"
  fi

  if [[ $quick -eq 1 ]]; then
    : "${duration:=1}" "${warmup:=1}" "${trials:=3}" "${samples:=2}" "${connections:=50}"
  fi
  if [[ $side -eq 1 ]]; then
    check_side "$workers" "$rates" "$profile" "${connections:-}" "$server_host" "$against" "$pin" "$apps_root"
    : "${samples:=$SIDE_SAMPLES}" "${warmup:=$SIDE_WARMUP}" "${connections:=$SIDE_CONNECTIONS}"
    # Twice the rounds for --calibrate, as without --side-by-side: its subsamples are this long.
    [[ $calibrate -eq 0 ]] || : "${trials:=$((2 * SIDE_ROUNDS))}"
    : "${trials:=$SIDE_ROUNDS}"
  else
    [[ -z "$reference" ]] || die_usage "--reference goes with --side-by-side"
  fi
  if [[ $calibrate -eq 1 ]]; then
    [[ -z "$apps" ]] || die_usage "--calibrate measures bun-bare against itself: give no apps"
    [[ -z "$against$reference" ]] || die_usage "--calibrate measures bun-bare against itself: no --against or --reference"
    [[ -z "$node_versions$bun_versions$deno_versions" ]] || die_usage "--calibrate runs the lockfile's Bun: no --node/--bun/--deno"
    [[ "$workers" == 1 && -z "$rates" && $profile -eq 0 ]] || die_usage "--calibrate goes with neither --workers, --rates nor --profile"
    [[ "${connections:-1}" != *,* ]] || die_usage "--calibrate takes one connection count"
    # Twice the default rounds: the detection rates are over subsamples of the default length.
    apps="bun-bare"
    : "${trials:=$((2 * DEFAULT_ROUNDS))}"
  elif [[ -n "${BENCH_EXTRA_WORK:-}" ]]; then
    die_env "BENCH_EXTRA_WORK is set: it slows bun-bare on purpose and is for --calibrate only; unset it (nothing was measured)"
  fi
  # --precision adds rounds as it needs them, from the fewest that give an interval (3).
  [[ -z "$precision" ]] || : "${trials:=3}"
  # The defaults follow from the noise measured on a 2-core VM (docs/statistics.md, "Precision"): many
  # cheap processes, each a few short samples after a short warm-up.
  : "${apps:=all}" "${duration:=$DEFAULT_DURATION}" "${warmup:=$DEFAULT_WARMUP}"
  : "${connections:=$DEFAULT_CONNECTIONS}" "${trials:=$DEFAULT_ROUNDS}" "${samples:=$DEFAULT_SAMPLES}"
  check_int --duration "$duration" 1
  check_int --warmup "$warmup" 0
  local count counts
  IFS=, read -r -a counts <<<"$connections"
  [[ ${#counts[@]} -gt 0 && "$connections" != *, && "$connections" != ,* ]] ||
    die_usage "--connections must be a count or a comma-separated list of counts, got '$connections'"
  for count in "${counts[@]}"; do check_int --connections "$count" 1; done
  [[ -z "$(printf '%s\n' "${counts[@]}" | sed 's/^0*//' | sort | uniq -d)" ]] ||
    die_usage "--connections lists a count twice, got '$connections'"
  check_int --rounds "$trials" 1
  check_int --samples "$samples" 1
  if [[ -n "$precision" ]] && ! [[ "$precision" =~ ^0*[0-9]?[0-9](\.[0-9]+)?$ && ! "$precision" =~ ^0+(\.0+)?$ ]]; then
    die_usage "--precision must be a percentage above 0 and below 100, like 3 or 2.5, got '$precision'"
  fi
  if [[ -n "$max_time" ]]; then
    [[ -n "$precision" ]] || die_usage "--max-time goes with --precision"
    [[ "$max_time" =~ ^[0-9]+(\.[0-9]+)?[smh]?$ && ! "$max_time" =~ ^0+(\.0+)?[smh]?$ ]] ||
      die_usage "--max-time takes a duration like 90s, 10m or 1h, got '$max_time'"
  fi
  check_int --startup "$startup" 0
  if ! [[ "$workers" =~ ^(auto|[0-9]{1,4}(,[0-9]{1,4})*)$ ]] || [[ ",$workers," =~ ,0+, ]]; then
    die_usage "--workers must be a whole number >= 1, a comma-separated list of them, or auto, got '$workers'"
  fi
  [[ -z "$(tr , '\n' <<<"$workers" | sed 's/^0*//' | sort | uniq -d)" ]] ||
    die_usage "--workers lists a count twice, got '$workers'"
  if [[ "$workers" == *,* && ${#counts[@]} -gt 1 ]]; then
    die_usage "--connections and --workers take a list one at a time, not both"
  fi
  if [[ $profile -eq 1 && "$workers" != 1 ]]; then
    die_usage "--profile profiles one process: it does not go with --workers $workers"
  fi
  if [[ -n "$rates" && "$rates" != search ]] && ! [[ "$rates" =~ ^[0-9]+(\.[0-9]+)?%?(,[0-9]+(\.[0-9]+)?%?)*$ ]]; then
    die_usage "--rates must be 'search' or list rates in req/s (5000) or shares (50%), comma-separated, got '$rates'"
  fi
  if [[ "$rates" == search && -n "$precision" ]]; then
    die_usage "--rates search runs in the last round, which --precision does not fix in advance"
  fi
  if [[ -n "$slo" ]] && ! [[ "$slo" =~ ^[0-9]+(\.[0-9]+)?$ && ! "$slo" =~ ^0+(\.0+)?$ ]]; then
    die_usage "--slo-p99 must be a number of milliseconds above 0, got '$slo'"
  fi
  case $tool in
    "" | oha | wrk | autocannon) ;;
    *) die_usage "--tool must be oha, wrk or autocannon, got '$tool'" ;;
  esac
  case $db in
    "" | sqlite | postgres) ;;
    *) die_usage "--db must be sqlite or postgres, got '$db'" ;;
  esac
  check_versions --node "$node_versions"
  check_versions --bun "$bun_versions"
  check_versions --deno "$deno_versions"
  if [[ -n "$apps_root" && ! -d "$apps_root/apps" ]]; then
    die_usage "--apps-root $apps_root has no apps/ folder"
  fi
  check_server "$server_host" "$server_dir" "$ssh_config" "$workers"
  check_bounds "$workers" "$connections"

  cd "$ROOT"
  # shellcheck source=scripts/bootstrap.sh
  source scripts/bootstrap.sh
  bootstrap

  local contract=(packages/contract/src/cli.ts)
  local known_apps known_scenarios
  known_apps=$("$BUN" "${contract[@]}" apps)
  known_scenarios=$("$BUN" "${contract[@]}" scenarios)
  apps=$(resolve_names app "$apps" "$known_apps")
  if [[ -n "$reference" ]]; then
    [[ ",$apps," == *",$reference,"* ]] || die_usage "--reference $reference is not one of the apps to run ($apps)"
  fi
  [[ -n "$scenario" ]] || scenario=$("$BUN" "${contract[@]}" default-scenario)
  scenario=$(resolve_names scenario "$scenario" "$known_scenarios")

  local chosen tool_name tool_path
  chosen=$(choose_tool "$tool")
  tool_name=${chosen%% *}
  tool_path=${chosen#* }

  local rate_tool=""
  if [[ -n "$rates" ]]; then
    rate_tool=$(find_oha) ||
      die_env "--rates needs oha (wrk and autocannon measure latency from when a request was sent, not when it was due, which hides queueing); $(install_hint oha)"
  fi

  if [[ -z "$output" ]]; then
    output="results/$(date -u +%Y-%m-%dT%H-%M-%SZ)"
  fi
  if [[ -e "$output/results.json" ]]; then
    die_env "$output already holds a results.json; choose another --output (nothing was overwritten)"
  fi
  check_output "$output"

  local run=("$BUN" packages/harness/src/run/run.ts
    --apps "$apps" --scenarios "$scenario" --duration "$duration" --warmup "$warmup"
    --connections "$connections" --trials "$trials" --samples "$samples"
    --tool "$tool_name" --tool-path "$tool_path" --out "$output")
  [[ -z "$precision" ]] || run+=(--precision "$precision")
  [[ -z "$max_time" ]] || run+=(--max-time "$max_time")
  [[ $pin -eq 1 ]] || run+=(--no-pin)
  [[ $profile -eq 0 ]] || run+=(--profile)
  [[ $calibrate -eq 0 ]] || run+=(--calibrate)
  run+=(--startup "$startup" --workers "$workers")
  [[ -z "$rates" ]] || run+=(--rates "$rates" --rate-tool-path "$rate_tool")
  [[ -z "$slo" ]] || run+=(--slo-p99 "$slo")
  [[ -z "$apps_root" ]] || run+=(--apps-root "$apps_root")
  [[ -z "$node_versions" ]] || run+=(--node "$node_versions")
  [[ -z "$bun_versions" ]] || run+=(--bun "$bun_versions")
  [[ -z "$deno_versions" ]] || run+=(--deno "$deno_versions")
  [[ -z "$server_host" ]] || run+=(--server-host "$server_host")
  [[ -z "$server_dir" ]] || run+=(--server-dir "$server_dir")
  [[ -z "$ssh_config" ]] || run+=(--ssh-config "$ssh_config")
  [[ $side -eq 0 ]] || run+=(--side-by-side)
  [[ -z "$reference" ]] || run+=(--reference "$reference")
  [[ -z "$against" ]] || run+=(--against "$against")
  [[ -z "$against" || -z "$threshold" ]] || run+=(--threshold "$threshold")
  [[ -z "$export_bmf" ]] || run+=(--export-bmf "$export_bmf")
  [[ -z "$db" ]] || run+=(--db "$db")
  # exec: Ctrl-C then reaches the harness itself, which stops the running app, keeps the
  # finished trials and exits 130; there is nothing left in this shell to clean up.
  exec "${run[@]}" -- "${original_args[@]}"
}

main "$@"
