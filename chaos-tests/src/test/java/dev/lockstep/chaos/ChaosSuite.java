package dev.lockstep.chaos;

import dev.lockstep.chaos.report.ComplianceReport;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What every chaos test class shares: the one compliance report all scenarios write to, and the harness
 * (PostgreSQL servers, service JVM, proxies) that a class builds in its {@code @BeforeAll} and that is
 * closed after the class. Classes run one after another, so one static harness at a time is enough.
 * Public for the long scenarios in {@code chaos.longrun}.
 */
public abstract class ChaosSuite {

    @RegisterExtension
    protected static final ComplianceReport REPORT =
            ComplianceReport.shared(Path.of(System.getProperty("chaos.reportDir", "target/compliance-report")));

    protected static ChaosHarness h;

    @AfterAll
    protected static void closeHarness() {
        if (h != null) {
            h.close();
            h = null;
        }
    }
}
