#!/usr/bin/env bash
# Counts the service's round trips to PostgreSQL per approval cycle, in the XA and the single-database deployment
# (docs/performance.md, "Round trips per cycle"). Starts the jar once per deployment on fresh embedded databases with
# fixed ports, warms it with the approval-cycle client, then runs the client for WINDOW seconds under
# `strace -f -yy -e trace=read,recvfrom` and counts the successful socket reads from each PostgreSQL server, by
# server and by kind of thread (the thread's name without its number). A read is one response, or part of a long one:
# read the figures as round trips, give or take a few per cycle. strace slows the service several times over, so the
# cycles and latencies of this window mean nothing; only the counts per cycle do.
#
#   src/test/scripts/round-trips.sh <jar>        env: WINDOW (10 s), WARM (20 s), OUT (target/round-trips)
set -euo pipefail

JAR=${1:?usage: round-trips.sh <jar>}
WINDOW=${WINDOW:-10}
WARM=${WARM:-20}
OUT=${OUT:-target/round-trips}
CLIENT="$(cd "$(dirname "$0")" && pwd)/approval-cycle.py"
command -v strace > /dev/null || { echo "round-trips.sh needs strace" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# shellcheck source=service.sh
source "$(dirname "$0")/service.sh"

PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT

for mode in embedded single; do
    home="$OUT/var-$mode"; rm -rf "$home"
    port=$(free_port); business=$(free_port); workflow=$(free_port); single=$(free_port)
    java -Xmx768m -jar "$JAR" --lockstep.mode="$mode" --lockstep.home="$home" --server.port="$port" \
        --lockstep.embedded.business-port="$business" --lockstep.embedded.workflow-port="$workflow" \
        --lockstep.embedded.single-port="$single" --lockstep.tm.unique-name="rt-$mode.tm" --logging.level.root=WARN \
        --lockstep.reconciliation.enabled=false --lockstep.publish.enabled=false > "$OUT/$mode-service.log" 2>&1 &
    pid=$!; PIDS+=("$pid")
    await_health "$port"
    python3 "$CLIENT" "$port" "$WARM" > /dev/null

    timeout $((WINDOW + 3)) strace -f -yy -e trace=read,recvfrom -p "$pid" -o "$OUT/$mode.trace" 2> /dev/null &
    tracer=$!
    sleep 1.5
    python3 "$CLIENT" "$port" "$WINDOW" > "$OUT/$mode-client.out"
    wait "$tracer" || true
    cycles=$(awk '/^cycles/ {print $2}' "$OUT/$mode-client.out")
    echo "== $mode: $cycles cycles; socket reads per cycle by server and thread"
    grep -v '= -1' "$OUT/$mode.trace" \
        | awk -v b=":$business]" -v w=":$workflow]" -v s=":$single]" \
            'index($0, b) {print $1, "business"} index($0, w) {print $1, "workflow"} index($0, s) {print $1, "single"}' \
        | sort | uniq -c | while read -r reads tid server; do
            thread=$(sed 's/^http-nio.*/http-requests/; s/[-:]*[0-9]*$//' "/proc/$pid/task/$tid/comm" 2>/dev/null || echo ended)
            echo "$server $thread $reads"
        done \
        | awk -v cycles="$cycles" '{n[$1 " " $2] += $3; all += $3}
              END {for (k in n) printf "  %-32s %7.1f\n", k, n[k] / cycles; printf "  %-32s %7.1f\n", "all", all / cycles}' \
        | sort
    kill "$pid"; wait "$pid" 2>/dev/null || true
done
