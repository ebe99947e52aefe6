package dev.lockstep.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The whole service on its embedded default (two real PostgreSQL servers on free ports, the real
 * engine, the real Atomikos manager) behind real HTTP. Every test class using exactly this
 * annotation shares one context, so the servers start once per test JVM.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "lockstep.home=target/it-var/${random.uuid}",
        "lockstep.embedded.business-port=0",
        "lockstep.embedded.workflow-port=0",
        "lockstep.tm.unique-name=lockstep-it.tm",
        // no polling loop: publishing tests drive OutboxPublisher.publishDue() themselves
        "lockstep.publish.poll-interval=0s",
        // ... so events other tests leave PENDING must not turn health OUT_OF_SERVICE in a long run; the stuck
        // signal's own test writes an event two hours overdue
        "lockstep.publish.stuck-after=1h",
        // no background scan over data the tests break on purpose: reconciliation tests start runs themselves
        "lockstep.reconciliation.enabled=false",
        // archival tests run batches themselves
        "lockstep.archival.enabled=false",
        // health tests read a component right after changing what it reports: a probe is reused only by the requests
        // that come while it runs (reuse within the age: ProbedHealthIndicatorTest)
        "lockstep.health.probe-max-age=1ms",
        // no peer takeover of the dead nodes tests set up on purpose (PeerTakeoverTest drives its own instances, the
        // node tests their own peers); its metrics are still registered
        "lockstep.recovery.takeover-interval=3650d"
})
@Import({TestDatabases.class, Api.class, InjectedFaults.class})
public @interface LockstepIntegrationTest {
}
