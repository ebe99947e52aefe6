#!/usr/bin/env bash
# Statements and round trips per request of each use case on each PostgreSQL server (docs/performance.md, "Statements
# per request"; docs/approvals.md, "Cost of the end-of-command refresh"). Starts the jar on fresh embedded databases
# with fixed ports, loads pg_stat_statements into both servers (ALTER SYSTEM, kept in their data directories, then one
# restart of the service), and runs statements-per-request.py, which traces the service with strace for the round
# trips. Needs psql (the PostgreSQL client) and strace on the PATH; the embedded servers ship the extension.
#
#   src/test/scripts/statements-per-request.sh <jar>        env: N (100 requests per use case), OUT (target/statements)
set -euo pipefail

JAR=${1:?usage: statements-per-request.sh <jar>}
N=${N:-100}
OUT=${OUT:-target/statements}
for tool in psql strace; do
    command -v "$tool" > /dev/null || { echo "statements-per-request.sh needs $tool" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=service.sh
source "$(dirname "$0")/service.sh"

home="$OUT/var"; rm -rf "$home"
port=$(free_port); business=$(free_port); workflow=$(free_port)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT
start() {
    java -Xmx768m -jar "$JAR" --lockstep.home="$home" --server.port="$port" --lockstep.embedded.business-port="$business" \
        --lockstep.embedded.workflow-port="$workflow" --logging.level.root=WARN \
        --lockstep.reconciliation.enabled=false --lockstep.publish.enabled=false >> "$OUT/service.log" 2>&1 &
    pid=$!
    await_health "$port"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

start
for pg in "$business" "$workflow"; do
    psql -h localhost -p "$pg" -U postgres -d postgres -qc "alter system set shared_preload_libraries = 'pg_stat_statements'"
done
stop
start
psql -h localhost -p "$business" -U postgres -d lockstep_business -qc "create extension if not exists pg_stat_statements"
psql -h localhost -p "$workflow" -U postgres -d lockstep_workflow -qc "create extension if not exists pg_stat_statements"
python3 "$(dirname "$0")/statements-per-request.py" "$port" "$pid" "$business" "$workflow" "$N" | tee "$OUT/statements.txt"
stop
