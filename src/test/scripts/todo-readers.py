#!/usr/bin/env python3
"""Readers of the todo page for a number of seconds, each on its own keep-alive HTTP connection and thread, taking
turns over the demo approvers bob, carol, dave and frank: GET /api/tasks?size=20. Prints the pages read and their
p50 (ms).

    todo-readers.py <port> <seconds> <readers>
"""
import base64
import http.client
import sys
import time

from load_threads import run_all

APPROVERS = ("bob", "carol", "dave", "frank")


def read(port, until, reader, latencies):
    connection = http.client.HTTPConnection("localhost", port, timeout=60)
    turn = reader
    while time.time() < until:
        user = APPROVERS[turn % len(APPROVERS)]
        turn += 1
        started = time.perf_counter()
        connection.request("GET", "/api/tasks?size=20", headers={
            "Authorization": "Basic " + base64.b64encode((user + ":lockstep").encode()).decode(), "Accept": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"todo page as {user}: {response.status}")
        latencies.append((time.perf_counter() - started) * 1000)


def main(port, seconds, readers):
    latencies = []
    until = time.time() + seconds
    run_all(read, [(port, until, reader, latencies) for reader in range(readers)])
    print(f"pages {len(latencies)} p50 {sorted(latencies)[len(latencies) // 2]:.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]))
