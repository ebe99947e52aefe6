#!/usr/bin/env bash
# Counts the disk forces (JFR jdk.FileForce: fsync of the Atomikos coordinator log, among others) and the
# wall time and the service's CPU time per request of the three business-only requests (create a draft, read the application, the
# todo page) and of a two-phase one (submit: both databases). Each given service jar is started in turn (embedded mode, fresh databases), warmed up, then
# measured one request at a time, in the same script run so that the jars are compared on the same
# machine at the same time. Forces are counted on the request threads only (http-nio-*-exec-*), so the
# engine's background job acquisition does not blur them. After each kind, the XA phase timers of its window
# (lockstep_xa_branch_seconds per phase and database, lockstep_xa_decision_seconds) and the JTA transactions
# (lockstep_jta_transactions_seconds per outcome, begin to end): calls and mean ms.
#
#   src/test/scripts/file-forces.sh <label>=<service jar> [<label>=<service jar> ...]
#   env: REQUESTS (per kind, default 200), WARMUP (default 50), OUT (default target/file-forces)
set -euo pipefail

REQUESTS=${REQUESTS:-200}
WARMUP=${WARMUP:-50}
OUT=${OUT:-target/file-forces}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cat > "$OUT/forces.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="forces">
  <event name="jdk.FileForce">
    <setting name="enabled">true</setting>
    <setting name="stackTrace">true</setting>
    <setting name="threshold">0 ms</setting>
  </event>
</configuration>
JFC

# shellcheck source=service.sh
source "$(dirname "$0")/service.sh"

# one request; prints its wall time in ms
timed() { curl -s -o /dev/null -w '%{time_total}\n' "$@" | awk '{printf "%.3f\n", $1 * 1000}'; }

create() { timed -u alice:lockstep -H 'Content-Type: application/json' -X POST "$BASE/api/applications" \
    -d '{"title":"forces","assetId":42,"amount":100,"riskLevel":"LOW","sensitive":false}'; }
read_app() { timed -u alice:lockstep "$BASE/api/applications/$APP"; }
todo() { timed -u bob:lockstep "$BASE/api/tasks"; }
new_draft() { curl -s -u alice:lockstep -H 'Content-Type: application/json' -X POST "$BASE/api/applications" \
    -d '{"title":"submit me","assetId":42,"amount":100,"riskLevel":"LOW","sensitive":false}' | sed 's/.*"id":\([0-9]*\).*/\1/'; }
# submits the next of the drafts made before the window, so the window holds the submits alone
submit() { timed -u alice:lockstep -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" -X POST \
    "$BASE/api/applications/${DRAFTS[$NEXT]}/submit"; NEXT=$((NEXT + 1)); }

# sum and count of each XA phase timer and of the JTA transaction timer, from the service's Prometheus text
# (needs an ADMIN user: erin)
xa_timers() {
    curl -s -u erin:lockstep "$BASE/actuator/prometheus" | awk '
        /^lockstep_(xa_(branch|decision)|jta_transactions)_seconds_(sum|count)/ {
            name = $1; sub(/_(sum|count)\{/, "{", name); sub(/_(sum|count)$/, "", name)
            kind = ($1 ~ /_sum/) ? "sum" : "count"
            print name, kind, $2
        }'
}

# mean ms per call of each XA phase timer between two xa_timers snapshots
xa_means() { # before after
    awk 'FNR == NR { before[$1 " " $2] = $3; next } { after[$1 " " $2] = $3 }
        END {
            for (key in after) {
                split(key, k, " ")
                if (k[2] != "count") continue
                n = after[key] - before[key]
                if (n <= 0) continue
                ms = (after[k[1] " sum"] - before[k[1] " sum"]) * 1000 / n
                name = k[1]; gsub(/lockstep_xa_|lockstep_|_seconds|resource=|phase=|outcome=|"/, "", name)
                printf "    %-55s %6d calls  mean %7.3f ms\n", name, n, ms
            }
        }' "$1" "$2" | sort
}

# CPU seconds the service's process has used (user + system), from /proc
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$PID/stat"; }

measure() { # label kind
    local label=$1 kind=$2
    jcmd "$PID" JFR.start name="$kind" settings="$OUT/forces.jfc" > /dev/null
    xa_timers > "$OUT/$label-$kind.xa-before"
    local cpu_before
    cpu_before=$(cpu_seconds)
    for _ in $(seq "$REQUESTS"); do $kind; done > "$OUT/$label-$kind.ms"
    local cpu_ms
    cpu_ms=$(echo "($(cpu_seconds) - $cpu_before) * 1000 / $REQUESTS" | bc -l)
    jcmd "$PID" JFR.stop name="$kind" filename="$OUT/$label-$kind.jfr" > /dev/null
    local forces
    forces=$(jfr print --events jdk.FileForce "$OUT/$label-$kind.jfr" | grep -c 'eventThread = "http-nio-.*-exec-' || true)
    local p50
    p50=$(sort -n "$OUT/$label-$kind.ms" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-10s %-9s %6d requests  %6d forces  %5.2f forces/request  p50 %7.2f ms  service CPU %6.2f ms/request\n' \
        "$label" "$kind" "$REQUESTS" "$forces" "$(echo "$forces / $REQUESTS" | bc -l)" "$p50" "$cpu_ms" | tee -a "$OUT/summary.txt"
    xa_timers > "$OUT/$label-$kind.xa-after"
    xa_means "$OUT/$label-$kind.xa-before" "$OUT/$label-$kind.xa-after" | tee -a "$OUT/summary.txt"
}

for target in "$@"; do
    label=${target%%=*}
    jar=${target#*=}
    home="$OUT/var-$label"
    rm -rf "$home"
    port=$(free_port)
    BASE="http://localhost:$port"
    java -Xmx768m -jar "$jar" --lockstep.home="$home" --server.port="$port" --lockstep.embedded.business-port=0 \
        --lockstep.embedded.workflow-port=0 --lockstep.tm.unique-name=lockstep-forces.tm --logging.level.root=WARN \
        --lockstep.reconciliation.enabled=false > "$OUT/$label-service.log" 2>&1 &
    PID=$!
    await_health "$port"
    APP=$(curl -s -u alice:lockstep -H 'Content-Type: application/json' -X POST "$BASE/api/applications" \
        -d '{"title":"read me","assetId":42,"amount":100,"riskLevel":"LOW","sensitive":false}' | sed 's/.*"id":\([0-9]*\).*/\1/')
    DRAFTS=()
    for _ in $(seq $((WARMUP + REQUESTS))); do DRAFTS+=("$(new_draft)"); done
    NEXT=0
    for _ in $(seq "$WARMUP"); do create; read_app; todo; submit; done > /dev/null
    measure "$label" create
    measure "$label" read_app
    measure "$label" todo
    measure "$label" submit
    kill "$PID"
    wait "$PID" || true
done
