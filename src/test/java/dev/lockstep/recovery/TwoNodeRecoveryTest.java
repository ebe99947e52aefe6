package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceJvm;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Two real service instances on the same two databases: this test's context ("lockstep-it.tm")
 * and a second JVM started from the same classpath as "lockstep-n2.tm". Each recovers only its
 * own XIDs; the console shows the owner; a stopped node's leftovers become orphans once its
 * heartbeat is older than the timeout.
 */
@LockstepIntegrationTest
class TwoNodeRecoveryTest {

    static final String SELF = "lockstep-it.tm";
    static final String NODE2 = "lockstep-n2.tm";

    @Autowired TestDatabases databases;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired Api api;

    ServiceJvm node2;

    @AfterEach
    void stopNode2AndCleanUp() {
        if (node2 != null) {
            node2.kill9();
        }
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
    }

    @Test
    void eachNodeRecoversOnlyItsOwnAndAStoppedNodesLeftoversBecomeOrphans() throws Exception {
        node2 = startNode2();
        await("node 2 heartbeat").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(2))
                .until(() -> liveNodes().contains(NODE2));

        PreparedBranches prepared = new PreparedBranches(endpoints);
        String node2s = bothPrepared(prepared, NODE2);
        String mine = bothPrepared(prepared, SELF);

        JsonNode node2Tx = inDoubt(node2s);
        assertThat(node2Tx.get("ownerTm").asString()).isEqualTo(NODE2);
        assertThat(node2Tx.get("ownerAlive").asBoolean()).isTrue();
        assertThat(node2Tx.get("classification").asString()).isEqualTo("IN_FLIGHT");
        Api.Response refused = api.post("dba1", "/api/recovery/resolutions", """
                {"gtrid": "%s", "action": "ROLLBACK", "reason": "not mine"}""".formatted(node2s));
        assertThat(refused.json().get("code").asString()).isEqualTo("RECOVERY_OWNER_ALIVE");

        // node 2 runs with a 10 s max timeout: its recovery presumes abort of its own XIDs only
        await("node 2 rolls back its own XIDs").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(2))
                .until(() -> gtridsPrepared().stream().noneMatch(node2s::equals));
        assertThat(gtridsPrepared()).containsOnly(mine);

        node2.kill9();
        String leftover = bothPrepared(prepared, NODE2);
        assertThat(inDoubt(leftover).get("classification").asString()).isEqualTo("IN_FLIGHT");
        await("node 2 counted as gone").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(5))
                .until(() -> inDoubt(leftover).get("classification").asString().equals("ORPHAN"));
        JsonNode orphan = inDoubt(leftover);
        assertThat(orphan.get("ownerAlive").asBoolean()).isFalse();
        assertThat(orphan.get("evidence").toString()).contains(NODE2 + " is gone");
        assertThat(inDoubt(mine).get("classification").asString()).isEqualTo("IN_FLIGHT");
    }

    private ServiceJvm startNode2() {
        return SecondNode.start(endpoints, NODE2, List.of(), List.of(
                "--lockstep.tm.default-timeout=5s",
                "--lockstep.tm.max-timeout=10s",
                "--lockstep.tm.recovery-delay=2s",
                "--lockstep.recovery.heartbeat-interval=2s")).jvm();
    }

    private String bothPrepared(PreparedBranches prepared, String tm) throws Exception {
        String gtrid = PreparedBranches.newGtrid(tm);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(tm, gtrid));
        prepared.prepareOnWorkflow(PreparedBranches.atomikosXid(tm, gtrid));
        return gtrid;
    }

    private List<String> liveNodes() {
        List<String> live = new ArrayList<>();
        api.get("dba1", "/api/recovery/nodes").json().get("live").forEach(node -> live.add(node.asString()));
        return live;
    }

    private List<String> gtridsPrepared() {
        return databases.preparedTransactions().stream()
                .map(row -> PgGidCodec.decode((String) row.get("gid")).map(DecodedXid::gtridText).orElse("?"))
                .distinct().toList();
    }

    private JsonNode inDoubt(String gtrid) {
        for (JsonNode tx : api.get("dba1", "/api/recovery/in-doubt?refresh=true").json().get("transactions")) {
            if (tx.get("gtrid").asString().equals(gtrid)) {
                return tx;
            }
        }
        throw new AssertionError("no in-doubt transaction " + gtrid);
    }
}
