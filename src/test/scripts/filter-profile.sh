#!/usr/bin/env bash
# What the CPU charged to the login throttle's filter in the bench's JFR summaries is (docs/performance.md, "What the
# security filter is charged with"). Starts the jar (XA, fresh embedded databases) with JFR keeping 256 frames per
# stack, warms it with two clients of the approval cycle, then records it (JFR, settings profile) over WINDOW seconds of
# the approval cycle at 1 client and WINDOW seconds of the todo page with READERS readers, and splits each recording's
# samples charged to the frames in FRAMES with charged-frames.py.
#
#   src/test/scripts/filter-profile.sh <jar>     env: WINDOW (40), WARM (90), READERS (16), OUT (target/filter-profile),
#                                                FRAMES (LoginThrottleFilter's two doFilterInternal), EXTRA_ARGS
set -euo pipefail

JAR=${1:?usage: filter-profile.sh <jar>}
WINDOW=${WINDOW:-40}
WARM=${WARM:-90}
READERS=${READERS:-16}
OUT=${OUT:-target/filter-profile}
FILTER=dev.lockstep.platform.security.login.LoginThrottleFilter
FRAMES=${FRAMES:-$FILTER.doFilterInternal $FILTER\$1.doFilterInternal}
SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=service.sh
source "$SCRIPTS/service.sh"

home="$OUT/var"; rm -rf "$home"
port=$(free_port)
# shellcheck disable=SC2086
java -Xmx768m -XX:FlightRecorderOptions:stackdepth=256 -jar "$JAR" --lockstep.home="$home" --server.port="$port" \
    --lockstep.embedded.business-port=0 --lockstep.embedded.workflow-port=0 --logging.level.root=WARN \
    --lockstep.reconciliation.enabled=false --lockstep.publish.enabled=false ${EXTRA_ARGS:-} > "$OUT/service.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
await_health "$port"
python3 "$SCRIPTS/approval-cycle.py" "$port" "$WARM" 2 > /dev/null
# JFR's first start makes the JIT recompile what it instruments: a throwaway recording first (as ServiceProfile does)
jcmd "$pid" JFR.start name=warm-up settings=profile > /dev/null && jcmd "$pid" JFR.stop name=warm-up > /dev/null
python3 "$SCRIPTS/todo-readers.py" "$port" 20 "$READERS" > /dev/null

record() { # name, then the client command
    local name=$1; shift
    jcmd "$pid" JFR.start name="$name" settings=profile > /dev/null
    "$@" > "$OUT/$name-client.out"
    jcmd "$pid" JFR.stop name="$name" filename="$OUT/$name.jfr" > /dev/null
}
record approval-cycle-1-client python3 "$SCRIPTS/approval-cycle.py" "$port" "$WINDOW"
record todo-"$READERS"-readers python3 "$SCRIPTS/todo-readers.py" "$port" "$WINDOW" "$READERS"
for name in approval-cycle-1-client todo-"$READERS"-readers; do
    # shellcheck disable=SC2086
    python3 "$SCRIPTS/charged-frames.py" "$OUT/$name.jfr" $FRAMES
    echo
done | tee "$OUT/summary.txt"
