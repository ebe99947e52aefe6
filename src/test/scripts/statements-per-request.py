#!/usr/bin/env python3
"""Statements and round trips per request of each use case, on each PostgreSQL server (docs/performance.md,
"Statements per request"; docs/approvals.md, "Cost of the end-of-command refresh").

Runs the use cases one kind at a time, N requests each, over HTTP as the demo users: create, submit, the application
view, the todo page, the task commands (claim, delegate, resolve, transfer, the manager's approval), a return from the
final step to the manager, the final approval, and two countersign votes (the first of three signers', and the last,
which decides the step and ends the process). The same sequence runs once with 3 applications first, unmeasured, so
that caches are warm.

Statements: pg_stat_statements on each server (top-level statements as the client sent them, utility statements
included), reset before each kind and read after it, once the audit entries the kind wrote have joined the chain (a
decision's entry is chained in a later local transaction, by the audit-chain job: that work is the kind's too). The
statements the service's background jobs run meanwhile
(scheduler polls, the engine's job acquisition, Atomikos's recovery scans) are subtracted per statement at the rate
an idle window measured at the start. Each statement is put in one of three kinds by its text: the engine's (it names
an ACT_* table), transaction control (BEGIN, COMMIT, PREPARE TRANSACTION, COMMIT PREPARED, SET, ...), and Lockstep's
(everything else: Hibernate, JdbcTemplate and the XA coordinator's own statements). The end-of-command refresh's
statements are told apart by their text too (REFRESH_MARKERS).

Round trips: the service JVM is traced with `strace -f -yy -e trace=read,recvfrom` while a kind runs, and the socket
reads from each server are counted on the request threads (Tomcat's http-nio-*) and on Atomikos's branch threads
(PREPARE TRANSACTION and COMMIT PREPARED in parallel); other threads are background. A read is one response or part
of a long one, so read the counts as round trips give or take a few. pgjdbc sends BEGIN in the same round trip as the
transaction's first statement, and a JDBC batch's statements in one.

    statements-per-request.py <service-port> <service-pid> <business-pg-port> <workflow-pg-port> <n>
"""
import base64
import collections
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

LOW = '{"title":"Statement count","assetId":42,"amount":1200.50,"riskLevel":"LOW","sensitive":false}'
COUNTERSIGN = ('{"title":"Statement count","assetId":7,"amount":50000,"riskLevel":"HIGH","sensitive":false,'
               '"countersign":{"signers":["bob","carol","dave"],"policy":"ALL"}}')
APPROVE = '{"decision":"APPROVE"}'
RETURN = '{"targetActivityId":"managerApproval","mode":"RERUN","reason":"statement count"}'
IDLE_SECONDS = 30
# Statements of the end-of-command refresh (approval/todo/TaskProjectionRefresh), told apart by their text: the task
# query of the run and its historic task query (workflow server), the read of the run's open projection rows and the
# projection upserts (business server; the upserts include the TASK_CREATED listener's). Its identity-link read per
# open task has the same text as the command's own reads of a task's links and is not counted here.
REFRESH_MARKERS = ("from act_ru_task res where res.proc_inst_id_ = $1 order by res.id_",
                   "from act_hi_taskinst res where res.proc_inst_id_ = $1",
                   "from task_projection where process_instance_id = $1 and state",
                   "insert into task_projection")
ENGINE = re.compile(r"\bact_[a-z]+_", re.IGNORECASE)
CONTROL = re.compile(r"^\s*(begin|commit|rollback|prepare transaction|commit prepared|rollback prepared|savepoint"
                     r"|release|start transaction|end|set|show|reset|discard)\b", re.IGNORECASE)
KINDS = ("engine", "Lockstep", "control")


def kind_of(query):
    return "engine" if ENGINE.search(query) else "control" if CONTROL.match(query) else "Lockstep"


def psql(port, sql):
    database = "lockstep_business" if port == BUSINESS else "lockstep_workflow"
    result = subprocess.run(["psql", "-h", "localhost", "-p", str(port), "-U", "postgres", "-d", database, "-AtF", "\t",
                             "-c", sql], check=True, capture_output=True, text=True)
    return [line.split("\t") for line in result.stdout.splitlines() if line]


def reset():
    for port in (BUSINESS, WORKFLOW):
        psql(port, "select pg_stat_statements_reset()")


def calls(port):
    """Calls per statement on this server's Lockstep database, statements told apart by their text (literals of
    utility statements such as PREPARE TRANSACTION 'gid' replaced by ?)."""
    rows = psql(port, """select calls, regexp_replace(query, '\\s+', ' ', 'g') from pg_stat_statements
                         where dbid = (select oid from pg_database where datname = current_database())
                           and query not like '%pg_stat_statements%' and query not like '%statements_per_request%'""")
    counted = collections.Counter()
    for count, query in rows:
        counted[re.sub(r"'[^']*'", "?", query.strip())] += int(count)
    return counted


