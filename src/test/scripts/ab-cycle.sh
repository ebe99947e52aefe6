#!/usr/bin/env bash
# Compares service jars side by side under the approval cycle (1 client, or CLIENTS at once), in the same script run so that they
# share the machine's state (docs/performance.md): each jar starts on fresh embedded databases, is warmed with two
# clients, then measured in rounds of one window each, the order rotated every round. Per window: cycles, the
# cycle's p50 and each operation's, the service's CPU per cycle by kind of thread (its live threads, /proc/<pid>/task: HTTP
# request threads, JIT compiler, Atomikos's threads, the rest), the CPU per cycle of its PostgreSQL servers, how much of the
# service's and the servers' CPU was spent in the kernel, and the whole machine's context switches per cycle.
#
#   src/test/scripts/ab-cycle.sh <label>=<jar>[:<mode>] [<label>=<jar>[:<mode>] ...]
#   mode: embedded (XA, the default) or single; env: ROUNDS (4), WINDOW (30 s per window), WARM (90 per jar),
#   OUT (target/ab-cycle), EXTRA_ARGS (added to every service's arguments), ARGS_<label> (added to that label's only, so
#   that one jar compares with itself under another setting: a=x.jar b=x.jar ARGS_b=--lockstep.db.workflow.pool-size=4), JVM_<label>
#   (Java options for that label's service; every service runs the image's parallel collector, so another is named with
#   it off: JVM_b='-XX:-UseParallelGC -XX:+UseG1GC'), JAVA_<label> (the java command for that label's service, java on
#   the PATH unless told: JAVA_b=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java), CLIENTS (approval-cycle clients at once,
#   1), READERS (measure the todo page read by this many clients at once, todo-readers.py, instead of the cycle: the
#   figures are then per page)
set -euo pipefail

ROUNDS=${ROUNDS:-4}
WINDOW=${WINDOW:-30}
WARM=${WARM:-90}
OUT=${OUT:-target/ab-cycle}
CLIENT="$(cd "$(dirname "$0")" && pwd)/approval-cycle.py"
MEASURED=$CLIENT UNIT=cycle
if [[ -n ${READERS:-} ]]; then MEASURED="$(dirname "$CLIENT")/todo-readers.py" UNIT=page; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
HZ=$(getconf CLK_TCK)

# shellcheck source=service.sh
source "$(dirname "$0")/service.sh"

declare -A PID PORT
LABELS=()
stop_all() { for label in "${LABELS[@]}"; do kill "${PID[$label]}" 2>/dev/null || true; done; }
trap stop_all EXIT

