package dev.lockstep.transactions.contention;

import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;

import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Prepared (in-doubt) transactions holding locks in the business database, made with plain SQL as a
 * crashed coordinator of another node or a DBA in psql would leave them, and the running applications
 * the contention tests act on.
 */
final class PreparedLocks {

    private final DatabaseSettings business;

    PreparedLocks(DatabaseSettings business) {
        this.business = business;
    }

    /** A submitted application waiting for its manager's decision. */
    record Running(long id, String managerTask) {

        static Running submitted(Api api, TestDatabases db) {
            long id = createDraft(api, "LOW", false);
            return new Running(id, openTaskId(db, submit(api, id), "managerApproval"));
        }
    }

    /** {@code BEGIN; SELECT ... FOR UPDATE; PREPARE TRANSACTION}: row locks on these applications. */
    void rowLocks(String gid, List<Long> applicationIds) throws SQLException {
        prepare(gid, "select id from application where id in ("
                + applicationIds.stream().map(String::valueOf).collect(Collectors.joining(",")) + ") for update");
    }

    /** {@code BEGIN; LOCK TABLE ...; PREPARE TRANSACTION}: a table-level lock, the kind no row wait names. */
    void tableLock(String gid, String table, String mode) throws SQLException {
        prepare(gid, "lock table " + table + " in " + mode + " mode");
    }

    void rollback(String gid) throws SQLException {
        try (Connection connection = connection(); Statement rollback = connection.createStatement()) {
            rollback.execute("rollback prepared '" + gid + "'");
        }
    }

    /** A plain connection of the test's own, outside the code under test. */
    Connection connection() throws SQLException {
        return DriverManager.getConnection(business.url(), business.username(), business.password());
    }

    private void prepare(String gid, String lock) throws SQLException {
        try (Connection connection = connection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute(lock);
                statement.execute("prepare transaction '" + gid + "'");
            }
        }
    }
}