def await_audit_chained():
    deadline = time.time() + 120
    # the alias names this script's own statement, which calls() leaves out
    waiting = "select count(*) as statements_per_request from recovery_audit_intake where chained_seq is null"
    while psql(BUSINESS, waiting)[0][0] != "0":
        if time.time() > deadline:
            raise SystemExit("audit entries still waiting for the chain after 120 s")
        time.sleep(0.5)


def both_servers():
    return {"business": calls(BUSINESS), "workflow": calls(WORKFLOW)}


class Tracer:
    """strace on the service JVM, all its threads, counting socket reads from each server by kind of thread."""

    def __init__(self, pid):
        self.pid = pid
        self.output = tempfile.NamedTemporaryFile(prefix="statements-", suffix=".trace", delete=False).name
        self.log = open(self.output + ".log", "w")
        self.process = subprocess.Popen(["strace", "-f", "-yy", "-e", "trace=read,recvfrom", "-p", str(pid),
                                         "-o", self.output], stderr=self.log)
        threads = len(os.listdir(f"/proc/{pid}/task"))
        deadline = time.time() + 30
        while time.time() < deadline and self.attached() < threads - 2:
            time.sleep(0.2)

    def attached(self):
        with open(self.output + ".log") as log:
            return sum("attached" in line for line in log)

    def stop(self):
        """Round trips by server: (request threads, branch threads)."""
        self.process.terminate()
        self.process.wait()
        self.log.close()
        reads = collections.Counter()
        with open(self.output) as trace:
            for line in trace:
                if "= -1" in line:
                    continue
                server = ("business" if f":{BUSINESS}]" in line else "workflow" if f":{WORKFLOW}]" in line else None)
                if server:
                    reads[(line.split(" ", 1)[0], server)] += 1
        os.remove(self.output)
        os.remove(self.output + ".log")
        trips = collections.Counter()
        for (tid, server), count in reads.items():
            thread = self.thread_kind(tid)
            if thread:
                trips[(server, thread)] += count
        return trips

    def thread_kind(self, tid):
        try:
            with open(f"/proc/{self.pid}/task/{tid}/comm") as comm:
                name = comm.read()
        except OSError:
            return "request"  # a request thread Tomcat ended meanwhile; background threads here live as long as the JVM
        return "request" if name.startswith("http-nio") else "branch" if name.startswith("Atomikos") else None


