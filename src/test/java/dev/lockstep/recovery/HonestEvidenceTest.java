package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.InjectedFaults;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * What the recovery monitor says must be true even when something broke half-way: a resolution
 * interrupted between its recorded intent and its statement, an audit entry that could not be
 * written, a database that could not be scanned. Asserted with plain SQL on the real databases.
 */
@LockstepIntegrationTest
class HonestEvidenceTest {

    @Autowired TestDatabases databases;
    @Autowired Api api;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired InjectedFaults faults;

    PreparedBranches prepared;

    @BeforeEach
    void setUp() {
        prepared = new PreparedBranches(endpoints);
    }

    @BeforeEach
    @AfterEach
    void cleanUp() {
        faults.disarmAll();
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
        databases.business().update("delete from application where title = 'in-doubt test'");
    }

    /**
     * Expected: the execution stops right after "about to COMMIT" was committed and before COMMIT
     * PREPARED ran (an injected failure at that point, standing in for a crash); the resolution then
     * reads EXECUTING with an attempt that has no outcome, the branch is still prepared, and a re-run
     * finishes it: the stale attempt INTERRUPTED, a new one COMMITTED, the audit chain intact.
     */
    @Test
    void anExecutionStoppedBetweenItsIntentAndItsStatementSaysSoAndARerunFinishesIt() throws Exception {
        String gtrid = businessOnlyPrepared();
        String gid = single(databases.business().queryForList(
                "select gid from pg_prepared_xacts where database = current_database()", String.class));
        long id = proposeApprove(gtrid, "business-db", gid, "COMMIT");

        faults.failAfter("resolutionJournal", "intend");
        Api.Response stopped = api.post("dba1", "/api/recovery/resolutions/" + id + "/execute", null);
        assertThat(stopped.status()).as(stopped.toString()).isEqualTo(500);

        assertThat(databases.business().queryForMap("select status, attempts from recovery_resolution where id = ?", id))
                .containsEntry("status", "EXECUTING").containsEntry("attempts", 1);
        List<Map<String, Object>> attempts = databases.business().queryForList(
                "select attempt, resource, raw_id, intended, outcome from recovery_branch_outcome where resolution_id = ? order by id", id);
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0)).containsEntry("intended", "COMMIT").containsEntry("resource", "business-db")
                .containsEntry("raw_id", gid).containsEntry("outcome", null);
        assertThat(databases.business().queryForList("select gid from pg_prepared_xacts", String.class)).containsExactly(gid);
        assertThat(databases.business().queryForList(
                "select action from recovery_audit where detail like ? order by seq", String.class, "resolution #" + id + " %"))
                .containsExactly("PROPOSED", "APPROVED", "EXECUTION_STARTED", "BRANCH_INTENDED");

        JsonNode shown = resolution(id);
        assertThat(shown.get("status").asString()).isEqualTo("EXECUTING");
        assertThat(shown.at("/branches/0/intended").asString()).isEqualTo("COMMIT");
        assertThat(shown.at("/branches/0/outcome").isNull()).isTrue();

        Api.Response rerun = api.post("dba2", "/api/recovery/resolutions/" + id + "/execute", null);
        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(200);

        assertThat(databases.business().queryForObject("select status from recovery_resolution where id = ?", String.class, id))
                .isEqualTo("EXECUTED");
        assertThat(databases.business().queryForList(
                "select attempt || ':' || intended || ':' || outcome from recovery_branch_outcome where resolution_id = ? order by id",
                String.class, id)).containsExactly("1:COMMIT:INTERRUPTED", "2:COMMIT:COMMITTED");
        assertThat(databases.business().queryForList("select gid from pg_prepared_xacts", String.class)).isEmpty();
        assertThat(databases.business().queryForObject("select count(*) from application where title = 'in-doubt test'",
                Integer.class)).isEqualTo(1);
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
    }

    /**
     * Expected: when the statement ran but the node stopped before recording it, the re-run finds the
     * branch gone and records that, instead of claiming an outcome it did not see.
     */
    @Test
    void aRerunAfterTheStatementRanButWasNotRecordedFindsTheBranchGone() throws Exception {
        String gtrid = businessOnlyPrepared();
        String gid = single(databases.business().queryForList(
                "select gid from pg_prepared_xacts where database = current_database()", String.class));
        long id = proposeApprove(gtrid, "business-db", gid, "ROLLBACK");
        faults.failAfter("resolutionJournal", "intend");
        assertThat(api.post("dba1", "/api/recovery/resolutions/" + id + "/execute", null).status()).isEqualTo(500);
        databases.business().execute("rollback prepared '" + gid + "'"); // the statement that was about to run

        Api.Response rerun = api.post("dba2", "/api/recovery/resolutions/" + id + "/execute", null);

        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(200);
        assertThat(databases.business().queryForList(
                "select attempt || ':' || outcome from recovery_branch_outcome where resolution_id = ? order by id",
                String.class, id)).containsExactly("1:INTERRUPTED", "2:ALREADY_GONE");
        assertThat(databases.business().queryForObject("select status from recovery_resolution where id = ?", String.class, id))
                .isEqualTo("EXECUTED");
    }

    /** Expected: a proposal whose audit entry fails leaves neither the resolution nor the entry. */
    @Test
    void aResolutionChangeAndItsAuditEntryCommitTogether() throws Exception {
        String gtrid = businessOnlyPrepared();
        long resolutionsBefore = count("recovery_resolution");
        long auditBefore = count("recovery_audit");

        faults.failAfter("recoveryAuditTrail", "append");
        Api.Response failed = api.post("dba1", "/api/recovery/resolutions", """
                {"gtrid": "%s", "action": "ROLLBACK", "reason": "audit must fail with it"}
                """.formatted(gtrid));

        assertThat(failed.status()).as(failed.toString()).isEqualTo(500);
        assertThat(count("recovery_resolution")).isEqualTo(resolutionsBefore);
        assertThat(count("recovery_audit")).isEqualTo(auditBefore);
    }

    /**
     * Expected: with the workflow database refusing connections, the scan reports it UNKNOWN with the
     * reason, never "no prepared branch", and a branch of this node without a logged decision is not
     * recommended for ROLLBACK (its workflow sibling may have committed).
     */
    @Test
    void aDatabaseThatCannotBeScannedIsUnknownAndBlocksARollbackRecommendation() throws Exception {
        String gtrid = businessOnlyPrepared(InDoubtRecoveryTest.SELF);
        String database = databases.workflow().queryForObject("select current_database()", String.class);
        try (Connection admin = DriverManager.getConnection(endpoints.workflow().url().replace("/" + database, "/postgres"),
                endpoints.workflow().username(), endpoints.workflow().password());
                Statement statement = admin.createStatement()) {
            statement.execute("alter database \"" + database + "\" allow_connections false");
            try {
                Api.Response scan = api.get("dba1", "/api/recovery/in-doubt?refresh=true");
                assertThat(scan.status()).as(scan.toString()).isEqualTo(200);
                assertThat(scan.json().at("/scanErrors/workflow-db").asString()).isNotBlank();
                JsonNode tx = transaction(scan.json(), gtrid);
                assertThat(tx.get("missingResources").toString()).doesNotContain("workflow-db");
                assertThat(tx.at("/unknownResources/workflow-db").asString()).isNotBlank();
                assertThat(tx.get("evidence").toString()).contains("the branch on workflow-db is UNKNOWN")
                        .doesNotContain("no prepared branch on workflow-db");
                assertThat(tx.get("recommendation").asString()).isEqualTo("MANUAL");
            } finally {
                statement.execute("alter database \"" + database + "\" allow_connections true");
            }
        }
        JsonNode scannedAgain = transaction(api.get("dba1", "/api/recovery/in-doubt?refresh=true").json(), gtrid);
        assertThat(scannedAgain.get("missingResources").toString()).contains("workflow-db");
        assertThat(scannedAgain.get("unknownResources").size()).isZero();
    }

    private String businessOnlyPrepared() throws Exception {
        return businessOnlyPrepared("gone-" + System.nanoTime() % 100000 + ".tm");
    }

    private String businessOnlyPrepared(String tm) throws Exception {
        String gtrid = PreparedBranches.newGtrid(tm);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(tm, gtrid));
        return gtrid;
    }

    private long proposeApprove(String gtrid, String resource, String rawId, String action) {
        Api.Response proposed = api.post("dba1", "/api/recovery/resolutions", """
                {"gtrid": "%s", "resource": "%s", "rawId": "%s", "action": "%s", "reason": "orphan of a removed node",
                 "override": false}
                """.formatted(gtrid, resource, rawId, action));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(200);
        long id = proposed.json().get("id").asLong();
        assertThat(api.post("dba2", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);
        return id;
    }

    private JsonNode resolution(long id) {
        for (JsonNode resolution : api.get("dba1", "/api/recovery/resolutions").json()) {
            if (resolution.get("id").asLong() == id) {
                return resolution;
            }
        }
        throw new AssertionError("resolution #" + id + " not listed");
    }

    private static JsonNode transaction(JsonNode snapshot, String gtrid) {
        for (JsonNode tx : snapshot.get("transactions")) {
            if (tx.get("gtrid").asString().equals(gtrid)) {
                return tx;
            }
        }
        throw new AssertionError("no in-doubt transaction " + gtrid + " in " + snapshot);
    }

    private long count(String table) {
        return databases.business().queryForObject("select count(*) from " + table, Long.class);
    }

    private static String single(List<String> values) {
        assertThat(values).hasSize(1);
        return values.get(0);
    }
}
