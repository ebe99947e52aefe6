#!/usr/bin/env python3
"""Clients running the benchmark's approval cycle against a service for a number of seconds, each on its own thread
and keep-alive HTTP connection (one client unless told): alice creates and submits a low-risk application, bob and
frank each read it and approve their task. Prints the cycles of all clients, the cycle's p50 and mean, then the p50
of each operation (ms).

    approval-cycle.py <port> <seconds> [<clients>]
"""
import base64
import http.client
import json
import sys
import time
import uuid

from load_threads import run_all

DRAFT = '{"title":"Benchmark asset","assetId":42,"amount":1200.50,"riskLevel":"LOW","sensitive":false}'
APPROVE = '{"decision":"APPROVE","comment":"benchmark"}'


def client(port, end, latencies):
    connection = http.client.HTTPConnection("localhost", port, timeout=60)

    def call(user, method, path, body=None, key=None, expect=200, operation=None):
        started = time.perf_counter()
        headers = {"Authorization": "Basic " + base64.b64encode((user + ":lockstep").encode()).decode(),
                   "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status != expect:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]}")
        if operation:
            latencies[operation].append((time.perf_counter() - started) * 1000)
        return json.loads(data) if data else None

    while time.time() < end:
        started = time.perf_counter()
        application = call("alice", "POST", "/api/applications", DRAFT, expect=201, operation="create")
        path = f"/api/applications/{application['id']}"
        call("alice", "POST", path + "/submit", "", str(uuid.uuid4()), operation="submit")
        for approver in ("bob", "frank"):
            task = call(approver, "GET", path, operation="read")["openTasks"][0]["id"]
            call(approver, "POST", f"/api/tasks/{task}/complete", APPROVE, str(uuid.uuid4()), operation="approve-" + approver)
        latencies["cycle"].append((time.perf_counter() - started) * 1000)


def main(port, seconds, clients):
    # one list per operation, filled in the order the cycle runs them; a list's append is atomic under the GIL
    latencies = {name: [] for name in ("create", "submit", "read", "approve-bob", "approve-frank", "cycle")}
    end = time.time() + seconds
    run_all(client, [(port, end, latencies)] * clients)

    def p50(values):
        return sorted(values)[len(values) // 2]

    cycles = latencies.pop("cycle")
    print(f"cycles {len(cycles)} p50 {p50(cycles):.1f} ms mean {sum(cycles) / len(cycles):.1f}")
    print("   p50 ms: " + "  ".join(f"{name} {p50(values):.2f}" for name, values in latencies.items()))


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