class Api:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("localhost", port, timeout=120)

    def call(self, user, method, path, body=None, key=False, expect=200):
        headers = {"Authorization": "Basic " + base64.b64encode((user + ":lockstep").encode()).decode(),
                   "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != expect:
            raise SystemExit(f"{method} {path} as {user}: {response.status} {data[:300]}")
        return json.loads(data) if data else None

    def open_task(self, user, application, assignee=None):
        tasks = self.call(user, "GET", f"/api/applications/{application}")["openTasks"]
        return next(t["id"] for t in tasks if assignee is None or t["assignee"] == assignee)


class Measurement:
    """Runs each kind over all items, measured (statements and round trips) or not."""

    def __init__(self, pid, n, idle):
        self.pid, self.n, self.idle = pid, n, idle
        self.results = []

    def run(self, name, items, request, measured):
        if not measured:
            return [request(item) for item in items]
        reset()
        started = time.time()
        tracer = Tracer(self.pid)
        answers = [request(item) for item in items]
        trips = tracer.stop()
        await_audit_chained()
        busy = both_servers()
        elapsed = time.time() - started
        per_request = {server: {query: (count - self.idle[server][query] * elapsed / IDLE_SECONDS) / self.n
                                for query, count in counted.items()} for server, counted in busy.items()}
        self.results.append((name, per_request, {key: count / self.n for key, count in trips.items()}))
        return answers


def sequence(api, measurement, n, measured):
    def run(name, items, request):
        return measurement.run(name, items, request, measured)

    low = run("create", range(n), lambda _: api.call("alice", "POST", "/api/applications", LOW, expect=201)["id"])
    run("submit", low, lambda a: api.call("alice", "POST", f"/api/applications/{a}/submit", "", key=True))
    tasks = run("application view", low, lambda a: api.open_task("bob", a))
    run("todo page (20 rows)", low, lambda _: api.call("bob", "GET", "/api/tasks?size=20"))
    run("claim", tasks, lambda t: api.call("bob", "POST", f"/api/tasks/{t}/claim"))
    run("delegate", tasks, lambda t: api.call("bob", "POST", f"/api/tasks/{t}/delegate", '{"userId":"carol"}', key=True))
    run("resolve", tasks, lambda t: api.call("carol", "POST", f"/api/tasks/{t}/resolve", "{}", key=True))
    run("transfer", tasks, lambda t: api.call("bob", "POST", f"/api/tasks/{t}/transfer", '{"userId":"dave"}', key=True))
    run("approve (manager step; final approval opens)", tasks,
        lambda t: api.call("dave", "POST", f"/api/tasks/{t}/complete", APPROVE, key=True))
    finals = [api.open_task("frank", a) for a in low]
    run("return (final step to the manager, RERUN)", finals,
        lambda t: api.call("frank", "POST", f"/api/tasks/{t}/return", RETURN, key=True))
    for application in low:
        api.call("bob", "POST", f"/api/tasks/{api.open_task('bob', application)}/complete", APPROVE, key=True)
    finals = [api.open_task("frank", a) for a in low]
    run("approve (final step; the process ends)", finals,
        lambda t: api.call("frank", "POST", f"/api/tasks/{t}/complete", APPROVE, key=True))

    signed = [api.call("alice", "POST", "/api/applications", COUNTERSIGN, expect=201)["id"] for _ in range(n)]
    run("submit (countersign of three: three tasks open)", signed,
        lambda a: api.call("alice", "POST", f"/api/applications/{a}/submit", "", key=True))
    votes = {signer: [api.open_task(signer, a, signer) for a in signed] for signer in ("bob", "carol", "dave")}
    run("countersign vote (first of three)", votes["bob"],
        lambda t: api.call("bob", "POST", f"/api/tasks/{t}/complete", APPROVE, key=True))
    run("countersign vote (second)", votes["carol"],
        lambda t: api.call("carol", "POST", f"/api/tasks/{t}/complete", APPROVE, key=True))
    run("countersign vote (last: decides, the process ends)", votes["dave"],
        lambda t: api.call("dave", "POST", f"/api/tasks/{t}/complete", APPROVE, key=True))


def figure(value):
    return f"{round(value, 1) + 0.0:.1f}"  # no -0.0 where the idle rate's estimate overshot


def report(results, n):
    print(f"{n} requests per use case; per request, after subtracting the background statements (idle window)\n")
    print("| use case | business | workflow | both | engine (ACT_*) | Lockstep | transaction control "
          "| of which the refresh | round trips business | round trips workflow |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, per_request, trips in results:
        by_kind = collections.Counter()
        refresh = 0.0
        for counted in per_request.values():
            for query, count in counted.items():
                by_kind[kind_of(query)] += count
                refresh += count if any(m in query.lower() for m in REFRESH_MARKERS) else 0
        servers = [sum(per_request[s].values()) for s in ("business", "workflow")]
        rt = ["{:.0f} + {:.0f}".format(trips.get((s, "request"), 0), trips.get((s, "branch"), 0))
              for s in ("business", "workflow")]
        print(f"| {name} | " + " | ".join(figure(v) for v in (*servers, sum(servers), *(by_kind[k] for k in KINDS), refresh))
              + f" | {rt[0]} | {rt[1]} |")
    print("\nround trips: request threads + Atomikos's branch threads")

    print("\nStatements run at least once per request (calls per request, server, kind, statement):")
    for name, per_request, _ in results:
        print(f"\n== {name}")
        rows = sorted(((count, server, query) for server, counted in per_request.items()
                       for query, count in counted.items() if count >= 0.95), reverse=True)
        for count, server, query in rows:
            print(f"  {count:5.1f} {server:8} {kind_of(query):8} {query[:160]}")

    print("\nThe engine's statements most repeated within one request (most calls per request in any use case):")
    repeated = collections.defaultdict(dict)
    for name, per_request, _ in results:
        for query, count in per_request["workflow"].items():
            if kind_of(query) == "engine" and count >= 1.95:
                repeated[query][name] = count
    for query, counts in sorted(repeated.items(), key=lambda item: -max(item[1].values()))[:15]:
        print(f"  {query[:200]}\n      " + "; ".join(f"{name}: {count:.1f}" for name, count in counts.items()))


def main(port, pid, n):
    api = Api(port)
    reset()
    time.sleep(IDLE_SECONDS)
    idle = both_servers()
    measurement = Measurement(pid, n, idle)
    sequence(api, measurement, 3, measured=False)
    sequence(api, measurement, n, measured=True)
    report(measurement.results, n)


if __name__ == "__main__":
    BUSINESS, WORKFLOW = int(sys.argv[3]), int(sys.argv[4])
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[5]))
