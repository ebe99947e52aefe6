package dev.lockstep.chaos.longrun;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.lockstep.chaos.ChaosHarness;
import dev.lockstep.chaos.ChaosSuite;
import dev.lockstep.chaos.HaltPoint;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.PostgresServer;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Failover with a branch in doubt (issue 14, item 7): do prepared transactions survive a failover? The
 * business database runs as a primary with a synchronous streaming standby, so a PREPARE TRANSACTION is on
 * the standby before the primary acknowledges it. The service is halted inside a submit's two-phase commit
 * with both branches prepared, the primary is killed (SIGKILL to all its processes), the standby promoted
 * ({@code pg_promote()}, the SQL form of {@code pg_ctl promote}) and the service restarted against it. The
 * promoted standby must hold the business branch in {@code pg_prepared_xacts} under the same gid (the same
 * XID), and the restarted service's recovery must finish the transaction on both databases as its
 * coordinator log says: commit when the decision was logged (55), roll back when it was not (56).
 *
 * <p>Each scenario gives the current business primary a new standby (a cold copy of its data directory),
 * so 56 runs on the server 55 promoted. Opt-in, not in CI:
 * {@code mvn -Pchaos,chaos-long verify -Dit.test=FailoverChaosIT} (docs/compliance.md).
 */
class FailoverChaosIT extends ChaosSuite {

    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
        h.describe(REPORT);
    }

    static Stream<Arguments> scenarios() {
        return Stream.of(Arguments.of(55, HaltPoint.AFTER_DECISION_LOGGED), Arguments.of(56, HaltPoint.BEFORE_DECISION_LOGGED));
    }

    @ParameterizedTest(name = "{0}. business primary lost with the submit prepared, JVM halted {1}: failover to the synchronous standby")
    @MethodSource("scenarios")
    void failoverWithBranchInDoubt(int number, HaltPoint point) throws SQLException {
        String standbyName = "business_standby_" + number;
        ScenarioRecord s = REPORT.begin(number, "Business primary lost while the submit's branches are prepared ("
                        + (point.commits ? "commit decision logged" : "no commit decision logged") + "), failover to its synchronous standby",
                "Both branches of the submit prepared: the business one on the primary and, through synchronous replication, on"
                        + " its standby; the JVM halted " + point.moment + "; then the business primary is lost",
                "Byteman rule " + point.rule + ": Runtime.halt(1); then SIGKILL to the business primary's postmaster and all its"
                        + " backends, promotion of the standby (pg_promote(), the SQL form of pg_ctl promote), the service restarted"
                        + " with lockstep.db.business.url pointing at the promoted standby",
                "The promoted standby holds the business branch in pg_prepared_xacts under the gid it had on the lost primary"
                        + " (the same XID). Recovery then " + (point.commits
                                ? "replays the logged commit decision: both branches commit (APPROVING, process running)"
                                : "presumes abort: both branches roll back (DRAFT, no process instance)")
                        + "; nothing prepared on either database, invariants hold, and the client's retry with the same"
                        + " Idempotency-Key is " + (point.commits ? "replayed" : "run afresh") + ", with exactly one process.");

        assumeFalse(h.business.isExternal(), "the test cannot copy, kill or promote an external database server");
        PostgresServer standby = h.addSynchronousBusinessStandby(standbyName);
        s.note("standby " + standbyName + " (port " + standby.port() + ") made from a cold copy of the primary's data directory;"
                + " pg_stat_replication on the primary (port " + h.business.port() + "): " + h.business.replicationState(standbyName));

        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, point.rule, "s" + number, Timeouts.SHORT);
        h.requireHaltEvidence(s, point);
        if (point.commits) {
            assertThat(ChaosHarness.recordsOfHaltedTransaction(s)).as("the commit decision is logged").anyMatch(l -> l.contains("|COMMITTING|"));
        } else {
            assertThat(ChaosHarness.recordsOfHaltedTransaction(s)).as("no commit decision logged").noneMatch(l -> l.contains("|COMMITTING|"));
        }
        List<String> onPrimary = gids(h.business);
        assertThat(onPrimary).as("the business branch is prepared on the primary").hasSize(1);
        String replication = replication(h.business, standbyName);
        s.faultFired += "\nreplication at the halt, on the primary: " + replication;
        assertThat(replication).as("the PREPARE was acknowledged only once the standby had flushed it")
                .contains("streaming sync").contains("synchronous_commit=on");
        // a hot standby restores prepared transactions only when recovery ends: before promotion it lists none
        s.note("pg_prepared_xacts on the standby before the failover (still in recovery): " + gids(standby));

        PostgresServer lost = h.business;
        lost.kill9();
        s.faultFired += "\nbusiness primary (port " + lost.port() + ") killed with SIGKILL to the postmaster and its backends";
        standby.promote();
        assertThat(standby.inRecovery()).as("the promoted standby is a primary").isFalse();
        List<String> promoted = ChaosHarness.prepared(standby, "promoted " + standbyName);
        s.faultFired += "\npg_prepared_xacts on the promoted standby right after promotion: " + String.join("; ", promoted);
        s.note("pg_prepared_xacts on the new business primary right after promotion: " + promoted);
        assertThat(gids(standby)).as("the prepared branch survived the failover under its gid").isEqualTo(onPrimary);
        String gtrid = ChaosHarness.decodeGid(onPrimary.get(0)).replaceAll(".*gtrid (\\S+),.*", "$1");
        assertThat(s.preparedAfterFault).as("the workflow branch at the halt belongs to the same global transaction")
                .anyMatch(p -> p.startsWith("workflow-db") && p.contains("gtrid " + gtrid + ","));

        h.failOverBusinessTo(standby);
        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        s.note("the restarted service reached the business database at " + standby.jdbcUrl());
        if (point.commits) {
            h.expectCommitted(s, crash.app());
        } else {
            h.expectRolledBack(s, crash.app());
        }
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), point.commits);
    }

    /** Where the standby stands in the primary's WAL and whether the primary waits for it, read on the primary. */
    private static String replication(PostgresServer primary, String standbyName) throws SQLException {
        try (Connection c = primary.connect(); var q = c.prepareStatement("select 'primary at ' || pg_current_wal_lsn()"
                + " || ', standby ' || application_name || ' ' || state || ' ' || sync_state || ', flushed to ' || flush_lsn"
                + " || ', replayed to ' || replay_lsn || ', synchronous_commit=' || current_setting('synchronous_commit')"
                + " from pg_stat_replication where application_name = ?")) {
            q.setString(1, standbyName);
            ResultSet r = q.executeQuery();
            return r.next() ? r.getString(1) : "standby " + standbyName + " not connected";
        }
    }

    /** The gids of the prepared transactions of the business database on {@code server}, read with plain SQL. */
    private static List<String> gids(PostgresServer server) throws SQLException {
        List<String> gids = new ArrayList<>();
        try (Connection c = server.connect(); ResultSet r = c.createStatement()
                .executeQuery("select gid from pg_prepared_xacts where database = current_database() order by gid")) {
            while (r.next()) {
                gids.add(r.getString(1));
            }
        }
        return gids;
    }
}
