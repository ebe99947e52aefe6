package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A real crash in the middle of a resolution: a second node executes it and its JVM is halted by a
 * Byteman rule at the entry of the branch statement (after the intended outcome was committed,
 * before COMMIT PREPARED ran). This test's own node then shows what is left and finishes it.
 */
@LockstepIntegrationTest
class ResolutionCrashTest {

    static final String CRASHING_NODE = "lockstep-crash.tm";

    private static final String HALT_AT_THE_STATEMENT = """
            RULE halt right before COMMIT/ROLLBACK PREPARED of a resolution
            CLASS dev.lockstep.recovery.PostgresBranchStore
            METHOD finish
            AT ENTRY
            IF true
            DO traceln("RESOLUTION-CRASH halting before " + $1 + $2);
               java.lang.Runtime.getRuntime().halt(137)
            ENDRULE
            """;

    @Autowired TestDatabases databases;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired Api api;

    SecondNode node;

    @AfterEach
    void cleanUp() throws Exception {
        if (node != null) {
            node.kill();
        }
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
        databases.business().update("delete from application where title = 'in-doubt test'");
    }

    /**
     * Expected: the halted node leaves the resolution EXECUTING with an attempt "intended COMMIT on
     * business-db, no outcome", the branch still prepared and the audit chain ending with
     * BRANCH_INTENDED; a re-run on the surviving node commits the branch and records the stale
     * attempt INTERRUPTED.
     */
    @Test
    void aNodeHaltedBetweenTheIntendedOutcomeAndTheStatementLeavesARowThatSaysSo() throws Exception {
        String owner = "gone-" + System.nanoTime() % 100000 + ".tm";
        String gtrid = PreparedBranches.newGtrid(owner);
        new PreparedBranches(endpoints).prepareOnBusiness(PreparedBranches.atomikosXid(owner, gtrid));
        String gid = databases.business().queryForObject("select gid from pg_prepared_xacts", String.class);
        Api.Response proposed = api.post("dba1", "/api/recovery/resolutions", """
                {"gtrid": "%s", "resource": "business-db", "rawId": "%s", "action": "COMMIT",
                 "reason": "client saw success, node decommissioned"}
                """.formatted(gtrid, gid));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(200);
        long id = proposed.json().get("id").asLong();
        assertThat(api.post("dba2", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);

        Path rules = Files.createTempFile("halt-at-statement", ".btm");
        Files.writeString(rules, HALT_AT_THE_STATEMENT);
        node = SecondNode.start(endpoints, CRASHING_NODE, List.of(SecondNode.bytemanAgent(rules)), List.of());
        awaitUp(node);

        assertThatThrownBy(() -> post(node, "/api/recovery/resolutions/" + id + "/execute")).isInstanceOf(IOException.class);
        assertThat(node.jvm().awaitExit(Duration.ofSeconds(60))).isTrue();
        assertThat(node.jvm().exitValue()).isEqualTo(137);
        assertThat(node.log()).contains("RESOLUTION-CRASH halting before commit prepared");

        assertThat(databases.business().queryForObject("select status from recovery_resolution where id = ?", String.class, id))
                .isEqualTo("EXECUTING");
        assertThat(databases.business().queryForList("""
                select attempt || ':' || intended || ':' || resource || ':' || coalesce(outcome, 'no outcome')
                from recovery_branch_outcome where resolution_id = ? order by id
                """, String.class, id)).containsExactly("1:COMMIT:business-db:no outcome");
        assertThat(databases.business().queryForList("select gid from pg_prepared_xacts", String.class)).containsExactly(gid);
        assertThat(databases.business().queryForObject("""
                select actor || ' ' || action from recovery_audit where seq = (select max(seq) from recovery_audit
                where detail like ?)""", String.class, "resolution #" + id + " %")).isEqualTo("dba1 BRANCH_INTENDED");

        Api.Response rerun = api.post("dba2", "/api/recovery/resolutions/" + id + "/execute", null);

        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(200);
        assertThat(rerun.json().get("status").asString()).isEqualTo("EXECUTED");
        assertThat(databases.business().queryForList(
                "select attempt || ':' || outcome from recovery_branch_outcome where resolution_id = ? order by id",
                String.class, id)).containsExactly("1:INTERRUPTED", "2:COMMITTED");
        assertThat(databases.business().queryForList("select gid from pg_prepared_xacts", String.class)).isEmpty();
        assertThat(databases.business().queryForObject("select count(*) from application where title = 'in-doubt test'",
                Integer.class)).isEqualTo(1);
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
    }

    private static void awaitUp(SecondNode node) {
        node.jvm().awaitHealth(Duration.ofMinutes(5), status -> true);
    }

    private static HttpResponse<String> post(SecondNode node, String path) throws Exception {
        String basic = Base64.getEncoder().encodeToString((SecondNode.DBA + ":" + SecondNode.PASSWORD)
                .getBytes(StandardCharsets.UTF_8));
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(node.baseUrl() + path))
                .header("Authorization", "Basic " + basic).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