for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}; jar=${rest%%:*}; mode=embedded
    [[ $rest == *:* ]] && mode=${rest##*:}
    home="$OUT/var-$label"; rm -rf "$home"
    PORT[$label]=$(free_port)
    own_args="ARGS_$label" own_jvm="JVM_$label" own_java="JAVA_$label"
    # shellcheck disable=SC2086
    "${!own_java:-java}" -Xmx768m -XX:+UseParallelGC ${!own_jvm:-} -jar "$jar" --lockstep.mode="$mode" --lockstep.home="$home" --server.port="${PORT[$label]}" \
        --lockstep.embedded.business-port=0 --lockstep.embedded.workflow-port=0 --lockstep.embedded.single-port=0 \
        --lockstep.tm.unique-name="ab-$label.tm" --logging.level.root=WARN --lockstep.reconciliation.enabled=false \
        --lockstep.publish.enabled=false ${EXTRA_ARGS:-} ${!own_args:-} > "$OUT/$label-service.log" 2>&1 &
    PID[$label]=$!
    LABELS+=("$label")
done
for label in "${LABELS[@]}"; do
    await_health "${PORT[$label]}" "${PID[$label]}"
done
for label in "${LABELS[@]}"; do
    python3 "$CLIENT" "${PORT[$label]}" "$WARM" 2 > /dev/null
done

# CPU ticks of the service's threads by kind, one "kind ticks" line each
thread_ticks() {
    for task in /proc/"$1"/task/*; do
        echo "$(tr ' ' '_' 2>/dev/null < "$task/comm") $(awk '{print $14 + $15}' "$task/stat" 2>/dev/null)"
    done | awk '{kind = $1 ~ /^http-nio/ ? "http" : $1 ~ /Compiler/ ? "jit" : $1 ~ /^Atomikos/ ? "atomikos" : "other"; t[kind] += $2}
                END {for (k in t) print k, t[k]}'
}
# CPU ticks of the PostgreSQL servers under the service's home: postmasters with their reaped backends, and live backends;
# with "system" as $2, only the ticks spent in the kernel
postgres_ticks() {
    local total=0 ticks own='$14 + $15' reaped='$16 + $17'
    if [[ ${2:-} == system ]]; then own='$15' reaped='$17'; fi
    for postmaster in $(pgrep -f "postgres -D $OUT/var-$1/" || true); do
        ticks=$(awk "{print $own + $reaped}" "/proc/$postmaster/stat" 2>/dev/null || echo 0); total=$((total + ticks))
        for backend in $(pgrep -P "$postmaster" || true); do
            ticks=$(awk "{print $own}" "/proc/$backend/stat" 2>/dev/null || echo 0); total=$((total + ticks))
        done
    done
    echo "$total"
}
# kernel CPU ticks of the service's live threads
service_system_ticks() { cat /proc/"$1"/task/*/stat 2>/dev/null | awk '{sum += $15} END {print sum}'; }
# context switches of the whole machine since boot
context_switches() { awk '/^ctxt/ {print $2}' /proc/stat; }

window() { # label
    local label=$1 pid=${PID[$1]} before after pg_before result cycles kernel_before kernel switches
    before=$(thread_ticks "$pid"); pg_before=$(postgres_ticks "$label")
    kernel_before=$(( $(service_system_ticks "$pid") + $(postgres_ticks "$label" system) )); switches=$(context_switches)
    result=$(python3 "$MEASURED" "${PORT[$label]}" "$WINDOW" "${READERS:-${CLIENTS:-1}}")
    # the switches first: the snapshots below start processes of their own
    switches=$(( $(context_switches) - switches ))
    after=$(thread_ticks "$pid")
    kernel=$(( $(service_system_ticks "$pid") + $(postgres_ticks "$label" system) - kernel_before ))
    cycles=$(echo "$result" | head -1 | awk '{print $2}')
    printf '%-8s %s | CPU ms/%s: %s | postgres %.1f | of both, in the kernel %.1f | context switches %.0f\n' "$label" \
        "$(echo "$result" | head -1)" "$UNIT" \
        "$(join <(echo "$before" | sort) <(echo "$after" | sort) | awk -v n="$cycles" -v hz="$HZ" \
            '{d = ($3 - $2) * 1000 / hz / n; all += d; out = out sprintf("%s %.1f ", $1, d)} END {printf "service %.1f (%s)", all, out}')" \
        "$(echo "($(postgres_ticks "$label") - $pg_before) * 1000 / $HZ / $cycles" | bc -l)" \
        "$(echo "$kernel * 1000 / $HZ / $cycles" | bc -l)" "$(echo "$switches / $cycles" | bc -l)"
    if [[ $UNIT == cycle ]]; then echo "$result" | tail -1; fi
}

# the order rotates by one jar every round, so that with n jars and a multiple of n rounds each jar measures in every
# position equally often (a window runs in the wake of the one before it: the other jar's checkpoints, autovacuum, JIT)
for round in $(seq "$ROUNDS"); do
    order=()
    for (( i = 0; i < ${#LABELS[@]}; i++ )); do order+=("${LABELS[$(( (i + round - 1) % ${#LABELS[@]} ))]}"); done
    echo "round $round"
    for label in "${order[@]}"; do window "$label"; done
done | tee "$OUT/summary.txt"
