package dev.lockstep.transactions.contention;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.contention.PreparedLocks.Running;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Who is told what about the holder of a lock a request timed out on. A prepared transaction's gid,
 * gtrid and database are for DBAs: anyone else learns only that another transaction holds the lock,
 * whether it is in doubt, and a reference under which the service logged the details. Finding the
 * holder costs at most one pooled connection per database however many requests time out.
 */
@LockstepIntegrationTest
@ExtendWith(OutputCaptureExtension.class)
class LockHolderDisclosureTest {

    private static final int FLOOD = 50;
    private static final int CONCURRENT = 8;

    @Autowired Api api;
    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    private final ExecutorService clients = Executors.newFixedThreadPool(CONCURRENT);
    private PreparedLocks locks;

    @BeforeEach
    void preparedLocks() {
        locks = new PreparedLocks(endpoints.business());
    }

    @AfterEach
    void stopClients() {
        clients.shutdownNow();
    }

    @Test
    void anApplicantWhoseRowAPreparedTransactionHoldsLearnsOnlyThatItIsInDoubt(CapturedOutput log) throws Exception {
        Running application = Running.submitted(api, db);
        String gtrid = "crashed-node.tm" + System.nanoTime();
        String gid = pgjdbcGid(gtrid);

        locks.rowLocks(gid, List.of(application.id()));
        Api.Response refused;
        try {
            refused = api.post("alice", "/api/applications/" + application.id() + "/withdraw", "{\"reason\":\"not needed\"}", key());
        } finally {
            locks.rollback(gid);
        }

        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        assertThat(refused.json().get("code").asString()).isEqualTo("RESOURCE_LOCKED");
        assertThat(refused.json().get("holder").asString()).isEqualTo("in-doubt");
        assertThat(refused.json().get("detail").asString()).contains("in doubt: yes");
        assertThat(refused.json().has("heldBy")).isFalse();
        assertThat(refused.body()).doesNotContain(gtrid).doesNotContain(gid).doesNotContain(DatabaseEndpoints.BUSINESS_RESOURCE);
        // the details are in the service's log, under the reference the applicant was given
        String reference = refused.json().get("reference").asString();
        assertThat(log.getOut().lines().filter(line -> line.contains(reference)))
                .anySatisfy(line -> assertThat(line).contains(gtrid).contains(gid).contains(DatabaseEndpoints.BUSINESS_RESOURCE));
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class,
                application.id())).isEqualTo("APPROVING");
    }

    /**
     * A table lock (here ACCESS EXCLUSIVE, which stops even reads) is not named by PostgreSQL's error the way a row
     * wait is ("... in relation"): the lookup must find the prepared holder without the table's name.
     */
    @Test
    void aDbaStoppedByATableLockOfAPreparedTransactionIsToldWhichOneAndAnApplicantIsNot() throws Exception {
        Running application = Running.submitted(api, db);
        String gtrid = "crashed-node.tm" + System.nanoTime();
        String gid = pgjdbcGid(gtrid);

        locks.tableLock(gid, "application", "access exclusive");
        Api.Response dba;
        Api.Response applicant;
        try {
            dba = api.get("dba1", "/api/recovery/mismatches");
            applicant = api.get("alice", "/api/applications/" + application.id());
        } finally {
            locks.rollback(gid);
        }

        assertThat(dba.status()).as(dba.toString()).isEqualTo(409);
        assertThat(dba.json().get("code").asString()).isEqualTo("RESOURCE_LOCKED");
        assertThat(dba.json().get("holder").asString()).isEqualTo("in-doubt");
        assertThat(dba.json().get("heldBy")).hasSize(1);
        assertThat(dba.json().get("heldBy").get(0).get("gid").asString()).isEqualTo(gid);
        assertThat(dba.json().get("heldBy").get(0).get("gtrid").asString()).isEqualTo(gtrid);
        assertThat(dba.json().get("heldBy").get(0).get("database").asString()).isEqualTo(DatabaseEndpoints.BUSINESS_RESOURCE);
        assertThat(dba.json().get("heldBy").get(0).get("tables").get(0).asString()).isEqualTo("application");
        assertThat(dba.json().get("detail").asString()).contains(gtrid);

        assertThat(applicant.status()).as(applicant.toString()).isEqualTo(409);
        assertThat(applicant.json().get("holder").asString()).isEqualTo("in-doubt");
        assertThat(applicant.json().has("heldBy")).isFalse();
        assertThat(applicant.body()).doesNotContain(gtrid).doesNotContain(gid);
    }

    /**
     * Every lock timeout used to open a fresh connection to each database to look for the holder; a flood of
     * them opened as many. Counted with the server's own session counter, after a first round has filled the
     * pools the requests use.
     */
    @Test
    void fiftyLockTimeoutsDoNotOpenAConnectionEachToLookForTheHolder() throws Exception {
        List<Running> stuck = new ArrayList<>();
        for (int i = 0; i < CONCURRENT; i++) {
            stuck.add(Running.submitted(api, db));
        }
        String gid = "flood-holder-" + System.nanoTime();

        locks.rowLocks(gid, stuck.stream().map(Running::id).toList());
        try (Connection business = locks.connection(); Connection workflow = workflowConnection()) {
            assertThat(lockTimeouts(stuck, CONCURRENT)).as("the first round, which fills the pools").isGreaterThanOrEqualTo(1);
            long sessionsBefore = sessions(business) + sessions(workflow);

            int timedOut = lockTimeouts(stuck, FLOOD);

            long opened = sessions(business) + sessions(workflow) - sessionsBefore;
            assertThat(timedOut).isGreaterThanOrEqualTo(FLOOD);
            // one look per timeout asked both databases on a new connection each (over 2 x 50); the service's own
            // scans and heartbeats open about ten in that time
            assertThat(opened).as("sessions opened on both databases during %d lock timeouts", timedOut).isLessThan(FLOOD);
            for (Connection connection : List.of(business, workflow)) {
                assertThat(count(connection, "select count(*) from pg_stat_activity where application_name = 'lockstep-lock-holders'"))
                        .as("the lookups' own pool").isLessThanOrEqualTo(1);
            }
        } finally {
            locks.rollback(gid);
        }
    }

    private Connection workflowConnection() throws SQLException {
        return DriverManager.getConnection(endpoints.workflow().url(), endpoints.workflow().username(),
                endpoints.workflow().password());
    }

    /**
     * Acts on the stuck applications from {@link #CONCURRENT} clients, one application each, until at least
     * {@code wanted} actions have answered 409 RESOURCE_LOCKED; any other answer may only be a retryable 503.
     */
    private int lockTimeouts(List<Running> stuck, int wanted) throws Exception {
        AtomicInteger locked = new AtomicInteger();
        List<Future<?>> running = new ArrayList<>();
        for (Running application : stuck) {
            running.add(clients.submit(() -> {
                while (locked.get() < wanted) {
                    Api.Response answer = complete(api, "bob", application.managerTask(), "APPROVE");
                    if (answer.status() == 409) {
                        assertThat(answer.json().get("code").asString()).isEqualTo("RESOURCE_LOCKED");
                        locked.incrementAndGet();
                    } else {
                        assertThat(answer.status()).as(answer.toString()).isEqualTo(503);
                    }
                }
                return null;
            }));
        }
        for (Future<?> client : running) {
            client.get();
        }
        return locked.get();
    }

    /** Sessions ever established to the connection's database (each statement here is its own snapshot). */
    private static long sessions(Connection connection) throws SQLException {
        return count(connection, "select sessions from pg_stat_database where datname = current_database()");
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Another node's XID in pgjdbc's gid shape, so that the lookup can decode its gtrid. */
    private static String pgjdbcGid(String gtrid) {
        return PgGidCodec.encode(new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, gtrid.getBytes(StandardCharsets.US_ASCII),
                "crashed-node.tm7".getBytes(StandardCharsets.US_ASCII)));
    }
}
