#!/usr/bin/env python3
"""Splits the request threads' wall time in a benchmark JFR recording (target/bench/*.jfr) by what it was spent on.

    src/test/scripts/wall-split.py target/bench/xa-1-clients.jfr [target/bench/single-1-clients.jfr ...]

Wall time = execution samples (on the CPU, every 10 ms) plus native-method samples (in native code, e.g. waiting in
a socket read for PostgreSQL, every 20 ms) of the http-nio-*-exec-* threads, each weighted by its sampling period,
as ServiceProfile does. A thread parked or blocked in Java is not sampled. Each sample goes to the first category
below that one of its frames matches, in this order, so that e.g. a connection borrow made by the engine counts as
a borrow, and a socket read under a PREPARE TRANSACTION as the prepare. Needs the JDK's `jfr` tool on the PATH.
"""
import collections
import json
import subprocess
import sys

CATEGORIES = [
    ("coordinator log (write + force)", ("dev/lockstep/transactions/xa/log/", "com/atomikos/recovery/")),
    ("XA prepare (PREPARE TRANSACTION)", ("org/postgresql/xa/PGXAConnection.prepare",)),
    ("XA commit (COMMIT PREPARED / one-phase)", ("org/postgresql/xa/PGXAConnection.commit",)),
    ("XA start / end / rollback", ("org/postgresql/xa/PGXAConnection.start", "org/postgresql/xa/PGXAConnection.end",
                                   "org/postgresql/xa/PGXAConnection.rollback")),
    ("pool borrow + validation (Agroal, Hikari)", ("dev/lockstep/transactions/xa/XaPool.getConnection",
                                                   "com/zaxxer/hikari/HikariDataSource.getConnection")),
    ("intent journal", ("dev/lockstep/recovery/IntentJournal",)),
    ("action fence", ("dev/lockstep/transactions/workflow/ActionFence",)),
    ("engine (Activiti + its MyBatis statements)", ("org/activiti/",)),
    ("JPA (Hibernate + its statements)", ("org/hibernate/",)),
    ("other JDBC statements", ("org/postgresql/",)),
    ("other Atomikos (enlist, delist, 2PC driver)", ("com/atomikos/",)),
]
REST = "HTTP, security, JSON, Spring, Lockstep code"
PERIOD_MS = {"jdk.ExecutionSample": 10.0, "jdk.NativeMethodSample": 20.0}


def split(recording):
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events",
                          "jdk.ExecutionSample,jdk.NativeMethodSample", recording],
                         capture_output=True, text=True, check=True).stdout
    sums = collections.Counter()
    for event in json.loads(out)["recording"]["events"]:
        values = event["values"]
        thread = values.get("sampledThread") or {}
        if not (thread.get("javaName") or "").startswith("http-nio-") or "-exec-" not in thread.get("javaName", ""):
            continue
        frames = [f["method"]["type"]["name"] + "." + f["method"]["name"]
                  for f in (values.get("stackTrace") or {}).get("frames", [])]
        category = next((name for name, prefixes in CATEGORIES
                         if any(frame.startswith(prefixes) for frame in frames)), REST)
        sums[category] += PERIOD_MS[event["type"]]
    return sums


def main(recordings):
    columns = [split(r) for r in recordings]
    names = [name for name, _ in CATEGORIES] + [REST]
    print("| wall time on the request threads | " + " | ".join(r.split("/")[-1] for r in recordings) + " |")
    print("|---|" + "---:|" * len(recordings))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{100 * c[name] / max(sum(c.values()), 1):.1f} %" for c in columns) + " |")
    print("| sampled, in all | " + " | ".join(f"{sum(c.values()) / 1000:.1f} s" for c in columns) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
