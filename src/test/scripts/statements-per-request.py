#!/usr/bin/env python3
"""Statements each task command runs on each PostgreSQL server, counted by pg_stat_statements (docs/approvals.md,
"Cost of the end-of-command refresh"). Prepares N submitted applications, then runs one command kind at a time on all
N of them: claim, delegate, resolve, transfer, approve. Before each kind the statistics are reset; after it they are
read, and the same window measured with no request at all (background jobs: scheduler polls, health probes) is
subtracted. Prints statements per request per server, of which the refresh's (REFRESH_MARKERS), then every statement
run at least once per request.

    statements-per-request.py <service-port> <business-pg-port> <workflow-pg-port> <n>
"""
import base64
import http.client
import json
import subprocess
import sys
import time
import uuid

DRAFT = '{"title":"Statement count","assetId":42,"amount":1200.50,"riskLevel":"LOW","sensitive":false}'
# Statements of the end-of-command refresh (approval/todo/TaskProjectionRefresh), told apart by their text: the task
# query of the run and its historic task query (workflow server), the read of the run's open projection rows and the
# projection upserts (business server; the upserts include the TASK_CREATED listener's). Its identity-link read per
# open task has the same text as the command's own reads of a task's links and is not counted here.
REFRESH_MARKERS = ("from act_ru_task res where res.proc_inst_id_ = $1 order by res.id_",
                   "from act_hi_taskinst res where res.proc_inst_id_ = $1",
                   "from task_projection where process_instance_id = $1 and state",
                   "insert into task_projection")


def psql(port, sql):
    database = "lockstep_business" if port == BUSINESS else "lockstep_workflow"
    result = subprocess.run(["psql", "-h", "localhost", "-p", str(port), "-U", "postgres", "-d", database, "-AtF", "\t",
                             "-c", sql], check=True, capture_output=True, text=True)
    return [line.split("\t") for line in result.stdout.splitlines() if line]


def reset():
    for port in (BUSINESS, WORKFLOW):
        psql(port, "select pg_stat_statements_reset()")


def statements(port):
    """(total calls, calls of refresh statements, top statements) on this server's Lockstep database."""
    rows = psql(port, """select calls, regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements
                         where dbid = (select oid from pg_database where datname = current_database())
                           and query not like '%pg_stat_statements%' order by calls desc""")
    total = sum(int(calls) for calls, _ in rows)
    refresh = sum(int(calls) for calls, query in rows if any(m in query.lower() for m in REFRESH_MARKERS))
    return total, refresh, rows


class Api:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("localhost", port, timeout=60)

    def call(self, user, method, path, body=None, key=None, expect=200):
        headers = {"Authorization": "Basic " + base64.b64encode((user + ":lockstep").encode()).decode(),
                   "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != expect:
            raise SystemExit(f"{method} {path} as {user}: {response.status} {data[:300]}")
        return json.loads(data) if data else None


def main(port, n):
    api = Api(port)
    tasks = []
    for _ in range(n):
        application = api.call("alice", "POST", "/api/applications", DRAFT, expect=201)
        path = f"/api/applications/{application['id']}"
        api.call("alice", "POST", path + "/submit", "", str(uuid.uuid4()))
        tasks.append(api.call("bob", "GET", path)["openTasks"][0]["id"])

    def key():
        return str(uuid.uuid4())

    kinds = [
        ("claim", lambda t: api.call("bob", "POST", f"/api/tasks/{t}/claim")),
        ("delegate", lambda t: api.call("bob", "POST", f"/api/tasks/{t}/delegate", '{"userId":"carol"}', key())),
        ("resolve", lambda t: api.call("carol", "POST", f"/api/tasks/{t}/resolve", "{}", key())),
        ("transfer", lambda t: api.call("bob", "POST", f"/api/tasks/{t}/transfer", '{"userId":"dave"}', key())),
        ("approve", lambda t: api.call("dave", "POST", f"/api/tasks/{t}/complete", '{"decision":"APPROVE"}', key())),
    ]
    print(f"{n} requests per command; statements per request after subtracting an idle window of the same length")
    print(f"{'command':10} {'business':>9} {'workflow':>9} {'both':>7}   {'of which refresh (business+workflow)':>36}")
    top = {}
    for name, command in kinds:
        reset()
        started = time.perf_counter()
        for task in tasks:
            command(task)
        elapsed = time.perf_counter() - started
        business, workflow = statements(BUSINESS), statements(WORKFLOW)
        reset()
        time.sleep(elapsed)
        idle_business, idle_workflow = statements(BUSINESS), statements(WORKFLOW)
        per = lambda busy, idle, i: (busy[i] - idle[i]) / n
        b, w = per(business, idle_business, 0), per(workflow, idle_workflow, 0)
        rb, rw = per(business, idle_business, 1), per(workflow, idle_workflow, 1)
        print(f"{name:10} {b:9.1f} {w:9.1f} {b + w:7.1f}   {rb:17.1f} + {rw:.1f} = {rb + rw:.1f}")
        top[name] = (business[2], workflow[2])
    for name, (business_rows, workflow_rows) in top.items():
        print(f"\n== {name}: statements called at least once per request (calls / request, server, statement)")
        for server, rows in (("business", business_rows), ("workflow", workflow_rows)):
            for calls, query in rows:
                if int(calls) >= n:
                    print(f"  {int(calls) / n:5.1f} {server:8} {query[:150]}")


if __name__ == "__main__":
    BUSINESS, WORKFLOW = int(sys.argv[2]), int(sys.argv[3])
    main(int(sys.argv[1]), int(sys.argv[4]))
