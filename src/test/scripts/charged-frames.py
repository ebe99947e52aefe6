#!/usr/bin/env python3
"""What the CPU samples charged to one Lockstep frame ran. The bench's JFR summaries (ServiceProfile) charge each
execution sample to its first Lockstep frame counted from the leaf, so a Lockstep servlet filter is charged with
everything below it that is not Lockstep's: the rest of Spring Security's chain, Spring MVC, Jackson. This splits the
samples charged to the frames given into what ran (Spring MVC's phases, Spring Security's filters): each sample goes to
the first category of CATEGORIES that one of its frames between the charged frame and the leaf matches. Then the top
library frames (first frame outside the JDK) of each category, and the share of all samples that have the password
check or the login throttle anywhere on their stack (their own frames are Lockstep's, so never charged to another).

    src/test/scripts/charged-frames.py <recording.jfr> <charged frame prefix> [<charged frame prefix> ...]
    e.g. charged-frames.py target/filter-profile/todo-16-readers.jfr \\
             dev.lockstep.platform.security.login.LoginThrottleFilter.doFilterInternal \\
             'dev.lockstep.platform.security.login.LoginThrottleFilter$1.doFilterInternal'

Record with a stack depth that holds a whole request (-XX:FlightRecorderOptions:stackdepth=256): at JFR's default
of 64 frames a deep sample loses its root side, and with it the filters. Needs the JDK's `jfr` tool on the PATH.
"""
import collections
import sys

from jfr_samples import JDK, samples

# (category, frame prefixes); a sample goes to the first category one of its frames below the charged frame matches
CATEGORIES = [
    ("Spring MVC: writing the response (message converters, Jackson)",
     ("org.springframework.web.servlet.mvc.method.annotation.AbstractMessageConverterMethodProcessor.writeWith",)),
    ("Spring MVC: reading the request body (Jackson)",
     ("org.springframework.web.servlet.mvc.method.annotation.AbstractMessageConverterMethodArgumentResolver.readWith",)),
    ("Spring MVC: method validation (Hibernate Validator)", ("org.hibernate.validator.",)),
    ("Spring MVC: finding the handler", ("org.springframework.web.servlet.DispatcherServlet.getHandler",)),
    ("Spring MVC: an argument object bound from query parameters (model attribute)",
     ("org.springframework.web.method.annotation.ModelAttributeMethodProcessor",)),
    ("Spring MVC: resolving the handler's other arguments",
     ("org.springframework.web.method.support.InvocableHandlerMethod.getMethodArgumentValues",)),
    ("Spring MVC: the request-handled event", ("org.springframework.web.servlet.FrameworkServlet.publishRequestHandledEvent",)),
    ("Spring MVC: exception handling (problem+json)", ("org.springframework.web.servlet.DispatcherServlet.processHandlerException",)),
    ("Spring MVC: other (dispatch, the model, return values, interceptors)", ("org.springframework.web.servlet.",)),
    ("Spring Security: authorization rules", ("org.springframework.security.web.access.intercept.AuthorizationFilter",)),
    ("Spring Security: HTTP Basic authentication (decode, user lookup, context)",
     ("org.springframework.security.web.authentication.www.BasicAuthenticationFilter",)),
    ("Spring Security: the firewall and the chain's request matching",
     ("org.springframework.security.web.firewall.", "org.springframework.security.web.util.matcher.",
      "org.springframework.security.web.servlet.util.matcher.")),
    ("Spring Security: other filters", ("org.springframework.security.",)),
]
OTHER = "other"
# What the password check and the login throttle cost wherever they are charged
ANYWHERE = [("bcrypt", "org.springframework.security.crypto.bcrypt."),
            ("the remembered verification (VerifiedPasswords)", "dev.lockstep.platform.security.VerifiedPasswords"),
            ("the login throttle's buckets (LoginThrottle)", "dev.lockstep.platform.security.login.LoginThrottle.")]


def main(recording, charged):
    total = 0
    by_category = collections.Counter()
    libraries = collections.defaultdict(collections.Counter)
    anywhere = collections.Counter()
    for _, frames in samples(recording):
        total += 1
        for name, prefix in ANYWHERE:
            anywhere[name] += any(f.startswith(prefix) for f in frames)
        first = next((i for i, frame in enumerate(frames) if frame.startswith("dev.lockstep.")), None)
        if first is None or not frames[first].startswith(tuple(charged)):
            continue
        below = frames[:first]
        category = next((name for name, prefixes in CATEGORIES if any(f.startswith(prefixes) for f in below)), OTHER)
        by_category[category] += 1
        libraries[category][next((f for f in below if not f.startswith(JDK)), "(JDK only)")] += 1
    mine = sum(by_category.values())
    print(f"{recording}: {total} CPU samples of all threads, {mine} ({100 * mine / max(total, 1):.1f} %)"
          f" charged to {', '.join(charged)}\n")
    print("| what ran | samples | of the charged | of all samples |")
    print("|---|---:|---:|---:|")
    for category, count in by_category.most_common():
        print(f"| {category} | {count} | {100 * count / mine:.1f} % | {100 * count / total:.1f} % |")
    print("\nAnywhere on the stack, charged to whatever frame: "
          + "; ".join(f"{name} {100 * anywhere[name] / max(total, 1):.1f} %" for name, _ in ANYWHERE))
    for category, count in by_category.most_common():
        print(f"\n{category}: top frames outside the JDK")
        for frame, n in libraries[category].most_common(5):
            print(f"  {100 * n / count:5.1f} %  {frame}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
