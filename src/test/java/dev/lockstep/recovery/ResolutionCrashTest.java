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
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A real crash in the middle of a forced resolution, at each of its steps (issue 36 item 1): a second node executes it
 * and a Byteman rule halts its JVM there. A resolution is not one XA transaction but a sequence the journal records
 * step by step (the attempt claimed, the intended outcome, the COMMIT/ROLLBACK PREPARED statement, the outcome, the
 * resolution's end), each of the journal's steps committed with its audit entry. After each halt the rows say exactly
 * how far it got, read with plain SQL, and a re-run on this test's own node finishes it.
 */
@LockstepIntegrationTest
class ResolutionCrashTest {

    /** One name per halt: each halted node's lease on its name outlives the test. */
    private static final String CRASHING_NODE = "lockstep-crash-%d.tm";

    /** Where the node halts, what the rows say then, and what they say once the re-run finished. */
    enum Halt {
        BEFORE_THE_INTENT("dev.lockstep.recovery.ResolutionJournal", "intend", "AT ENTRY", List.of(), true,
                "EXECUTION_STARTED", List.of("2:COMMITTED")),
        BEFORE_THE_STATEMENT("dev.lockstep.recovery.PostgresBranchStore", "finish", "AT ENTRY",
                List.of("1:COMMIT:business-db:no outcome"), true, "BRANCH_INTENDED", List.of("1:INTERRUPTED", "2:COMMITTED")),
        AFTER_THE_STATEMENT("dev.lockstep.recovery.PostgresBranchStore", "finish", "AT EXIT",
                List.of("1:COMMIT:business-db:no outcome"), false, "BRANCH_INTENDED", List.of("1:INTERRUPTED", "2:ALREADY_GONE")),
        BEFORE_THE_RESOLUTION_ENDS("dev.lockstep.recovery.ResolutionJournal", "finished", "AT ENTRY",
                List.of("1:COMMIT:business-db:COMMITTED"), false, "BRANCH_ENDED", List.of("1:COMMITTED"));

        final String rule;
        final List<String> attemptsAtTheHalt;
        final boolean stillPrepared;
        final String lastAuditAction;
        final List<String> attemptsAfterTheRerun;

        Halt(String type, String method, String location, List<String> attemptsAtTheHalt, boolean stillPrepared,
                String lastAuditAction, List<String> attemptsAfterTheRerun) {
            this.rule = """
                    RULE halt %s of a resolution
                    CLASS %s
                    METHOD %s
                    %s
                    IF true
                    DO traceln("RESOLUTION-CRASH halting %s");
                       java.lang.Runtime.getRuntime().halt(137)
                    ENDRULE
                    """.formatted(name(), type, method, location, name());
            this.attemptsAtTheHalt = attemptsAtTheHalt;
            this.stillPrepared = stillPrepared;
            this.lastAuditAction = lastAuditAction;
            this.attemptsAfterTheRerun = attemptsAfterTheRerun;
        }
    }

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
     * CI halts before the statement and before the end is recorded (each node start costs about a minute on two cores);
     * {@code -Dresolution.crash=all} adds the halts before the intent and after the statement.
     */
    static Stream<Halt> halts() {
        return "all".equals(System.getProperty("resolution.crash")) ? Arrays.stream(Halt.values())
                : Stream.of(Halt.BEFORE_THE_STATEMENT, Halt.BEFORE_THE_RESOLUTION_ENDS);
    }

    @ParameterizedTest(name = "halted {0}")
    @MethodSource("halts")
    void aNodeHaltedMidResolutionLeavesRowsThatSaySoAndARerunFinishesIt(Halt halt) throws Exception {
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

        Path rules = Files.createTempFile("halt-" + halt.name().toLowerCase(), ".btm");
        Files.writeString(rules, halt.rule);
        node = SecondNode.start(endpoints, CRASHING_NODE.formatted(halt.ordinal()), List.of(SecondNode.bytemanAgent(rules)), List.of());
        awaitUp(node);

        assertThatThrownBy(() -> post(node, "/api/recovery/resolutions/" + id + "/execute")).isInstanceOf(IOException.class);
        assertThat(node.jvm().awaitExit(Duration.ofSeconds(60))).isTrue();
        assertThat(node.jvm().exitValue()).isEqualTo(137);
        assertThat(node.log()).contains("RESOLUTION-CRASH halting " + halt.name());

        assertThat(databases.business().queryForObject("select status from recovery_resolution where id = ?", String.class, id))
                .isEqualTo("EXECUTING");
        assertThat(databases.business().queryForList("""
                select attempt || ':' || intended || ':' || resource || ':' || coalesce(outcome, 'no outcome')
                from recovery_branch_outcome where resolution_id = ? order by id
                """, String.class, id)).containsExactlyElementsOf(halt.attemptsAtTheHalt);
        assertThat(databases.business().queryForList("select gid from pg_prepared_xacts", String.class))
                .isEqualTo(halt.stillPrepared ? List.of(gid) : List.of());
        assertThat(databases.business().queryForObject("""
                select actor || ' ' || action from recovery_audit where seq = (select max(seq) from recovery_audit
                where detail like ? or detail like ?)""", String.class, "resolution #" + id + " %", "resolution #" + id + ":%"))
                .isEqualTo("dba1 " + halt.lastAuditAction);

        Api.Response rerun = api.post("dba2", "/api/recovery/resolutions/" + id + "/execute", null);

        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(200);
        assertThat(rerun.json().get("status").asString()).isEqualTo("EXECUTED");
        assertThat(databases.business().queryForList(
                "select attempt || ':' || outcome from recovery_branch_outcome where resolution_id = ? order by id",
                String.class, id)).containsExactlyElementsOf(halt.attemptsAfterTheRerun);
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
