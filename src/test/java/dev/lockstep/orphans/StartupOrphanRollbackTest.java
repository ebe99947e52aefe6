package dev.lockstep.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.recovery.DecodedXid;
import dev.lockstep.recovery.PgGidCodec;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.ServiceProcess;
import dev.lockstep.support.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Scenario: a node crashed with a transaction prepared on both databases and no commit decision
 * logged. Expected: its restart rolls both branches back before it takes requests — not five minutes
 * later when Atomikos would presume abort — while another node's branch stays, and a start on a new
 * (empty) coordinator log rolls back nothing. The node under test is a separate JVM ("orphan-n3.tm",
 * external mode) on this test's two databases; the branches are prepared through pgjdbc's XAResource
 * with Atomikos-shaped XIDs whose gtrid carries a time an hour ago; every check reads pg_prepared_xacts
 * and the audit table with plain SQL.
 */
@LockstepIntegrationTest
class StartupOrphanRollbackTest {

    static final String NODE = "orphan-n3.tm";
    static final String OTHER_NODE = "orphan-n4.tm";
    private static final String PASSWORD = UUID.randomUUID().toString();

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    @AfterEach
    void rollBackLeftovers() {
        PreparedBranches.rollBackAll(db.business(), db.workflow());
    }

    @Test
    void aRestartRollsBackItsOwnUndecidedBranchesAndNothingElse() throws Exception {
        Path home = Path.of("target", "orphan-test", UUID.randomUUID().toString()).toAbsolutePath();
        PreparedBranches prepared = new PreparedBranches(endpoints);
        String earlier = System.currentTimeMillis() - Duration.ofHours(1).toMillis() + "00017";
        String ownBeforeFirstStart = NODE + earlier;
        String othersBranch = OTHER_NODE + earlier;
        prepared.prepareOnBusiness(xid(NODE, ownBeforeFirstStart, "1"));
        prepared.prepareOnWorkflow(xid(NODE, ownBeforeFirstStart, "2"));
        prepared.prepareOnBusiness(xid(OTHER_NODE, othersBranch, "1"));

        try (ServiceProcess first = ServiceProcess.start(home, environment()).awaitUp()) {
            assertThat(preparedGtrids()).as("a new coordinator log proves nothing: no rollback")
                    .contains(ownBeforeFirstStart, othersBranch);
            assertThat(createDraft(first).statusCode()).as("gives the coordinator log its first records").isEqualTo(201);
            first.kill();
        }

        try (ServiceProcess restarted = ServiceProcess.start(home, environment()).awaitUp()) {
            assertThat(preparedGtrids()).as("its own undecided branches are gone on both databases once it answers")
                    .doesNotContain(ownBeforeFirstStart)
                    .contains(othersBranch);
            assertThat(db.business().queryForList(
                    "select action from recovery_audit where gtrid = ? and actor = 'startup-recovery' order by seq",
                    String.class, ownBeforeFirstStart)).containsExactly(
                    "ORPHAN_ROLLBACK_INTENDED", "ORPHAN_ROLLBACK_ROLLED_BACK",
                    "ORPHAN_ROLLBACK_INTENDED", "ORPHAN_ROLLBACK_ROLLED_BACK");
            assertThat(db.business().queryForObject("select count(*) from recovery_audit where gtrid = ?", Integer.class,
                    othersBranch)).isZero();
            assertThat(restarted.output()).contains("startup orphan rollback of business-db branch");
        }
    }

    private static Xid xid(String tm, String gtrid, String branch) {
        return PreparedBranches.xid(DecodedXid.ATOMIKOS_FORMAT_ID, gtrid, tm + branch);
    }

    private List<String> preparedGtrids() {
        return db.preparedTransactions().stream()
                .map(row -> PgGidCodec.decode((String) row.get("gid")).map(DecodedXid::gtridText).orElse("?"))
                .toList();
    }

    private Map<String, String> environment() {
        Map<String, String> environment = new HashMap<>();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_TM_UNIQUE_NAME", NODE);
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "ann");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "{noop}" + PASSWORD);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPLICANT");
        for (String database : new String[] {"business", "workflow"}) {
            var settings = database.equals("business") ? endpoints.business() : endpoints.workflow();
            String prefix = "LOCKSTEP_DB_" + database.toUpperCase() + "_";
            environment.put(prefix + "URL", settings.url());
            environment.put(prefix + "USERNAME", settings.username());
            environment.put(prefix + "PASSWORD", settings.password() == null ? "" : settings.password());
        }
        return environment;
    }

    private static HttpResponse<String> createDraft(ServiceProcess service) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(service.baseUrl() + "/api/applications"))
                .header("Authorization", ServiceProcess.basic("ann", PASSWORD))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"title": "Before the crash", "assetId": 3, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}"""))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
