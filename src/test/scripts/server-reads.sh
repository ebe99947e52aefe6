#!/usr/bin/env bash
# What the two PostgreSQL servers read under the approval cycle (docs/performance.md, "What the servers read"): whether
# the engine's tables want indexes, and whether statements are parsed anew. Starts the jar (XA, fresh embedded
# databases, fixed ports), warms it with two clients, then:
#   1. resets the servers' statistics, runs CLIENTS clients for WINDOW seconds and prints, per server, the buffers read
#      by table and by index, and each table's sequential and index scans (pg_statio_user_tables,
#      pg_statio_user_indexes, pg_stat_user_tables), with the cycles of the window to divide by, and the statements
#      that took the most time (pg_stat_statements: calls, execution and planning time, buffers);
#   2. logs every statement of both servers for 10 s at two clients (log_min_duration_statement = 0, then reset) and
#      counts the bind messages by statement name: a named one runs a statement the server has prepared and planned
#      before (pgjdbc's prepareThreshold), an unnamed one is parsed and planned for this execution.
# Needs psql (the PostgreSQL client).
#
#   src/test/scripts/server-reads.sh <jar>        env: CLIENTS (16), WINDOW (60 s), WARM (60 s), OUT (target/server-reads)
set -euo pipefail

JAR=${1:?usage: server-reads.sh <jar>}
CLIENTS=${CLIENTS:-16}
WINDOW=${WINDOW:-60}
WARM=${WARM:-60}
OUT=${OUT:-target/server-reads}
SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
command -v psql > /dev/null || { echo "server-reads.sh needs psql" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=service.sh
source "$SCRIPTS/service.sh"

home="$OUT/var"; rm -rf "$home"
port=$(free_port); business=$(free_port); workflow=$(free_port)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT
start() {
    java -Xmx768m -XX:+UseParallelGC -jar "$JAR" --lockstep.home="$home" --server.port="$port" \
        --lockstep.embedded.business-port="$business" --lockstep.embedded.workflow-port="$workflow" --logging.level.root=WARN \
        --lockstep.reconciliation.enabled=false --lockstep.publish.enabled=false >> "$OUT/service.log" 2>&1 &
    pid=$!
    await_health "$port" "$pid"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
sql() { # server port, database, statement
    psql -h localhost -p "$1" -U postgres -d "$2" -X -c "$3"
}
on_both_servers() { # statement, run in each server's postgres database
    for server in "$business" "$workflow"; do sql "$server" postgres "$1" > /dev/null; done
}

# the servers' own log files for part 2 and pg_stat_statements for part 1 (both take a restart)
start
on_both_servers "alter system set logging_collector = on"
on_both_servers "alter system set log_directory = 'log'"
on_both_servers "alter system set shared_preload_libraries = 'pg_stat_statements'"
on_both_servers "alter system set pg_stat_statements.track_planning = on"
stop
start
python3 "$SCRIPTS/approval-cycle.py" "$port" "$WARM" 2 > /dev/null

for db in business workflow; do
    server=${!db}
    sql "$server" "lockstep_$db" "create extension if not exists pg_stat_statements;
        select pg_stat_reset(), pg_stat_statements_reset()" > /dev/null
done
python3 "$SCRIPTS/approval-cycle.py" "$port" "$WINDOW" "$CLIENTS" > "$OUT/client.out"
{
    echo "$CLIENTS clients, $WINDOW s: $(head -1 "$OUT/client.out")"
    for db in business workflow; do
        server=${!db}
        echo; echo "== $db server"
        sql "$server" "lockstep_$db" "select relname, heap_blks_hit, idx_blks_hit from pg_statio_user_tables
            order by heap_blks_hit + idx_blks_hit desc limit 15"
        sql "$server" "lockstep_$db" "select s.relname, s.indexrelname, s.idx_blks_hit, u.idx_scan, u.idx_tup_read
            from pg_statio_user_indexes s join pg_stat_user_indexes u using (indexrelid) order by s.idx_blks_hit desc limit 15"
        sql "$server" "lockstep_$db" "select relname, seq_scan, seq_tup_read, idx_scan, n_tup_ins, n_tup_upd, n_tup_del,
            n_live_tup, n_dead_tup, pg_relation_size(relid) / 8192 as pages from pg_stat_user_tables
            order by seq_tup_read + coalesce(idx_scan, 0) desc limit 15"
        # execution time is the server's wall time: at 16 clients on 2 cores it includes waiting for a core and for locks
        sql "$server" "lockstep_$db" "select calls, round(total_exec_time) as exec_ms, round(total_plan_time) as plan_ms,
            shared_blks_hit + shared_blks_read as buffers, left(regexp_replace(query, '\s+', ' ', 'g'), 110) as statement
            from pg_stat_statements order by total_exec_time + total_plan_time desc limit 15"
    done
} | tee "$OUT/reads.txt"

on_both_servers "alter system set log_min_duration_statement = 0"
on_both_servers "select pg_reload_conf()"
python3 "$SCRIPTS/approval-cycle.py" "$port" 10 2 > /dev/null
on_both_servers "alter system reset log_min_duration_statement"
on_both_servers "select pg_reload_conf()"
{
    echo; echo "bind messages by statement name, 10 s at 2 clients"
    for db in business workflow; do
        printf '%s server: ' "$db"
        cat "$home/pg-$db"/log/*.log | grep -o 'duration: [0-9.]* ms  bind [^:]*' | awk '{print ($5 ~ /^S_/ ? "named" : "unnamed")}' \
            | sort | uniq -c | tr '\n' ' '
        echo
    done
} | tee -a "$OUT/reads.txt"
