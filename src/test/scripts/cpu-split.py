#!/usr/bin/env python3
"""Where a JFR recording's CPU samples on the request threads (Tomcat's http-nio-*) went, two ways:

  by library: each sample goes to the library of its first frame outside the JDK counted from the leaf (Hibernate,
              pgjdbc, MyBatis, ...), so a library is charged with what it runs itself, not with what it calls;
  below a frame: with a frame given (a substring of `class.method`), the samples that have it on their stack, split by
              the first Lockstep method (or engine command) they called below it, to the depth given.

    src/test/scripts/cpu-split.py <recording.jfr>
    src/test/scripts/cpu-split.py <recording.jfr> TaskDecisions.complete [depth]

Record with a stack depth that holds a whole request (-XX:FlightRecorderOptions:stackdepth=256), e.g.
`jcmd <pid> JFR.start settings=profile` while `approval-cycle.py <port> 45 16` runs. Needs the JDK's `jfr` tool.
"""
import collections
import sys

from jfr_samples import JDK, samples

LIBRARIES = [("org.hibernate.", "Hibernate"), ("org.postgresql.", "pgjdbc"), ("org.apache.ibatis.", "MyBatis"),
             ("org.activiti.", "Activiti"), ("org.springframework.security.", "Spring Security"),
             ("org.springframework.web.", "Spring MVC"), ("org.springframework.", "Spring's core"),
             ("org.apache.catalina.", "Tomcat"), ("org.apache.tomcat.", "Tomcat"), ("org.apache.coyote.", "Tomcat"),
             ("ch.qos.logback.", "Logback"), ("com.atomikos.", "Atomikos"), ("io.agroal.", "Agroal"),
             ("com.fasterxml.", "Jackson"), ("tools.jackson.", "Jackson"), ("io.micrometer.", "Micrometer"),
             ("com.zaxxer.", "HikariCP"), ("dev.lockstep.", "Lockstep")]
OWN_STEPS = ("dev.lockstep.", "org.activiti.engine.impl.cmd.")


def request_stacks(recording):
    """Each request-thread sample's frames, leaf first."""
    return [frames for thread, frames in samples(recording) if thread.startswith("http-nio")]


def library_of(stack):
    for frame in stack:
        if not frame.startswith(JDK):
            return next((name for prefix, name in LIBRARIES if frame.startswith(prefix)), frame.rsplit(".", 2)[0])
    return "the JDK"


def print_shares(counts, total):
    for key, count in counts.most_common(25):
        print(f"{count / total * 100:5.1f} %  {count:5d}  {key}")


def main():
    stacks = request_stacks(sys.argv[1])
    if len(sys.argv) == 2:
        print(f"{len(stacks)} samples on the request threads, by the first library frame from the leaf")
        print_shares(collections.Counter(library_of(stack) for stack in stacks), len(stacks))
        return
    frame, depth = sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1
    below = collections.Counter()
    for stack in stacks:
        root_first = stack[::-1]
        at = [i for i, f in enumerate(root_first) if frame in f]
        if at:
            steps = [f for f in root_first[at[-1] + 1:] if f.startswith(OWN_STEPS)]
            below[" > ".join(steps[:depth]) or "(in it or its libraries)"] += 1
    total = sum(below.values())
    print(f"{total} of {len(stacks)} samples on the request threads have {frame} on their stack; by what it called")
    print_shares(below, total)


if __name__ == "__main__":
    main()
