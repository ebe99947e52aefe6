"""Shared by the profile scripts here (imported, not run): a JFR recording's CPU samples. Needs the JDK's `jfr`."""
import json
import subprocess

JDK = ("java.", "javax.", "jdk.", "sun.", "com.sun.")


def samples(recording):
    """Each execution sample as (thread name, frames as `class.method`, leaf first)."""
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "512", "--events", "jdk.ExecutionSample", recording],
                         capture_output=True, text=True, check=True).stdout
    for event in json.loads(out)["recording"]["events"]:
        thread = (event["values"].get("sampledThread") or {}).get("javaName") or ""
        # jfr's JSON names types in their internal form, dev/lockstep/...
        yield thread, [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"]
                       for f in (event["values"].get("stackTrace") or {}).get("frames", [])]
