package dev.lockstep.transactions.contention;

import static dev.lockstep.approval.ApiFlows.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.contention.PreparedLocks.Running;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import dev.lockstep.transactions.xa.XaPool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * A prepared branch — left by a crashed coordinator of another node, made here with plain SQL —
 * holds an application's row lock. Before bounded waits, every action on that application waited
 * without limit while holding a connection of each XA pool. Now the action answers within the lock
 * timeout (5 s by default) with 409 RESOURCE_LOCKED, Retry-After and "held by an in-doubt transaction"
 * (its gid and gtrid only for DBAs, {@link LockHolderDisclosureTest}), while the rest of the service
 * carries on: other applications' actions succeed, health answers, and the recovery console lists the holder. A burst on the stuck application holds at most
 * {@code lockstep.actions.max-concurrent-per-application} (4) pairs of connections; the rest are
 * refused at once with 503 APPLICATION_BUSY.
 */
@LockstepIntegrationTest
class PreparedRowLockTest {

    /** Far above the 5 s lock timeout, far below "forever": only a liveness bound, not a speed claim. */
    private static final long ANSWER_BOUND_SECONDS = 25;

    @Autowired Api api;
    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired @Qualifier("businessDataSource") XaPool businessPool;

    private final ExecutorService burstThreads = Executors.newCachedThreadPool();
    private PreparedLocks locks;

    @BeforeEach
    void preparedLocks() {
        locks = new PreparedLocks(endpoints.business());
    }

    @AfterEach
    void stopBurstThreads() {
        burstThreads.shutdownNow();
    }

    @Test
    void aPreparedBranchOnAnApplicationRowStallsOnlyThatApplication() throws Exception {
        Running stuck = running();
        Running other = running();
        // Another node's XID in pgjdbc's gid shape: this node's recovery must leave it alone, the answer must name it.
        String gtrid = "crashed-node.tm" + System.currentTimeMillis() + "7";
        String gid = PgGidCodec.encode(new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, gtrid.getBytes(StandardCharsets.US_ASCII),
                "crashed-node.tm7".getBytes(StandardCharsets.US_ASCII)));

        locks.rowLocks(gid, List.of(stuck.id()));
        try {
            CompletableFuture<Api.Response> onStuck =
                    CompletableFuture.supplyAsync(() -> complete(api, "bob", stuck.managerTask(), "APPROVE"));

            Api.Response onOther = complete(api, "bob", other.managerTask(), "APPROVE");
            assertThat(onOther.status()).as("another application is not held up: %s", onOther).isEqualTo(200);
            Api.Response health = api.get(null, "/actuator/health");
            assertThat(health.status()).as(health.toString()).isIn(200, 503);
            assertThat(health.json().get("status").asString()).isNotBlank();
            Api.Response console = api.get("dba1", "/api/recovery/in-doubt?refresh=true");
            assertThat(console.status()).as(console.toString()).isEqualTo(200);
            assertThat(console.body()).contains(gtrid);

            Api.Response refused = onStuck.get(ANSWER_BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
            assertThat(refused.json().get("code").asString()).isEqualTo("RESOURCE_LOCKED");
            assertThat(refused.header("Retry-After")).isNotBlank();
            assertThat(refused.json().get("lockedTable").asString()).isEqualTo("application");
            assertThat(refused.json().get("holder").asString()).isEqualTo("in-doubt");
            assertThat(refused.json().get("reference").asString()).isNotBlank();
            // an approver is no DBA: which transaction holds the lock is the console's business, not his
            assertThat(refused.json().has("heldBy")).isFalse();
            assertThat(refused.body()).doesNotContain(gtrid).doesNotContain(gid);
            // Nothing of the refused action was written: the task is still open and undecided.
            assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ?", Integer.class,
                    stuck.managerTask())).isEqualTo(1);
            assertThat(db.business().queryForObject("select count(*) from approval_record where task_id = ?", Integer.class,
                    stuck.managerTask())).isZero();
        } finally {
            locks.rollback(gid);
        }
        assertThat(complete(api, "bob", stuck.managerTask(), "APPROVE").status()).as("released, the application acts again")
                .isEqualTo(200);
    }

    /**
     * More actions on the stuck application than its XA pools have connections: without a bound they
     * would all wait holding a connection of each pool, and the rest of the service would find none.
     */
    @Test
    void aBurstOnTheStuckApplicationHoldsAtMostTheBoundOfConnections() throws Exception {
        Running stuck = running();
        Running other = running();
        String gid = "burst-holder-" + stuck.id();
        int burst = businessPool.maxSize() + 2;

        locks.rowLocks(gid, List.of(stuck.id()));
        List<CompletableFuture<Api.Response>> onStuck = new ArrayList<>();
        try {
            for (int i = 0; i < burst; i++) {
                onStuck.add(CompletableFuture.supplyAsync(() -> complete(api, "bob", stuck.managerTask(), "APPROVE"), burstThreads));
            }
            Api.Response onOther = complete(api, "bob", other.managerTask(), "APPROVE");
            assertThat(onOther.status()).as("the burst leaves connections for other applications: %s", onOther).isEqualTo(200);

            List<Api.Response> answers = new ArrayList<>();
            for (CompletableFuture<Api.Response> answer : onStuck) {
                answers.add(answer.get(ANSWER_BOUND_SECONDS, TimeUnit.SECONDS));
            }
            assertThat(answers).allSatisfy(answer -> assertThat(answer.header("Retry-After")).isNotBlank());
            assertThat(answers).extracting(answer -> answer.json().get("code").asString())
                    .containsOnly("RESOURCE_LOCKED", "APPLICATION_BUSY");
            assertThat(answers).filteredOn(answer -> answer.status() == 409)
                    .as("only the bound's worth waited for the lock").hasSizeLessThanOrEqualTo(4);
            assertThat(answers).filteredOn(answer -> answer.status() == 503).hasSizeGreaterThanOrEqualTo(burst - 4);
        } finally {
            locks.rollback(gid);
        }
    }

    private Running running() {
        return Running.submitted(api, db);
    }
}
